/* Linked before libsbruntime.a, this definition wins over
 * runtime/sandbox/bwrap_path.c: see Makefile.am, tests/sbrun-bwrap-fixture. */
#include "runtime/sandbox/bwrap_binary.h"

const char sbrun_bwrap_path[] = SBRUN_BWRAP_FIXTURE;
