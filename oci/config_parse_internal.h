/* Shared between the config_parse*.c files and config_free.c; not for
 * other layers. Each parser fills a zeroed structure in place and leaves
 * it freeable on error (counts are set when arrays are allocated). */
#ifndef SB_OCI_CONFIG_PARSE_INTERNAL_H
#define SB_OCI_CONFIG_PARSE_INTERNAL_H

#include "oci/config.h"
#include "oci/json_read.h"

#include <stdbool.h>
#include <yajl/yajl_tree.h>

int oci_namespace_type_from_name(const char *name);

int oci_parse_process_obj(yajl_val v, struct jpath *p, struct oci_process *out,
                          struct sb_error *err);
int oci_parse_linux_obj(yajl_val v, struct jpath *p, struct oci_linux *out, struct sb_error *err);
int oci_parse_resources_obj(yajl_val v, struct jpath *p, struct oci_resources *out,
                            struct sb_error *err);
/* uidMappings / gidMappings member of obj (linux or a mount). */
int oci_parse_idmaps(yajl_val obj, const char *key, struct jpath *p, struct oci_idmap **out,
                     size_t *n, struct sb_error *err);
bool oci_is_absolute_path(const char *s);
/* "<path>: \"x\" is not an absolute path" unless s starts with '/'. */
int oci_check_absolute(const char *s, struct jpath *p, const char *key, struct sb_error *err);
/* "<path>: unknown <what> \"x\"" unless value is in the NULL-terminated list;
 * the _member form first appends ".key" and accepts a NULL value. */
int oci_check_known(const char *value, const char *const *known, struct jpath *p, const char *what,
                    struct sb_error *err);
int oci_check_known_member(const char *value, const char *const *known, struct jpath *p,
                           const char *key, const char *what, struct sb_error *err);
/* Calls fn for each element of array member `key`, with the path at key[i]. */
int oci_each_element(yajl_val obj, const char *key, struct jpath *p, void *items, size_t item_size,
                     size_t *n,
                     int (*fn)(yajl_val v, struct jpath *p, void *item, struct sb_error *err),
                     struct sb_error *err);

void oci_linux_free(struct oci_linux *linux_);
void oci_resources_free(struct oci_resources *resources);

#endif
