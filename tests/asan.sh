#!/bin/bash
# The whole test suite against an ASan/UBSan build of sbrun (sbrun-init
# stays unsanitized: it must link statically). Out of tree, in build-asan/;
# needs the dependencies of tests/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
mkdir -p build-asan
cd build-asan
../configure --enable-werror --enable-sanitizers >/dev/null
make -j2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
make check
