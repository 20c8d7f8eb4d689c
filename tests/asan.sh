#!/bin/bash
# The test suite against an ASan/UBSan build of sbrun (sbrun-init stays
# unsanitized: it must link statically). Needs the dependencies of
# tests/install-deps.sh.
#   tests/asan.sh [BUILDDIR]    (default $SBRUN_ASAN_BUILDDIR or build-asan/)
# Builds from a copy of the source tree in BUILDDIR/src (tests/lib/source-copy.sh:
# a tree configured in place, as CI's is, cannot host another build) into
# BUILDDIR/obj and runs `make check` there as tests/run-all.sh's ASan role
# (SBRUN_RUN_ROLE=asan): the units, the integration files but the soak,
# scale, race and timing ones, and the fault walk. Not the engines, the
# adversarial suite, the bench, the fuzz harnesses (already built with the
# sanitizers) or the VM lane: their sbrun commands are the ones the
# integration files drive, and run-all.sh runs them once, unsanitized.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${SBRUN_ASAN_BUILDDIR:-$src/build-asan}}
mkdir -p "$build/obj"
copy=$("$src/tests/lib/source-copy.sh" "$src" "$build/src")
cd "$build/obj"
if [ ! -f Makefile ]; then
        "$copy/configure" --enable-werror --enable-sanitizers >configure.log 2>&1 ||
                { tail -20 configure.log >&2; exit 1; }
fi
make -j2 >make.log 2>&1 || { tail -40 make.log >&2; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# sbrun under ASan is two to three times slower: a test that runs dozens of
# containers (mounts.bats's mountOptions) takes ~100 s of the default 120 on a
# loaded machine.
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-300}
export SBRUN_RUN_ROLE=asan
make --no-print-directory check
