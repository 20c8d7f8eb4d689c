#!/bin/bash
# tests/bench/vm-bench.sh [--locations "tmpfs ext4 9p"] [run.sh OPTIONS]: the
# bench in the VM lane, where
# the kernel has a pure cgroup v2 hierarchy: every runtime makes a real
# cgroup for its container (sbrun with no opt-out policy, crun and runc with
# their default cgroupfs managers), and podman runs an image with sbrun and
# with crun. Runs inside the guest; from the host:
#
#   tests/vm/run.sh --share RESULTS -e SBRUN=/var/tmp/DIR/sbrun \
#           tests/bench/vm-bench.sh --out RESULTS/vm
#
# (tests/bench/bench.sh does this). The guest's /tmp is its own: results must
# go to the shared tree RESULTS, which comes back to the host.
#
# --locations: the bundle's file system, one bench each (tests/vm/bundle-fs.sh):
# tmpfs (the default, with the scale and podman cases) writes to --out;
# ext4 (a loop device, as a user's disk) and 9p (the host's tree) write to
# --out with "-ext4" or "-9p" appended, the run and cycle cases only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ "${SBRUN_VM:-0}" = 1 ] || {
        echo "$0: runs in the VM lane's guest (tests/vm/run.sh); see tests/bench/bench.sh" >&2
        exit 2
}
[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] || {
        echo "$0: /sys/fs/cgroup is not cgroup v2 in this guest" >&2
        exit 1
}
# bats (the podman case) reads process substitutions through /dev/fd,
# which the guest's devtmpfs lacks (as tests/vm/cgroups-suite.sh).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

locations=tmpfs out="" pass=()
while [ $# -gt 0 ]; do
        case $1 in
        --locations) locations=$2 && shift ;;
        --out) out=$2 && shift ;;
        *) pass+=("$1") ;;
        esac
        shift
done
out=${out:-${SBRUN_BUILDDIR:-${SBRUN_SRCDIR:-$here/../..}}/tests/bench-results/vm}
rc=0
for loc in $locations; do
        if [ "$loc" = tmpfs ]; then
                "$here/run.sh" --out "$out" ${pass[@]+"${pass[@]}"} || rc=1
                continue
        fi
        dir=$("$here/../vm/bundle-fs.sh" "$loc") || {
                rc=1
                continue
        }
        SBRUN_BENCH_PODMAN=0 "$here/run.sh" --out "$out-$loc" --bundle-in "$dir" --no-scale \
                ${pass[@]+"${pass[@]}"} || rc=1
done
exit "$rc"
