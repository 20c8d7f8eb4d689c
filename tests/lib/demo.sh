#!/bin/bash
# demo.sh [BUNDLE-DIR]: make an OCI bundle from Debian's busybox-static and
# run it with the freshly built sbrun. Run from the build tree, as root:
#   ./tests/lib/demo.sh            (bundle in tests/.work/demo)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
sbrun=${SBRUN:-./sbrun}
bundle=${1:-tests/.work/demo}
id=${DEMO_ID:-demo1}

if [ ! -x "$sbrun" ]; then
        echo "demo: $sbrun not found: build first (./configure && make)" >&2
        exit 1
fi
command -v jq >/dev/null || { echo "demo: jq not found: ./tests/install-deps.sh" >&2; exit 1; }

mkdir -p "$bundle"
"$srcdir/tests/lib/make-rootfs.sh" "$bundle/rootfs"
rm -f "$bundle/config.json"
"$sbrun" spec --bundle "$bundle"
jq '.process.terminal = false |
    .process.args = ["sh", "-c", "echo hello from sbrun; id; hostname"]' \
        "$bundle/config.json" >"$bundle/config.json.new"
mv "$bundle/config.json.new" "$bundle/config.json"

# A container of that name left by an interrupted demo would block this one.
"$sbrun" delete --force "$id" >/dev/null 2>&1 || true
echo "+ $sbrun run -b $bundle $id" >&2
exec "$sbrun" run -b "$bundle" "$id" </dev/null
