#include "runtime/checkpoint/checkpoint_record.h"

#include "common/caller_file.h"
#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"
#include "common/strv.h"
#include "oci/json_read.h"
#include "oci/json_write.h"
#include "runtime/checkpoint/proc_task.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORD_VERSION 1
#define RECORD_MAX_BYTES (4 << 20)

void checkpoint_record_release(struct checkpoint_record *r)
{
        free(r->id);
        free(r->profile);
        for (int i = 0; i < 3; i++)
                free(r->stdio[i]);
        strv_free_n(r->externals, r->n_externals);
        for (size_t i = 0; i < r->n_mounts; i++)
                free(r->mounts[i].point);
        free(r->mounts);
        *r = (struct checkpoint_record){ 0 };
}

int checkpoint_record_write(const char *dir, const struct checkpoint_record *r,
                            struct sb_error *err)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_jw_ struct json_writer *w = jw_new("  ", err);
        _cleanup_free_ char *text = NULL;

        if (w == NULL)
                return -1;
        jw_object_begin(w);
        jw_kv_int(w, "version", RECORD_VERSION);
        jw_kv_string(w, "id", r->id);
        jw_kv_string(w, "profile", r->profile);
        jw_kv_array_begin(w, "stdio");
        for (int i = 0; i < 3; i++)
                jw_string(w, r->stdio[i]);
        jw_array_end(w);
        jw_kv_array_begin(w, "externals");
        for (size_t i = 0; i < r->n_externals; i++)
                jw_string(w, r->externals[i]);
        jw_array_end(w);
        jw_kv_array_begin(w, "mounts");
        for (size_t i = 0; i < r->n_mounts; i++) {
                jw_object_begin(w);
                jw_kv_string(w, "point", r->mounts[i].point);
                jw_kv_string(w, "flags", mount_flags_text(r->mounts[i].flags));
                jw_object_end(w);
        }
        jw_array_end(w);
        jw_kv_bool(w, "netns_external", r->netns_external);
        jw_object_end(w);
        text = jw_to_string(w, err);
        if (text == NULL)
                return -1;
        if (asprintf(&path, "%s/%s", dir, CHECKPOINT_RECORD_NAME) < 0)
                return sb_fail(err, ENOMEM, "%s", CHECKPOINT_RECORD_NAME);
        return caller_file_replace("--image-path", path, text, strlen(text), 0600, err);
}

static char *string_member(json_val obj, const char *key)
{
        const char *s = json_string_value(json_member(obj, key));
        return s ? strdup(s) : NULL;
}

static int read_strings(json_val arr, char ***out, size_t *n)
{
        size_t len = json_array_len(arr);

        *out = calloc(len + 1, sizeof(**out));
        if (*out == NULL)
                return -1;
        for (size_t i = 0; i < len; i++) {
                const char *s = json_string_value(json_array_at(arr, i));
                if (s == NULL || ((*out)[i] = strdup(s)) == NULL)
                        return -1;
                *n = i + 1;
        }
        return 0;
}

int checkpoint_record_read(int dirfd, const char *dir_name, struct checkpoint_record *r,
                           struct sb_error *err)
{
        _cleanup_close_ int fd =
                openat(dirfd, CHECKPOINT_RECORD_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int64_t version = 0;

        *r = (struct checkpoint_record){ 0 };
        if (fd < 0)
                return sb_fail(err, errno,
                               "%s/%s: not a checkpoint sbrun made (sbrun checkpoint writes it)",
                               dir_name, CHECKPOINT_RECORD_NAME);
        if (sb_read_fd(fd, RECORD_MAX_BYTES, &text, &len, err) < 0)
                return sb_error_prefix(err, "%s/%s", dir_name, CHECKPOINT_RECORD_NAME);
        _cleanup_json_tree_ json_val doc = json_parse(text, len, err);
        if (doc == NULL)
                return sb_error_prefix(err, "%s/%s", dir_name, CHECKPOINT_RECORD_NAME);
        if (!json_integer_value(json_member(doc, "version"), &version) || version != RECORD_VERSION)
                return sb_fail(err, 0, "%s/%s: version is not %d", dir_name, CHECKPOINT_RECORD_NAME,
                               RECORD_VERSION);
        r->id = string_member(doc, "id");
        r->profile = string_member(doc, "profile");
        json_val stdio = json_member(doc, "stdio");
        for (size_t i = 0; i < 3 && i < json_array_len(stdio); i++) {
                const char *s = json_string_value(json_array_at(stdio, i));
                r->stdio[i] = s ? strdup(s) : NULL;
        }
        json_val mounts = json_member(doc, "mounts");
        r->mounts = calloc(json_array_len(mounts) + 1, sizeof(*r->mounts));
        if (r->mounts == NULL ||
            read_strings(json_member(doc, "externals"), &r->externals, &r->n_externals) < 0)
                goto bad;
        for (size_t i = 0; i < json_array_len(mounts); i++) {
                json_val m = json_array_at(mounts, i);
                const char *flags = json_string_value(json_member(m, "flags"));
                r->mounts[i].point = string_member(m, "point");
                if (r->mounts[i].point == NULL || flags == NULL)
                        goto bad;
                r->mounts[i].flags = mount_flags_parse(flags);
                r->n_mounts = i + 1;
        }
        r->netns_external = json_is_true(json_member(doc, "netns_external"));
        if (r->id == NULL || r->profile == NULL)
                goto bad;
        return 0;
bad:
        checkpoint_record_release(r);
        return sb_fail(err, 0, "%s/%s: not what sbrun checkpoint writes", dir_name,
                       CHECKPOINT_RECORD_NAME);
}
