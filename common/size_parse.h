/* Byte sizes, wherever sbrun reads one: a tmpfs's size= (the floor and the
 * mount translation alike), the operator policy's ceilings, `update
 * --memory 64m`. One parser, so that no caller wraps a negative or an
 * oversized value around, and so that what the floor compares against its
 * tmpfs ceiling is exactly what the runtime mounts. */
#ifndef SB_SIZE_PARSE_H
#define SB_SIZE_PARSE_H

#include <stdint.h>

/* What differs between callers; the rest is one syntax for all. */
enum size_flags {
        SIZE_ZERO = 1 << 0,        /* "0" (also "0k", ...) is a size; else refused */
        SIZE_UNLIMITED = 1 << 1,   /* exactly "-1": *out = -1 (runc's "unlimited") */
        SIZE_TERA = 1 << 2,        /* the t suffix (2^40) besides k, m, g */
        SIZE_BYTE_SUFFIX = 1 << 3, /* an optional trailing b: "512b", "64mb" */
};

/* A tmpfs's size= as the kernel reads it (mm/shmem.c, memparse): 0 is its
 * "no limit", t is known; no b. The floor and mount_options_parse both
 * read size= with these flags. */
#define SIZE_TMPFS (SIZE_ZERO | SIZE_TERA)

/* text: decimal digits, then at most one unit k, m or g (t with SIZE_TERA)
 * of 1024's powers, either case, then a "b" if SIZE_BYTE_SUFFIX; nothing
 * else: no sign (but "-1" with SIZE_UNLIMITED), no space, no fraction.
 * Returns 0 with *out set, -EINVAL if text is not such a size (or is 0
 * without SIZE_ZERO), -ERANGE if its value is past INT64_MAX bytes; *out
 * is left alone on failure. */
int size_parse(const char *text, unsigned int flags, int64_t *out);

#endif
