/* The linux.resources values no cgroup can carry out, or that sbrun keeps
 * for itself: refused before anything exists, by create (the floor's
 * resources concern), by `policy explain` (the same concern, recorded as
 * refused) and by `update` (its --resources and flags), with the field and
 * the value named. runtime/cgroup/cgroup_resources.c then converts only
 * what passed. */
#ifndef SB_SPEC_FLOOR_RESOURCES_H
#define SB_SPEC_FLOOR_RESOURCES_H

struct floor_report;
struct oci_resources;
struct sb_error;

/* prefix names res in messages: "linux.resources", "--resources". In
 * explain mode every refusal is recorded and 0 returned (floor_refuse). */
int floor_resources_check(const struct oci_resources *res, const char *prefix,
                          struct floor_report *report, struct sb_error *err);

#endif
