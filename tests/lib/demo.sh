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

# The demo keeps its state in a root of its own beside the bundle, not in
# /run/sbrun: it leaves nothing on the host outside its work directory (the
# rootless tests expect no /run/sbrun, which a root's run would make). The
# foreground run deletes the container, and an empty root is left.
state=$(cd "$bundle" && pwd)/state
mkdir -p -m 0700 "$state"
globals=(--root "$state")

# On a host without cgroup v2 controllers (a hybrid v1/v2 layout) sbrun
# fails closed unless the operator's policy allows running without resource
# limits. The demo says so and passes such a policy explicitly; it never
# writes /etc/sbrun/policy.json.
has_v2() {
        local mnt c
        mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
        [ -n "$mnt" ] || return 1
        for c in cpu memory pids; do
                grep -qw "$c" "$mnt/cgroup.controllers" 2>/dev/null || return 1
        done
}
if [ ! -e /etc/sbrun/policy.json ] && ! has_v2 && "$sbrun" --help 2>&1 | grep -q -- --policy; then
        policy=$bundle/demo-policy.json
        printf '%s\n' '{"cgroups": {"enforce": false}}' >"$policy"
        chmod 0644 "$policy"
        echo "demo: this host has no cgroup v2 controllers: running without resource limits ($policy)" >&2
        globals+=(--policy "$policy")
fi

# A container of that name left by an interrupted demo would block this one.
"$sbrun" "${globals[@]}" delete --force "$id" >/dev/null 2>&1 || true
echo "+ $sbrun ${globals[*]} run -b $bundle $id" >&2
exec "$sbrun" "${globals[@]}" run -b "$bundle" "$id" </dev/null
