/* tmpcopyup: a fresh tmpfs gets a copy of what the image had at its mount
 * point, as runc and crun do (podman sends it for every tmpfs it adds, e.g.
 * with --read-only). */
#ifndef SB_INIT_COPYUP_H
#define SB_INIT_COPYUP_H

struct sb_error;

/* Copy the tree of src_dir (a directory of the image, opened by sbrun on
 * the host before bwrap covered it) into dst_dir (the new tmpfs): files,
 * directories, symlinks, device nodes and fifos, with their modes, owners,
 * times and extended attributes. Nothing is followed: symlinks are copied
 * as links, and every open below src_dir stays beneath it on its own file
 * system. An entry the tmpfs already has (a later mount's mount point) is
 * kept; a directory is merged into. */
int init_copyup(int src_dir, int dst_dir, const char *what, struct sb_error *err);

#endif
