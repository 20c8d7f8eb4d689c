#include "hooks/hooks.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "oci/state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_names[] = {
        [HOOK_PRESTART] = "prestart",
        [HOOK_CREATE_RUNTIME] = "createRuntime",
        [HOOK_CREATE_CONTAINER] = "createContainer",
        [HOOK_START_CONTAINER] = "startContainer",
        [HOOK_POSTSTART] = "poststart",
        [HOOK_POSTSTOP] = "poststop",
};

/* The status the state on a hook's stdin has at that hook's moment. */
static const char *const kind_status[] = {
        [HOOK_PRESTART] = "created",          [HOOK_CREATE_RUNTIME] = "creating",
        [HOOK_CREATE_CONTAINER] = "creating", [HOOK_START_CONTAINER] = "created",
        [HOOK_POSTSTART] = "running",         [HOOK_POSTSTOP] = "stopped",
};

const char *hook_kind_name(enum hook_kind kind)
{
        return kind_names[kind];
}

const struct oci_hook_list *hook_list(const struct oci_hooks *hooks, enum hook_kind kind)
{
        switch (kind) {
        case HOOK_PRESTART:
                return &hooks->prestart;
        case HOOK_CREATE_RUNTIME:
                return &hooks->create_runtime;
        case HOOK_CREATE_CONTAINER:
                return &hooks->create_container;
        case HOOK_START_CONTAINER:
                return &hooks->start_container;
        case HOOK_POSTSTART:
                return &hooks->poststart;
        case HOOK_POSTSTOP:
                return &hooks->poststop;
        }
        return NULL;
}

/* Only poststop is a warning: runtime-spec 1.3 fails the operation on a
 * poststart failure too (its caller stops the container). */
static bool fails_operation(enum hook_kind kind)
{
        return kind != HOOK_POSTSTOP;
}

/* Hook output goes to the log (or sbrun's stderr without one), never into
 * the container's stdio. */
static void log_output(enum hook_kind kind, size_t index, const char *path, const char *output)
{
        if (output == NULL || *output == '\0')
                return;
        if (sb_log_has_file())
                sb_log(SB_LOG_INFO, "hooks.%s[%zu] %s: %s", kind_names[kind], index, path, output);
        else
                fprintf(stderr, "sbrun: hooks.%s[%zu] %s: %s\n", kind_names[kind], index, path,
                        output);
}

static int run_one(const struct oci_hook *hook, enum hook_kind kind, size_t index,
                   const char *state_json, hook_prepare_fn prepare, void *data,
                   struct sb_error *err)
{
        struct hook_spec spec = {
                .path = hook->path,
                .args = hook->args,
                .env = hook->env,
                .timeout = hook->has_timeout ? hook->timeout : 0,
        };
        _cleanup_free_ char *output = NULL;
        _cleanup_close_ int exec_fd = -1;

        if (kind == HOOK_CREATE_CONTAINER) {
                /* Its path is resolved in the runtime's namespace, before the
                 * child enters the container's. Not O_CLOEXEC: a script's
                 * interpreter reads it through /dev/fd. */
                exec_fd = open(hook->path, O_PATH);
                if (exec_fd < 0)
                        return sb_fail(err, errno, "hooks.%s[%zu]: %s", kind_names[kind], index,
                                       hook->path);
        }
        int r = hook_exec(&spec, state_json, exec_fd, prepare, data, &output, err);
        log_output(kind, index, hook->path, output);
        if (r < 0) {
                if (output != NULL && *output)
                        sb_error_prefix(err, "hooks.%s[%zu] (output: %s)", kind_names[kind], index,
                                        output);
                else
                        sb_error_prefix(err, "hooks.%s[%zu]", kind_names[kind], index);
        }
        return r;
}

int hooks_run(const struct oci_hooks *hooks, enum hook_kind kind, const struct oci_state *state,
              hook_prepare_fn prepare, void *data, struct sb_error *err)
{
        const struct oci_hook_list *list = hook_list(hooks, kind);
        _cleanup_free_ char *json = NULL;
        struct oci_state copy;

        if (list == NULL || list->n == 0)
                return 0;
        copy = *state;
        copy.status = (char *)kind_status[kind];
        json = oci_state_to_json(&copy, false, err);
        if (json == NULL)
                return -1;
        for (size_t i = 0; i < list->n; i++) {
                struct sb_error one = { 0 };
                if (run_one(&list->hooks[i], kind, i, json, prepare, data, &one) == 0)
                        continue;
                if (fails_operation(kind)) {
                        *err = one;
                        return -1;
                }
                char *text = sb_error_text(&one);
                sb_warn("%s", text ? text : "hook failed");
                free(text);
                sb_error_clear(&one);
        }
        return 0;
}
