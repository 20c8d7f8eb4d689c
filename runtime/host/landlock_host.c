#include "runtime/host/landlock_host.h"

#include "common/landlock.h"

#include <errno.h>

void landlock_host_probe(struct landlock_host *host)
{
        int abi = sb_landlock_abi();

        host->abi = abi > 0 ? abi : 0;
        host->absent = NULL;
        if (abi > 0)
                return;
        /* A kernel built with Landlock enables it only when it is in the
         * boot's LSM list (CONFIG_LSM, or lsm= on the command line). */
        if (errno == EOPNOTSUPP)
                host->absent = "built in but not enabled: add landlock to the kernel's lsm= list";
        else if (errno == ENOSYS)
                host->absent = "not built into this kernel (CONFIG_SECURITY_LANDLOCK)";
        else
                host->absent = "landlock_create_ruleset refused the version query";
}
