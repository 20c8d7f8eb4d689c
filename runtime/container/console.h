/* The host side of terminals: the console socket (runc's protocol: the pty
 * master arrives as SCM_RIGHTS on a unix socket the engine listens on). */
#ifndef SB_CONSOLE_H
#define SB_CONSOLE_H

struct sb_error;

/* Connect to the engine's --console-socket. */
int console_socket_connect(const char *path, struct sb_error *err);

/* For a foreground `run -t`/`exec -t` with no console socket: a socket pair;
 * *ours receives the master, *theirs goes to the init. */
int console_socket_pair(int *ours, int *theirs, struct sb_error *err);

/* Receive the pty master sent on sock. */
int console_receive_master(int sock, struct sb_error *err);

#endif
