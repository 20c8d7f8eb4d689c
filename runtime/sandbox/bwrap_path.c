/* Alone in its file: see runtime/sandbox/bwrap_binary.h. */
#include "config.h"

#include "runtime/sandbox/bwrap_binary.h"

const char sbrun_bwrap_path[] = SBRUN_BWRAP_PATH;
