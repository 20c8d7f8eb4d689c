/* A host user's name and home from its uid. */
#ifndef SB_USER_NAME_H
#define SB_USER_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* uid's name as the host's /etc/passwd has it (sbrun is static: no NSS)
 * into out; false when no line names it or the name does not fit. */
bool host_user_name(uid_t uid, char *out, size_t len);
/* uid's home directory from the same file; false unless it is absolute. */
bool host_user_home(uid_t uid, char *out, size_t len);

#endif
