/* Compiled seccomp programs, kept as raw BPF in the state root
 * (<root>/.seccomp-cache/<hash>.bpf), so that containers with the same
 * profile do not run libseccomp again. An entry carries its whole key and a
 * checksum: a hash collision, a truncated write or a flipped bit is a miss
 * (the entry is rebuilt), never a wrong filter. */
#ifndef SB_SECCOMP_CACHE_H
#define SB_SECCOMP_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct sb_error;

#define SECCOMP_CACHE_DIR ".seccomp-cache"

/* Makes the program on a miss; *bpf is malloc'd. */
typedef int (*seccomp_build_fn)(void *data, uint8_t **bpf, size_t *size, struct sb_error *err);

/* The program for key, from the cache or from build() (then stored). The
 * cache is an optimisation: failing to read or write it is logged at debug
 * level and never fails the call; only build() can. */
int seccomp_cache_get(const char *state_root, const uint8_t *key, size_t key_len,
                      seccomp_build_fn build, void *data, uint8_t **bpf, size_t *size,
                      struct sb_error *err);

#endif
