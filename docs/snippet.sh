#!/bin/sh
# docs/snippet.sh FILE NAME: print the fenced block that follows the line
# "<!-- NAME -->" in FILE (the README's and docs/policy.md's named
# examples), without its fences. `make` writes the installed examples
# (containers.conf, the containerd handler, the RuntimeClass, the operator
# policy) from them, so that the files a package ships are the text the
# documentation shows and the engine tests run. Exit status 1 when FILE has
# no such block.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 FILE NAME" >&2; exit 2; }
awk -v tag="<!-- $2 -->" '
	found == 0 && $0 == tag { found = 1; next }
	found == 1 && /^```/ { found = 2; next }
	found == 1 { exit 1 }
	found == 2 && /^```/ { done = 1; exit 0 }
	found == 2 { print }
	END { exit done ? 0 : 1 }
' "$1" || { echo "$0: no block \"$2\" in $1" >&2; exit 1; }
