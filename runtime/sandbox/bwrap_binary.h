/* The bwrap program sbrun executes: its path, fixed by configure
 * (--with-bwrap), and the check that it is fit to run as root before
 * anything of a container exists (docs/design.md#the-bwrap-binary). */
#ifndef SB_BWRAP_BINARY_H
#define SB_BWRAP_BINARY_H

#include <stddef.h>
#include <sys/types.h>

struct sb_error;

/* SBRUN_BWRAP_PATH of config.h. It is a variable, defined alone in
 * runtime/sandbox/bwrap_path.c, so that the test suite can link a second
 * sbrun against a bwrap path it controls (tests/bwrap_path_fixture.c)
 * without a hook in the installed program. */
extern const char sbrun_bwrap_path[];

/* Fails unless path names a regular ELF file that root owns, that some
 * execute bit allows, that neither group nor others may write, and whose
 * every directory only root can change (or is sticky, as /tmp): anyone else
 * who could replace it would run as root outside every container. Reads
 * the file's first bytes; runs nothing. The message names the path and
 * what is wrong:
 * "bwrap /x/bwrap: writable by group or others (mode 0775)".
 * host_root: the uid the host's root shows as to the caller (the overflow
 * uid in rootless podman's user namespace; runtime/host/rootless.h). */
int bwrap_binary_check(const char *path, uid_t host_root, struct sb_error *err);

/* `bwrap --version` of path, run with an empty environment and stdin on
 * /dev/null; *version is its first line ("bubblewrap 0.8.0", caller frees).
 * Only for `sbrun check` and `sbrun --version`, after bwrap_binary_check:
 * create never runs bwrap before it must. */
int bwrap_binary_version(const char *path, char **version, struct sb_error *err);

#endif
