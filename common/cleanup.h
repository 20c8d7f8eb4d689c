/* Scope-bound release of resources, so that every early return is leak-free. */
#ifndef SB_CLEANUP_H
#define SB_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void sb_freep(void *p)
{
        free(*(void **)p);
}

static inline void sb_closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void sb_fclosep(FILE **f)
{
        if (*f != NULL)
                fclose(*f);
}

static inline void sb_closedirp(DIR **d)
{
        if (*d != NULL)
                closedir(*d);
}

static inline void sb_strvfreep(char ***v)
{
        if (*v == NULL)
                return;
        for (char **p = *v; *p != NULL; p++)
                free(*p);
        free(*v);
}

#define _cleanup_free_ __attribute__((cleanup(sb_freep)))
#define _cleanup_close_ __attribute__((cleanup(sb_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(sb_fclosep)))
#define _cleanup_closedir_ __attribute__((cleanup(sb_closedirp)))
#define _cleanup_strv_ __attribute__((cleanup(sb_strvfreep)))

/* Hand ownership out of a cleanup-guarded variable. */
#define SB_STEAL_PTR(p)                   \
        ({                                \
                __typeof__(p) _tmp = (p); \
                (p) = NULL;               \
                _tmp;                     \
        })
#define SB_STEAL_FD(fd)          \
        ({                       \
                int _tmp = (fd); \
                (fd) = -1;       \
                _tmp;            \
        })

#endif
