#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/cli.h"
#include "runtime/commands.h"
#include "runtime/container_status.h"
#include "runtime/state_dir.h"
#include "runtime/verdict.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_state(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_free_ char *json = NULL;
        struct oci_state *state;
        const char *id = NULL;
        int opt;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
                if (opt == 'h') {
                        printf("usage: sbrun state ID\n");
                        return 0;
                }
                return sb_fail(err, 0, "state: unknown option \"%s\"", argv[optind - 1]), 1;
        }
        if (cli_require_id("state", argc, argv, optind, &id, err) < 0)
                return 1;
        if (state_dir_open(global->root, id, &sd, err) < 0)
                return 1;
        state = state_dir_load(&sd, err);
        if (state == NULL)
                return 1;
        free(state->status);
        state->status = strdup(container_status(state));
        if (state->status == NULL ||
            (strcmp(state->status, "stopped") == 0 && verdict_annotate_oom(state) < 0)) {
                oci_state_free(state);
                return sb_fail(err, ENOMEM, "state"), 1;
        }
        json = oci_state_to_json(state, true, err);
        oci_state_free(state);
        if (json == NULL)
                return 1;
        printf("%s\n", json);
        return 0;
}
