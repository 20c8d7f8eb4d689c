/* The floor seccomp filter's rules, as data (spec/ decides what is denied;
 * runtime/seccomp/floor_seccomp.c compiles them with libseccomp). The floor is
 * stacked under the spec's own filter: the kernel runs every installed
 * filter and the most restrictive answer wins, so nothing in config.json
 * can give back what is denied here. */
#ifndef SB_SPEC_FLOOR_SECCOMP_RULES_H
#define SB_SPEC_FLOOR_SECCOMP_RULES_H

#include <stddef.h>
#include <stdint.h>

struct floor_syscall {
        const char *name;
        int errnum; /* the errno the denied call returns */
};

/* standard: allow by default, deny these. */
extern const struct floor_syscall floor_standard_deny[];
extern const size_t floor_standard_deny_len;

/* clone(2) with any of these bits in arg0 makes a namespace: EPERM. */
extern const uint64_t floor_clone_new_flags[];
extern const size_t floor_clone_new_flags_len;

/* ioctl(2) with one of these requests: EPERM. The kernel reads the request
 * as a 32-bit int, so only the low 32 bits of arg1 are compared (a set high
 * bit must not slip past). */
extern const uint32_t floor_ioctl_deny[];
extern const size_t floor_ioctl_deny_len;

/* ioctl(2) requests that change a file's attributes, its project quota id
 * among them: EPERM too where writable volumes must be bounded by project
 * quota (floor_locks_file_attrs, spec/floor_volumes.h). */
extern const uint32_t floor_attr_ioctl_deny[];
extern const size_t floor_attr_ioctl_deny_len;

/* strict: deny (EPERM) by default, allow these (the standard deny list is
 * installed as well, so clone's namespace flags stay denied). */
extern const char *const floor_strict_allow[];
extern const size_t floor_strict_allow_len;

#endif
