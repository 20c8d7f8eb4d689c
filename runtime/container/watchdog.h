/* The wall-clock limit of a container that no foreground `sbrun run`
 * waits for (create + start by an engine, `run -d`), and the backstop of
 * one that does (the `run` itself may be killed).
 *
 * A small process, double-forked and in a session of its own so that no
 * engine or terminal signal reaches it, with stdio on /dev/null (it must
 * hold nothing the container's readers wait on) and every other fd closed
 * except a pidfd of the container process. It sleeps until the deadline,
 * counted from create, then kills the whole container and records the
 * verdict "timeout" in the state and the audit trail. It exits as soon as the container
 * process exits (the pidfd polls readable), so it never outlives the
 * container, and `delete`, which kills the container, ends it too. */
#ifndef SB_WATCHDOG_H
#define SB_WATCHDOG_H

struct sb_error;

struct global_options;
int watchdog_spawn(const struct global_options *global, const char *id, int pid,
                   const char *cgroup_path, int seconds, struct sb_error *err);

#endif
