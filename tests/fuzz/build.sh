#!/bin/bash
# Build the libFuzzer harnesses out of tree with clang: a separate build of
# the libraries with coverage instrumentation, ASan and UBSan
# (configure CC=clang --enable-fuzzing), then `make fuzz`.
#   tests/fuzz/build.sh [BUILDDIR]     (default $SBRUN_FUZZ_BUILDDIR or /tmp/sbrun-fuzz-build)
# BUILDDIR/src is a copy of the source tree (tests/lib/source-copy.sh), the
# build is BUILDDIR/obj, the harnesses end up in BUILDDIR/obj/tests/fuzz/.
set -euo pipefail
src=$(cd -P "$(dirname "$0")/../.." && pwd)
build=${1:-${SBRUN_FUZZ_BUILDDIR:-/tmp/sbrun-fuzz-build}}
mkdir -p "$build/obj"
copy=$("$src/tests/lib/source-copy.sh" "$src" "$build/src")
cd "$build/obj"
if [ ! -f Makefile ]; then
        "$copy/configure" CC=clang --enable-fuzzing --enable-werror >configure.log 2>&1 ||
                { tail -20 configure.log >&2; exit 1; }
fi
make -j2 fuzz >make.log 2>&1 || { tail -40 make.log >&2; exit 1; }
