/* SCMP_ACT_NOTIFY, host side. The listener fd exists only in the process
 * that loads the filter (sbrun-init, just before execve), so create hands the
 * init what it needs to deliver it: a socket connected to listenerPath and
 * the container process state (runtime-spec config-linux.md), sent over a
 * socketpair whose other end crosses bwrap like the launcher's fds. The init
 * sends the state with the listener fd (SCM_RIGHTS) in one message, as runc. */
#ifndef SB_SECCOMP_NOTIFY_H
#define SB_SECCOMP_NOTIFY_H

struct sb_error;
struct oci_state;

/* A stream socket connected to path (O_CLOEXEC). */
int seccomp_notify_connect(const char *listener_path, struct sb_error *err);

/* {"ociVersion","fds":["seccompFd"],"pid","metadata","state":{…}}; caller frees. */
char *seccomp_notify_state_json(const struct oci_state *state, const char *metadata,
                                struct sb_error *err);

/* One SOCK_SEQPACKET message on channel: the state JSON, with listener_sock
 * attached (SCM_RIGHTS). */
int seccomp_notify_hand_over(int channel, int listener_sock, const char *state_json,
                             struct sb_error *err);

#endif
