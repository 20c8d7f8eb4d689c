/* What a held object is (struct floor_identity, spec/floor_trees.h): its
 * device and inode, its canonical path, and its path inside its file
 * system, read from the mount it lies on (/proc/self/mountinfo) so that
 * two mounts of one tree give the same answer. */
#ifndef SB_PATH_IDENTITY_H
#define SB_PATH_IDENTITY_H

#include "spec/floor_trees.h"

struct sb_error;

/* Of the object fd holds (O_PATH will do). Fails, naming nothing (the
 * caller adds the field), where it cannot be told: a deleted file, a mount
 * of another mount namespace (a /proc/PID/root of another container). */
int path_identity_of_fd(int fd, struct floor_identity *id, struct sb_error *err);

/* Every mount strictly below the directory id is (this mount namespace's
 * /proc/self/mountinfo), each with the identity of its root: its device
 * and inode (of the mount point as mounted), its path here and its
 * mount's root in its file system. Fails only on ENOMEM. */
int path_identity_submounts(const struct floor_identity *id, struct floor_identity_list *out,
                            struct sb_error *err);

/* Open each tree's path and fill its identity; a path that is not there
 * is judged by its spelling alone (id.known false). Fails only on ENOMEM. */
int path_identity_trees(struct floor_tree *trees, size_t n, struct sb_error *err);

/* The id of the mount fd lies on (/proc/self/fdinfo's mnt_id, every
 * kernel since 3.15, O_PATH fds included); -1 with errno. */
int path_identity_mount_id(int fd, long *mnt_id);

/* mountinfo's octal escapes (\040 for a space, ...) undone in place. */
void path_identity_unescape(char *s);

#endif
