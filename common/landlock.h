/* The Landlock system calls and the access rights sbrun uses, for the host
 * (runtime/host/landlock_host.c asks for the ABI) and for sbrun-init, which
 * builds the ruleset (runtime/init/init_landlock.c). Defined here rather
 * than taken from <linux/landlock.h>: Debian 12's kernel headers stop at
 * ABI 2 and musl's wrap none of it, while the kernel sbrun runs on may offer
 * more. The numbers are the kernel's ABI, fixed once released. */
#ifndef SB_COMMON_LANDLOCK_H
#define SB_COMMON_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* The highest ABI whose rights sbrun knows: 4 (TCP bind and connect). */
#define SB_LANDLOCK_ABI_KNOWN 4

#define SB_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define SB_LANDLOCK_RULE_PATH_BENEATH 1
#define SB_LANDLOCK_RULE_NET_PORT 2

/* ABI 1 */
#define SB_LL_FS_EXECUTE (1ULL << 0)
#define SB_LL_FS_WRITE_FILE (1ULL << 1)
#define SB_LL_FS_READ_FILE (1ULL << 2)
#define SB_LL_FS_READ_DIR (1ULL << 3)
#define SB_LL_FS_REMOVE_DIR (1ULL << 4)
#define SB_LL_FS_REMOVE_FILE (1ULL << 5)
#define SB_LL_FS_MAKE_CHAR (1ULL << 6)
#define SB_LL_FS_MAKE_DIR (1ULL << 7)
#define SB_LL_FS_MAKE_REG (1ULL << 8)
#define SB_LL_FS_MAKE_SOCK (1ULL << 9)
#define SB_LL_FS_MAKE_FIFO (1ULL << 10)
#define SB_LL_FS_MAKE_BLOCK (1ULL << 11)
#define SB_LL_FS_MAKE_SYM (1ULL << 12)
/* ABI 2: link and rename into another directory */
#define SB_LL_FS_REFER (1ULL << 13)
/* ABI 3 */
#define SB_LL_FS_TRUNCATE (1ULL << 14)
/* ABI 4 */
#define SB_LL_NET_BIND_TCP (1ULL << 0)
#define SB_LL_NET_CONNECT_TCP (1ULL << 1)

struct sb_landlock_ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net; /* ABI 4; the kernel takes the shorter struct before */
};

struct sb_landlock_path_beneath_attr {
        uint64_t allowed_access;
        int32_t parent_fd;
} __attribute__((packed));

static inline long sb_landlock_create_ruleset(const struct sb_landlock_ruleset_attr *attr,
                                              size_t size, uint32_t flags)
{
        return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline long sb_landlock_add_rule(int ruleset_fd, int rule_type, const void *attr,
                                        uint32_t flags)
{
        return syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, attr, flags);
}

static inline long sb_landlock_restrict_self(int ruleset_fd, uint32_t flags)
{
        return syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

/* The kernel's ABI version, or -1 with errno (ENOSYS: not built in;
 * EOPNOTSUPP: built in but not enabled, i.e. not in the boot's lsm= list). */
static inline int sb_landlock_abi(void)
{
        return (int)sb_landlock_create_ruleset(NULL, 0, SB_LANDLOCK_CREATE_RULESET_VERSION);
}

#endif
