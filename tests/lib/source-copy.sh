#!/bin/bash
# source-copy.sh SRCDIR DEST: DEST becomes a copy of the source tree (the
# files git tracks or would track, as they are in the work tree, with their
# times), ready to configure. A second build with other flags (ASan,
# libFuzzer) cannot configure from a source tree that was configured in
# place, as CI's is: automake refuses ("source directory already
# configured"). Copying keeps the times, so a second run rebuilds only what
# changed. Prints DEST.
set -euo pipefail
src=$(cd "$1" && pwd)
dest=$2
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        echo "$0: $src is not a git work tree" >&2
        exit 1
fi
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -C "$dest" -xf -
# The list of files make dist ships is written by autogen.sh from git, which
# the copy has not: it travels with the copy, as configure does in a release.
[ -f "$src/dist-files.am" ] && cp -p "$src/dist-files.am" "$dest/"
if [ ! -x "$dest/configure" ] || [ "$dest/configure.ac" -nt "$dest/configure" ] ||
        [ "$dest/Makefile.am" -nt "$dest/Makefile.in" ]; then
        (cd "$dest" && ./autogen.sh >/dev/null 2>&1) || {
                echo "$0: autogen.sh failed in $dest" >&2
                exit 1
        }
fi
echo "$dest"
