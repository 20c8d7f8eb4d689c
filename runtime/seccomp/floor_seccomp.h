/* The policy floor's seccomp filter (docs/policy.md): compiled from the rules in
 * spec/floor_seccomp_rules.c, cached like the spec's programs, and put in
 * the init plan BEFORE the spec's program, for create and exec alike. The
 * kernel runs every stacked filter, so the spec can only add to it. */
#ifndef SB_RUNTIME_FLOOR_SECCOMP_H
#define SB_RUNTIME_FLOOR_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec/policy_profile_id.h"

struct sb_error;
struct init_plan;

#define FLOOR_SECCOMP_MAX_PROGRAMS 2

struct floor_seccomp {
        enum policy_profile profile;
        uint8_t *bpf[FLOOR_SECCOMP_MAX_PROGRAMS];
        size_t size[FLOOR_SECCOMP_MAX_PROGRAMS];
        size_t n;
};

void floor_seccomp_release(struct floor_seccomp *f);

/* The floor's programs for the profile the floor merge chose
 * (effective_spec_apply, effective_process_apply): the standard deny-list,
 * with the file-attribute ioctls too where lock_file_attrs
 * (floor_locks_file_attrs, spec/floor_volumes.h), and for strict also the
 * allow-list, which with notify (a create with NOTIFY_SOCKET,
 * runtime/container/notify_socket.h) lets the process make an AF_UNIX
 * datagram socket and connect it. Any failure is fatal: the floor never
 * falls back to none. */
int floor_seccomp_prepare(enum policy_profile profile, bool lock_file_attrs, bool notify,
                          const char *state_root, struct floor_seccomp *f, struct sb_error *err);

/* Append the programs to plan; call before the spec's program is added. */
int floor_seccomp_to_plan(const struct floor_seccomp *f, struct init_plan *plan,
                          struct sb_error *err);

#endif
