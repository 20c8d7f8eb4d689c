/* Running criu(8), the program that checkpoints and restores a process
 * tree, through its command line: `sbrun checkpoint` and `sbrun restore`
 * build the arguments (checkpoint_container.c, restore_spawn.c) and this
 * file runs it and turns a failure into one error that names CRIU's own
 * first error line and where its log is. */
#ifndef SB_CRIU_RUN_H
#define SB_CRIU_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strv.h"

struct sb_error;

#define CRIU_MAX_KEEP 16

struct criu_call {
        const char *program;     /* --criu PATH, else "criu" from PATH (as runc) */
        struct strv argv;        /* after the program's name: the action and options */
        int keep[CRIU_MAX_KEEP]; /* fds criu inherits at their numbers */
        size_t n_keep;
        /* restore: set on criu itself, so every task it forks for the
         * restored tree has it (CRIU before 3.19 does not restore it). */
        bool no_new_privs;
        const char *log_path; /* the -o log as sbrun can read it, for the error */
        /* The cgroup2 mount ("/sys/fs/cgroup"): CRIU is handed a bind of it
         * as its cgroup yard instead of mounting cgroup2 itself, which
         * would clear the hierarchy's nsdelegate for the whole host (a
         * mount of cgroup2 in the initial cgroup namespace sets its
         * flags); NULL without a cgroup. */
        const char *cgroup_mount;
        const char *yard_dir; /* where the yard is made: a directory of sbrun's own */
};

/* --image-path or --work-path DIR: a directory; a symlink in its last
 * component only when the link and its directory are the caller's alone. */
int criu_dir_check(const char *option, const char *path, struct sb_error *err);

/* The same, made first if missing (0700, as runc). */
int criu_dir_prepare(const char *option, const char *path, struct sb_error *err);

/* The program to run: --criu, else "criu". */
const char *criu_program(const char *option);

/* Run it and wait; 0 when it exited 0. */
int criu_call_run(struct criu_call *c, const char *what, struct sb_error *err);

/* What `criu --version` says ("3.17.1"); NULL when it cannot be run. Caller frees. */
char *criu_version(const char *program);

/* `criu check`: 0 when it passes, else -1 with its first error line in err. */
int criu_check(const char *program, struct sb_error *err);

#endif
