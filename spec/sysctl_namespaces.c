#include "spec/sysctl_namespaces.h"

#include <string.h>

/* The IPC namespace's sysctls, as the kernel's ipc/ipc_sysctl.c and
 * ipc/mq_sysctl.c (fs.mqueue.*) list them. */
static const char *const ipc_sysctls[] = {
        "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni",          "kernel.sem", "kernel.shmall",
        "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced", NULL,
};

bool sysctl_namespace(const char *key, enum oci_namespace_type *type)
{
        if (key[0] == '\0' || strchr(key, '/') != NULL || strstr(key, "..") != NULL)
                return false;
        for (const char *const *p = ipc_sysctls; *p != NULL; p++) {
                if (strcmp(key, *p) == 0) {
                        *type = OCI_NS_IPC;
                        return true;
                }
        }
        if (strncmp(key, "fs.mqueue.", 10) == 0) {
                *type = OCI_NS_IPC;
                return true;
        }
        if (strncmp(key, "net.", 4) == 0) {
                *type = OCI_NS_NETWORK;
                return true;
        }
        if (strcmp(key, "kernel.hostname") == 0 || strcmp(key, "kernel.domainname") == 0) {
                *type = OCI_NS_UTS;
                return true;
        }
        return false;
}
