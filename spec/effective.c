#include "spec/effective.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int add_readonly_path(struct oci_linux *linux_, const char *path, struct sb_error *err)
{
        for (size_t i = 0; i < linux_->n_readonly_paths; i++) {
                if (strcmp(linux_->readonly_paths[i], path) == 0)
                        return 0;
        }
        char **grown = realloc(linux_->readonly_paths,
                               (linux_->n_readonly_paths + 2) * sizeof(char *));
        if (grown == NULL)
                return sb_fail(err, ENOMEM, "linux.readonlyPaths");
        linux_->readonly_paths = grown;
        grown[linux_->n_readonly_paths] = strdup(path);
        if (grown[linux_->n_readonly_paths] == NULL)
                return sb_fail(err, ENOMEM, "linux.readonlyPaths");
        linux_->n_readonly_paths++;
        grown[linux_->n_readonly_paths] = NULL;
        return 0;
}

int effective_spec_apply(struct oci_config *config, struct sb_error *err)
{
        struct oci_process *process = config->process;

        /* bwrap always sets PR_SET_NO_NEW_PRIVS (DESIGN.md fact 5). */
        if (process != NULL && process->has_no_new_privileges && !process->no_new_privileges)
                sb_warn("process.noNewPrivileges: requested false, effective true "
                        "(rule: bubblewrap always sets no_new_privs)");
        if (process != NULL)
                process->no_new_privileges = true;

        /* bwrap leaves /proc/sys writable (fact 2); runc's default makes it
         * read-only, and no container should write the host's sysctls. */
        if (config->linux_ == NULL) {
                config->linux_ = calloc(1, sizeof(*config->linux_));
                if (config->linux_ == NULL)
                        return sb_fail(err, ENOMEM, "linux");
        }
        return add_readonly_path(config->linux_, "/proc/sys", err);
}
