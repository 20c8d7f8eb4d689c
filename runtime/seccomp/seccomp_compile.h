/* linux.seccomp → raw BPF with libseccomp, on the host: sbrun-init is static
 * and only loads the program (docs/design.md#sbrun-init-from-a-sealed-memfd). */
#ifndef SB_SECCOMP_COMPILE_H
#define SB_SECCOMP_COMPILE_H

#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct oci_seccomp;

/* Everything the compiled program depends on (the profile, the native
 * architecture, libseccomp's version and API level), as bytes: the cache
 * key, compared in full on a cache hit. Caller frees *key. */
int seccomp_profile_key(const struct oci_seccomp *s, uint8_t **key, size_t *len,
                        struct sb_error *err);

/* Compile into a malloc'd array of struct sock_filter. Errors name the
 * linux.seccomp field; unknown syscall names are skipped with a warning. */
int seccomp_compile(const struct oci_seccomp *s, uint8_t **bpf, size_t *size, struct sb_error *err);

/* A libseccomp filter (scmp_filter_ctx) as a malloc'd array of struct
 * sock_filter, checked against the kernel's size limit. */
int seccomp_compile_export(void *ctx, uint8_t **bpf, size_t *size, struct sb_error *err);

/* The SECCOMP_FILTER_FLAG_* bits seccomp(2) must be called with: the
 * profile's flags (checked against the running kernel) plus NEW_LISTENER
 * when an action is SCMP_ACT_NOTIFY. Not part of the BPF, so not cached. */
int seccomp_load_flags(const struct oci_seccomp *s, uint32_t *flags, struct sb_error *err);

/* Does any action of the profile (default or per syscall) name SCMP_ACT_NOTIFY? */
int seccomp_profile_uses_notify(const struct oci_seccomp *s);

#endif
