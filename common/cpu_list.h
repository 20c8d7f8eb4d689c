/* A CPU list as the kernel writes one (cpuset.cpus, Cpus_allowed_list) and
 * the runtime-spec's execCPUAffinity takes: "0-3,7". One parser for the
 * config's check (oci/) and for sbrun-init, which applies the mask, so that
 * what create accepts is what the init carries out. */
#ifndef SB_CPU_LIST_H
#define SB_CPU_LIST_H

#include <stddef.h>

/* The CPUs a list can name: glibc's and musl's CPU_SETSIZE. */
#define CPU_LIST_MAX 1024
#define CPU_LIST_WORDS (CPU_LIST_MAX / (8 * sizeof(unsigned long)))

/* text: items N or N-M (N <= M < CPU_LIST_MAX) separated by commas, no
 * space, at least one item. Sets mask[] (sched_setaffinity's layout) and
 * returns 0, or -1 with mask undefined. */
int cpu_list_parse(const char *text, unsigned long mask[CPU_LIST_WORDS]);

#endif
