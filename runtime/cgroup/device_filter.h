/* linux.resources.devices → the eBPF program (BPF_PROG_TYPE_CGROUP_DEVICE)
 * that cgroup v2 runs on every open and mknod of a device node in the
 * container's cgroup, and the bpf(2) calls that load and attach it.
 *
 * The rules: the config's, in order, then runc's default allow list (the
 * nodes every container has, mknod of any node, /dev/pts, /dev/net/tun),
 * less a default whose path linux.devices redefines (as runc does: the
 * config's node then needs a rule of its own). Anything no rule allows is
 * denied. For each access bit asked for (r, w, m), the LAST rule that
 * matches the node's type, major and minor and names that bit decides; the
 * request is allowed only if every bit it asks for is. This is cgroup v1's
 * allow/deny list read the way runc's emulator reads it, except that a deny
 * narrower than an earlier wildcard allow does punch a hole (v1 could
 * not; denying more is the safe side).
 *
 * Conversion is pure, for the unit tests; the program is attached with
 * BPF_F_ALLOW_MULTI, as runc and systemd do, so a parent's program still
 * applies too. bwrap's nodev mounts and the floor's check of linux.devices
 * stay as the other layers. */
#ifndef SB_DEVICE_FILTER_H
#define SB_DEVICE_FILTER_H

#include <linux/bpf.h>
#include <stddef.h>

struct sb_error;
struct oci_linux;

struct device_filter {
        struct bpf_insn *insns;
        size_t n;
};

/* The program for l->resources->devices and l->devices (l may be NULL). */
int device_filter_build(const struct oci_linux *l, struct device_filter *out, struct sb_error *err);

void device_filter_release(struct device_filter *f);

/* Load the program and attach it to the cgroup directory cgroup_fd. */
int device_filter_attach(const struct device_filter *f, int cgroup_fd, struct sb_error *err);

#endif
