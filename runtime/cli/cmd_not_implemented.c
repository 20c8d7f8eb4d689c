/* Commands of runc's command line that sbrun does not carry out yet: they
 * fail loudly instead of pretending. */
#include "common/error.h"

#include "runtime/cli/commands.h"

int cmd_not_implemented(const struct global_options *global, int argc, char **argv,
                        struct sb_error *err)
{
        sb_fail(err, 0, "%s: not implemented yet in this version of sbrun", argv[0]);
        return 1;
}
