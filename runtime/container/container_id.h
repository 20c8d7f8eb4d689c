#ifndef SB_CONTAINER_ID_H
#define SB_CONTAINER_ID_H

struct sb_error;

/* The longest ID: the ID names the state directory ROOT/ID and, with
 * --systemd-cgroup and no cgroupsPath, the unit "sbrun-ID.scope", whose
 * cgroup directory has the same name; a file name and a unit name hold at
 * most 255 bytes. runc has no limit of its own and fails later, at the
 * first name that does not fit. */
#define CONTAINER_ID_MAX (255 - sizeof("sbrun-") + 1 - sizeof(".scope") + 1)

/* [A-Za-z0-9][A-Za-z0-9_+.-]*, at most CONTAINER_ID_MAX bytes: runc's
 * ^[\w+-.]+$ less a leading _+-. (a leading "-" reads as an option, a
 * leading "." hides the state directory, "." and ".." are not directories
 * of their own) and the "," that runc's range +-. lets in. The error says
 * which rule the ID breaks. */
int container_id_validate(const char *id, struct sb_error *err);

#endif
