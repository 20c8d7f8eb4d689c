/* linux.seccomp from config.json to the init plan: compiled (or taken from
 * the cache) early in create, before anything exists that a bad profile
 * would have to undo; appended to the plan's programs after plan_build; and,
 * for SCMP_ACT_NOTIFY, the listener hand-over once the pid is known. */
#ifndef SB_SECCOMP_SETUP_H
#define SB_SECCOMP_SETUP_H

#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct oci_config;
struct init_plan;

struct seccomp_setup {
        const struct oci_seccomp *profile; /* NULL: no linux.seccomp */
        uint8_t *bpf;
        size_t size;
        uint32_t load_flags; /* SECCOMP_FILTER_FLAG_* for seccomp(2) */
        int listener;        /* connected to listenerPath; -1 */
        int channel;         /* create's end of the socketpair to the init; -1 */
};

void seccomp_setup_init(struct seccomp_setup *s);
void seccomp_setup_release(struct seccomp_setup *s);

/* Compile or load from <state_root>/.seccomp-cache; check the flags. */
int seccomp_setup_prepare(const struct oci_config *config, const char *state_root,
                          struct seccomp_setup *s, struct sb_error *err);

/* What seccomp_setup_prepare refuses, decided the same way (flags, then
 * the compiled profile) without the cache: nothing is written (`policy
 * explain`). */
int seccomp_setup_check(const struct oci_config *config, struct sb_error *err);

/* The fd to pass to the init (caller owns it): the init's end of the notify
 * socketpair, after connecting to listenerPath; /dev/null without NOTIFY. */
int seccomp_setup_open_channel(struct seccomp_setup *s, struct sb_error *err);

/* Append the program to plan (after any already there, e.g. the floor's);
 * init_channel_fd is the channel's fd number as the init sees it. */
int seccomp_setup_to_plan(const struct seccomp_setup *s, int init_channel_fd,
                          struct init_plan *plan, struct sb_error *err);

/* With NOTIFY: send the listener socket and the container process state to
 * the init, which delivers both with the listener fd. No-op otherwise. */
int seccomp_setup_notify(struct seccomp_setup *s, const struct oci_config *config, const char *id,
                         int pid, const char *bundle, struct sb_error *err);

#endif
