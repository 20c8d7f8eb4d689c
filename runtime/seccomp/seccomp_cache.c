#include "runtime/seccomp/seccomp_cache.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "common/fs_util.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "SBSECBPF"
#define FORMAT_VERSION 1
#define MAX_KEY_LEN (16u << 20)
#define MAX_BPF_LEN ((size_t)BPF_MAXINSNS * sizeof(struct sock_filter))

/* On disk: this header, the key, then the program. */
struct entry_header {
        char magic[8];
        uint32_t version;
        uint32_t reserved;
        uint64_t key_len;
        uint64_t bpf_len;
        uint64_t checksum; /* FNV-1a 64 over key and program */
};

/* FNV-1a: the file name only spreads keys (a collision is caught by the
 * full key compare), the checksum only catches damage (the directory is
 * root's alone). Neither needs a cryptographic hash. */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
        }
        return h;
}

#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t entry_checksum(const uint8_t *key, size_t key_len, const uint8_t *bpf,
                               size_t bpf_len)
{
        return fnv1a(fnv1a(FNV_BASIS, key, key_len), bpf, bpf_len);
}

/* A cached program is loaded into every container that asks for the same
 * profile: only a directory that nobody but us can write may hold one. */
static bool safe_owner(const struct stat *st)
{
        return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

static int open_cache_dir(const char *state_root)
{
        _cleanup_close_ int root = open(state_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;

        if (root < 0) {
                /* No state root yet (first container): it is made later. */
                sb_debug("seccomp: cache unavailable: %s: %s", state_root, strerror(errno));
                return -1;
        }
        if (mkdirat(root, SECCOMP_CACHE_DIR, 0700) < 0 && errno != EEXIST) {
                sb_debug("seccomp: cache unavailable: mkdir %s/%s: %s", state_root,
                         SECCOMP_CACHE_DIR, strerror(errno));
                return -1;
        }
        _cleanup_close_ int dir =
                openat(root, SECCOMP_CACHE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0 || fstat(dir, &st) < 0 || !safe_owner(&st)) {
                sb_debug("seccomp: cache unavailable: %s/%s is not a private directory", state_root,
                         SECCOMP_CACHE_DIR);
                return -1;
        }
        return SB_STEAL_FD(dir);
}

static int invalid(const char **why, const char *reason)
{
        *why = reason;
        return -1;
}

/* 0 with the program, -1 on a miss; `why` says what was wrong with an entry
 * that exists. */
static int read_entry(int dir, const char *name, const uint8_t *key, size_t key_len, uint8_t **bpf,
                      size_t *size, const char **why)
{
        _cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        _cleanup_free_ uint8_t *buf = NULL;
        struct entry_header h;
        struct stat st;

        *why = NULL;
        if (fd < 0)
                return -1;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !safe_owner(&st))
                return invalid(why, "not a private regular file");
        if ((size_t)st.st_size < sizeof(h) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
                return invalid(why, "truncated header");
        if (memcmp(h.magic, MAGIC, sizeof(h.magic)) != 0 || h.version != FORMAT_VERSION)
                return invalid(why, "unknown format");
        if (h.key_len != key_len || h.key_len > MAX_KEY_LEN || h.bpf_len == 0 ||
            h.bpf_len > MAX_BPF_LEN || h.bpf_len % sizeof(struct sock_filter) != 0)
                return invalid(why, "bad lengths");
        if ((uint64_t)st.st_size != sizeof(h) + h.key_len + h.bpf_len)
                return invalid(why, "size does not match its header");
        size_t len = (size_t)(h.key_len + h.bpf_len);
        buf = malloc(len);
        if (buf == NULL || pread(fd, buf, len, sizeof(h)) != (ssize_t)len)
                return invalid(why, "short read");
        if (entry_checksum(buf, key_len, buf + key_len, (size_t)h.bpf_len) != h.checksum)
                return invalid(why, "checksum mismatch");
        if (memcmp(buf, key, key_len) != 0)
                return invalid(why, "another profile with the same hash");
        *bpf = malloc((size_t)h.bpf_len);
        if (*bpf == NULL)
                return invalid(why, "out of memory");
        memcpy(*bpf, buf + key_len, (size_t)h.bpf_len);
        *size = (size_t)h.bpf_len;
        return 0;
}

/* The entry is written into an unnamed file (O_TMPFILE) and linked under
 * its name only when whole: a create killed half-way leaves nothing in the
 * cache, and readers see a whole entry or none. Concurrent creates with
 * the same profile write the same bytes; the first link wins (EEXIST is
 * fine). A file system without O_TMPFILE gets a temporary name and a
 * rename, which a crash can leave behind (harmless: never read). */
static int write_entry(int dir, const char *name, const uint8_t *key, size_t key_len,
                       const uint8_t *bpf, size_t size, struct sb_error *err)
{
        struct entry_header h = {
                .version = FORMAT_VERSION,
                .key_len = key_len,
                .bpf_len = size,
                .checksum = entry_checksum(key, key_len, bpf, size),
        };
        char tmp[128];
        _cleanup_close_ int fd = -1;
        bool unnamed = true;

        memcpy(h.magic, MAGIC, sizeof(h.magic));
        snprintf(tmp, sizeof(tmp), ".tmp.%d.%s", (int)getpid(), name);
        fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
                unnamed = false;
                fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        }
        if (fd < 0)
                return sb_fail(err, errno, "create %s", unnamed ? "cache entry" : tmp);
        if (sb_write_all(fd, &h, sizeof(h)) < 0 || sb_write_all(fd, key, key_len) < 0 ||
            sb_write_all(fd, bpf, size) < 0) {
                int saved = errno;
                if (!unnamed)
                        unlinkat(dir, tmp, 0);
                return sb_fail(err, saved, "write %s", name);
        }
        SB_FAULT_POINT("seccomp-cache.before-publish");
        if (unnamed) {
                char proc[64];
                snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
                /* An invalid entry of that name was read before we built
                 * this one: replace it. */
                unlinkat(dir, name, 0);
                if (linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) < 0 && errno != EEXIST)
                        return sb_fail(err, errno, "link %s", name);
                return 0;
        }
        if (renameat(dir, tmp, dir, name) < 0) {
                int saved = errno;
                unlinkat(dir, tmp, 0);
                return sb_fail(err, saved, "write %s", name);
        }
        return 0;
}

int seccomp_cache_get(const char *state_root, const uint8_t *key, size_t key_len,
                      seccomp_build_fn build, void *data, uint8_t **bpf, size_t *size,
                      struct sb_error *err)
{
        _cleanup_close_ int dir = open_cache_dir(state_root);
        char name[64];
        const char *why = NULL;

        snprintf(name, sizeof(name), "%016llx.bpf",
                 (unsigned long long)fnv1a(FNV_BASIS, key, key_len));
        if (dir >= 0) {
                if (read_entry(dir, name, key, key_len, bpf, size, &why) == 0) {
                        sb_debug("seccomp: cache hit %s/%s/%s", state_root, SECCOMP_CACHE_DIR,
                                 name);
                        return 0;
                }
                if (why != NULL)
                        sb_debug("seccomp: cache entry %s is invalid (%s), rebuilding", name, why);
        }
        if (build(data, bpf, size, err) < 0)
                return -1;
        sb_debug("seccomp: compiled %s (%zu instructions)", name,
                 *size / sizeof(struct sock_filter));
        if (dir >= 0) {
                struct sb_error werr = { 0 };
                if (write_entry(dir, name, key, key_len, *bpf, *size, &werr) < 0) {
                        _cleanup_free_ char *text = sb_error_text(&werr);
                        sb_debug("seccomp: cache not written: %s", text ? text : "error");
                        sb_error_clear(&werr);
                }
        }
        return 0;
}
