#!/bin/bash
# tests/bench/vm-bench.sh [run.sh OPTIONS]: the bench in the VM lane, where
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
exec "$here/run.sh" "$@"
