#!/bin/bash
# tests/bench/bench.sh: what `make bench` runs: the host lane
# (tests/bench/run.sh), then the same bench in the VM lane (vm-bench.sh in a
# qemu guest with real cgroup v2, tests/vm/run.sh), then in the vm-systemd
# lane (the guest booted with systemd as PID 1, run.sh --systemd: every
# runtime with its systemd cgroup driver, podman with its default manager).
#
#   SBRUN_BENCH_LANE=host|vm|vm-systemd|all (default all)   which lanes
#   SBRUN_BENCH_ARGS="..."                       options for run.sh in both
#                                                 lanes (e.g. "--rounds 3")
#   SBRUN_BENCH_VM_LOCATIONS="tmpfs ext4 9p"    the VM lane's bundle locations
#   SBRUN_BENCH_VM_ARGS="..."                    options for the VM lane only
#                                                 (default "--rounds 3 --runs 10":
#                                                 the guest runs under TCG)
#
# Results: $SBRUN_BUILDDIR/tests/bench-results/{host,vm,vm-ext4,vm-9p,vm-systemd}/ (results.json,
# table.txt, bench.png). Exits non-zero only if a lane could not run.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$here/../.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
export SBRUN_SRCDIR SBRUN_BUILDDIR SBRUN
lane=${SBRUN_BENCH_LANE:-all}
results=$(mkdir -p "$SBRUN_BUILDDIR/tests/bench-results" && cd "$SBRUN_BUILDDIR/tests/bench-results" && pwd -P)
rc=0

case $lane in host | vm | vm-systemd | all) ;; *)
        echo "bench.sh: SBRUN_BENCH_LANE must be host, vm, vm-systemd or all, not $lane" >&2
        exit 2
        ;;
esac

if [ "$lane" = host ] || [ "$lane" = all ]; then
        # shellcheck disable=SC2086 # word lists
        "$here/run.sh" --out "$results/host" ${SBRUN_BENCH_ARGS:-} || rc=1
fi

if [ "$lane" != host ]; then
        "$SBRUN_SRCDIR/tests/vm/setup.sh" >"$results/vm-setup.log" 2>&1 || {
                tail -n 20 "$results/vm-setup.log" >&2
                echo "bench.sh: tests/vm/setup.sh failed" >&2
                exit 1
        }
        # The guest replaces /tmp and /run: the binary goes where it sees it.
        vm_bin=$(mktemp -d /var/tmp/sbrun-bench-bin.XXXXXX)
        cp "$SBRUN" "$vm_bin/sbrun"
        guests=(vm vm-systemd)
        [ "$lane" = all ] || guests=("$lane")
        for g in "${guests[@]}"; do
                boot=() where=()
                # The busybox guest measures each bundle location
                # (vm-bench.sh --locations): results vm, vm-ext4, vm-9p.
                [ "$g" = vm ] && where=(--locations "${SBRUN_BENCH_VM_LOCATIONS:-tmpfs ext4 9p}")
                [ "$g" = vm-systemd ] && boot=(--systemd)
                # shellcheck disable=SC2086 # word lists
                (cd "$results" && SBRUN_VM_TIMEOUT=${SBRUN_VM_TIMEOUT:-3000} \
                        "$SBRUN_SRCDIR/tests/vm/run.sh" ${boot[@]+"${boot[@]}"} --share "$results" \
                        -e SBRUN="$vm_bin/sbrun" -e SBRUN_SRCDIR="$SBRUN_SRCDIR" -e SBRUN_BUILDDIR="$results" \
                        "$here/vm-bench.sh" ${where[@]+"${where[@]}"} --out "$results/$g" ${SBRUN_BENCH_ARGS:-} \
                        ${SBRUN_BENCH_VM_ARGS:---rounds 3 --runs 10}) </dev/null || rc=1
        done
        rm -rf "$vm_bin"
fi
exit $rc
