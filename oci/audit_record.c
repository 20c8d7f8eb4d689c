#include "oci/audit_record.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/json_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_val obj, const char *key)
{
        json_val v = json_member(obj, key);
        return v != NULL ? json_string_value(v) : NULL;
}

static char *dup_or_null(const char *s)
{
        return s ? strdup(s) : NULL;
}

static void put(char *buf, size_t size, size_t *used, const char *text)
{
        int n = snprintf(buf + *used, size - *used, "%s%s", *used ? " " : "", text);

        if (n > 0)
                *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

static void put_number(char *buf, size_t size, size_t *used, const char *label, json_val v)
{
        char text[96];
        const char *n = v != NULL ? json_number_text(v) : NULL;

        if (n == NULL)
                return;
        snprintf(text, sizeof(text), "%s=%s", label, n);
        put(buf, size, used, text);
}

/* "standard ok 2 changes", "echo hi", "signal=9", "oom exit_code=137". */
static char *detail(json_val root, const char *event)
{
        char buf[512] = "";
        size_t used = 0;
        json_val v;

        if (event == NULL)
                return strdup("");
        if (str(root, "profile") != NULL)
                put(buf, sizeof(buf), &used, str(root, "profile"));
        if (strcmp(event, "exec") == 0 && json_is_array(v = json_member(root, "args"))) {
                for (size_t i = 0; i < json_array_len(v); i++) {
                        const char *a = json_string_value(json_array_at(v, i));
                        put(buf, sizeof(buf), &used, a ? a : "?");
                }
        }
        if (strcmp(event, "kill") == 0)
                put_number(buf, sizeof(buf), &used, "signal", json_member(root, "signal"));
        if (strcmp(event, "checkpoint") == 0 && str(root, "image_path") != NULL)
                put(buf, sizeof(buf), &used, str(root, "image_path"));
        if (str(root, "status") != NULL)
                put(buf, sizeof(buf), &used, str(root, "status"));
        if (str(root, "verdict") != NULL)
                put(buf, sizeof(buf), &used, str(root, "verdict"));
        if (strcmp(event, "verdict") == 0)
                put_number(buf, sizeof(buf), &used, "exit_code", json_member(root, "exit_code"));
        if (strcmp(event, "verdict") == 0 && str(root, "stream") != NULL) {
                put(buf, sizeof(buf), &used, str(root, "stream"));
                put_number(buf, sizeof(buf), &used, "bytes", json_member(root, "bytes"));
        }
        for (size_t i = 0; json_is_array(v = json_member(root, "full")) && i < json_array_len(v);
             i++) {
                json_val use = json_array_at(v, i);
                char text[300];
                snprintf(text, sizeof(text), "full=%s(%s)",
                         str(use, "path") ? str(use, "path") : "?",
                         json_is_true(json_member(use, "inodes")) ? "inodes" : "space");
                put(buf, sizeof(buf), &used, text);
        }
        if (json_is_array(v = json_member(root, "changes")) && json_array_len(v) > 0) {
                char text[48];
                snprintf(text, sizeof(text), "changes=%zu", json_array_len(v));
                put(buf, sizeof(buf), &used, text);
        }
        if (json_is_false(json_member(root, "ok")))
                put(buf, sizeof(buf), &used, "FAILED:");
        if (str(root, "error") != NULL)
                put(buf, sizeof(buf), &used, str(root, "error"));
        return strdup(buf);
}

struct audit_record *audit_record_parse(const char *line, size_t len, struct sb_error *err)
{
        _cleanup_json_tree_ json_val root = json_parse(line, len, err);
        struct audit_record *r;
        json_val caller;
        int64_t uid;

        if (root == NULL)
                return NULL;
        if (!json_is_object(root))
                return sb_fail(err, 0, "expected a JSON object"), NULL;
        r = calloc(1, sizeof(*r));
        if (r == NULL)
                return sb_fail(err, ENOMEM, "audit record"), NULL;
        caller = json_member(root, "caller");
        r->time = dup_or_null(str(root, "time"));
        r->event = dup_or_null(str(root, "event"));
        r->id = dup_or_null(str(root, "id"));
        r->parent = caller ? dup_or_null(str(caller, "parent")) : NULL;
        r->uid = caller && json_integer_value(json_member(caller, "uid"), &uid) ? uid : -1;
        r->detail = detail(root, r->event);
        if (r->detail == NULL) {
                audit_record_free(r);
                return sb_fail(err, ENOMEM, "audit record"), NULL;
        }
        return r;
}

void audit_record_free(struct audit_record *r)
{
        if (r == NULL)
                return;
        free(r->time);
        free(r->event);
        free(r->id);
        free(r->parent);
        free(r->detail);
        free(r);
}
