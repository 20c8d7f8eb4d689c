#!/bin/bash
# tests/vm/cgroups-suite.sh — sbrun's cgroup v2 tests (tests/vm/cgroups_v2.bats,
# tests/vm/memory_limit.bats,
# tests/vm/cgroups_devices_events.bats), the floor attacks that need real
# cgroups or the kernel's i386/x32 entry points (tests/vm/floor_attacks.bats),
# an AppArmor profile confining a container (tests/vm/lsm.bats), the io
# ceiling held on real disks (tests/vm/io_ceiling.bats), checkpoint and
# restore with CRIU beside runc (tests/vm/checkpoint.bats), Landlock
# on the guest's older ABI (tests/integration/landlock.bats), then the
# resource checks of the real engines (the "vm:" tests of
# tests/engines/containerd.bats, subsets of tests/engines/podman.bats and
# cri.bats) and the propagation test of tests/integration/mounts.bats, run
# inside the VM lane with no opt-out policy:
#
#   tests/vm/run.sh -e SBRUN_BUILDDIR=/var/tmp/sbrun-build tests/vm/cgroups-suite.sh
#
# The build must be visible in the guest: the shared tree or any host path
# except /tmp and /run, which the guest replaces with fresh tmpfs. Bundles,
# state and the busybox rootfs go to the guest's /tmp (9p cannot hold FIFOs
# or device nodes). Extra arguments go to bats (e.g. -f pause).
#
# SBRUN_FAULTS: sbrun with live fault points (`make sbrun-faults`), for
# tests/faults/crash.bats' create, delete and run points.
#
# --plan (on the host, before the guest boots): print the name of every test
# the suite will run, one per line, and nothing else; tests/run-all.sh
# compares it with what the guest reported, so that a test the guest never
# reached counts as failed. Every selection below is made through `sel`, so
# the plan and the run cannot differ; a selection that matches no test is a
# failure.
#
# SBRUN_FLOOR_ATTACK: tests/helpers/floor_attack.c built static, where the
# guest sees it (tests/run-all.sh builds it on the host, which is ~50x
# faster); without it the suite builds it here with the host's compiler.
set -u

here=$(cd "$(dirname "$0")" && pwd)
export SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=tests/lib/lanes.bash
. "$SBRUN_SRCDIR/tests/lib/lanes.bash"
suite_begin cgroups-suite "$@"

# sel [-f REGEX] FILE...: one selection of the suite (suite_sel, in
# tests/lib/lanes.bash: the plan's names, or the run).
sel() { suite_sel "$@"; }

suite() {
	sel "$here/cgroups_v2.bats" "$here/memory_limit.bats" "$here/cgroups_devices_events.bats" \
		"$here/floor_attacks.bats" "$here/lsm.bats" "$here/check.bats" "$here/io_ceiling.bats"
	# Checkpoint and restore with CRIU, which runs on this guest's kernel
	# (6.1) and not on newer hosts': each case with runc and with sbrun
	# (the engines' cases are below). The runc half of the file took
	# 105 s here and 71 s there (the engines' set-up included) at a load
	# of 3.
	sel -f '^checkpoint \(' "$here/checkpoint.bats"
	# What the floor refuses or tightens across them (sbrun only).
	sel "$here/checkpoint_floor.bats"

	# sbrun killed at the fault points of create, delete and run
	# (tests/faults/crash.bats) where the cgroup is real: delete --force must
	# leave no cgroup either. SBRUN_FAULTS is the host's `make sbrun-faults`
	# (tests/run-all.sh copies it where the guest sees it); without it, or with
	# SBRUN_VM_FAULTS=0, skipped. It took 22 minutes of TCG on a 2-core host
	# that ran eight other guests at the time.
	if [ -n "${SBRUN_FAULTS:-}" ] && [ "${SBRUN_VM_FAULTS:-1}" != 0 ]; then
		sel -f '^(create|delete|run): killed' "$SBRUN_SRCDIR/tests/faults/crash.bats"
	elif [ "$SUITE_MODE" = run ]; then
		echo "cgroups-suite: no SBRUN_FAULTS or SBRUN_VM_FAULTS=0: the fault points are not walked on real cgroups" >&2
	fi

	# Mount propagation on the guest's own shared mounts: the host suite's test,
	# once more where nothing is opted out.
	sel -f '^propagation: ' "$SBRUN_SRCDIR/tests/integration/mounts.bats"
	# Idmapped mounts on Debian 12's kernel (6.1): what depends on the
	# kernel (the open_tree, mount_setattr and move_mount steps, ridmap,
	# tmpfs, which 6.1 cannot idmap), with sources on the guest's ext4.
	sel -f '^(features lists idmap|an idmapped bind|ridmap|a tmpfs source|a create that fails in sbrun-init)' \
		"$SBRUN_SRCDIR/tests/integration/idmap.bats"
	# Landlock on the guest's kernel (Debian's 6.1: ABI 2, no truncate or
	# TCP rights): writes, a late mount, W^X (tests/integration/landlock.bats).
	sel -f '^landlock: (under strict (a write|/tmp)|a program written)' "$SBRUN_SRCDIR/tests/integration/landlock.bats"
	# Volumes bounded by project quota: this development host's kernel has
	# no quota format (CONFIG_QFMT_V2), so the EDQUOT tests of
	# tests/integration/volumes.bats skip there; the guest's has quota_v2.
	# With them, a file moved out of the volume's project (refused).
	sel -f '^volumes: (strict runs a volume bounded|under strict a file cannot be moved|on a file system with project quota)' \
		"$SBRUN_SRCDIR/tests/integration/volumes.bats"
	# The audit trail where the cgroup is real (its peaks in the verdict and
	# delete lines), with the lifecycle and a failing log once more; and the
	# verdict of a container that fills its workspace.
	sel -f '^audit: (on cgroup v2|a lifecycle|a read-only or full log)' "$SBRUN_SRCDIR/tests/integration/audit.bats"
	sel -f 'ends with the verdict workspace_full' "$SBRUN_SRCDIR/tests/adversarial/floor_host.bats"

	# Races on one container and the wall-clock limit's escapees (double
	# fork, setsid, SIGTERM ignored) with cgroup.kill: the host suite's tests,
	# once more where the cgroup is real. Only the races a cgroup takes part
	# in (the loser of two creates must leave the winner's cgroup; delete -f
	# destroys it under a racing exec), two rounds: the whole file at three
	# rounds took 18 minutes under TCG.
	SBRUN_RACE_ROUNDS=${SBRUN_RACE_ROUNDS:-2} sel -f '^races: (two creates|kill, state)' \
		"$SBRUN_SRCDIR/tests/integration/races.bats"
	sel -f '^escape: ' "$SBRUN_SRCDIR/tests/integration/timeout.bats"

	# containerd and its runc shim driving sbrun on real cgroups: the tests of
	# tests/engines/containerd.bats named "vm: ..." (pause/resume, metrics,
	# memory and cpu limits, an OOM event), one private containerd.
	sel -f '^vm: ' "$here/../engines/containerd.bats"
	# The real podman on sbrun with real cgroups (tests/engines/podman.bats): the
	# tests whose checks differ in the VM, each resource flag once. podman is
	# slow under TCG (seconds a command): not the whole file.
	# SBRUN_VM_ENGINES=0 leaves them out.
	if [ "${SBRUN_VM_ENGINES:-1}" != 0 ]; then
		sel -f 'prints the container|--memory, --pids-limit, --cpus|pause/unpause and update|podman stats|OOM-killed|SRC:DST:idmap|--sdnotify=container' \
			"$SBRUN_SRCDIR/tests/engines/podman.bats"
		# A Kubernetes pod through containerd's CRI plugin: the README's pod
		# and the resource limits with UpdateContainerResources, on real cgroups.
		sel -f "README's RuntimeClass|resources through CRI" "$SBRUN_SRCDIR/tests/engines/cri.bats"
		# podman's checkpoint --export and restore --import, and ctr's
		# checkpoint --task and restore --live, each with runc and with
		# sbrun.
		sel -f '^checkpoint via ' "$here/checkpoint.bats"
	fi
}

if [ "$SUITE_MODE" = plan ]; then
	suite
	exit 0
fi

[ "${SBRUN_VM:-}" = 1 ] ||
	{ echo "cgroups-suite: run me in the VM lane: tests/vm/run.sh $0" >&2; exit 2; }

# shellcheck source=tests/vm/suite_guest.bash
. "$here/suite_guest.bash"
suite_guest_env

if [ -z "${SBRUN_FLOOR_ATTACK:-}" ]; then
	export SBRUN_FLOOR_ATTACK=$SBRUN_TEST_TMP/floor_attack
	cc -O2 -Wall -static -o "$SBRUN_FLOOR_ATTACK" "$SBRUN_SRCDIR/tests/helpers/floor_attack.c" -lpthread ||
		echo "cgroups-suite: cannot build tests/helpers/floor_attack.c: floor_attacks.bats will fail" >&2
fi
export SBRUN_FLOOR_ATTACK

# A test that outlives bats' timeout is reported and killed
# (tests/vm/stall_guard.bash), so that it cannot take the rest of the lane.
. "$SBRUN_SRCDIR/tests/vm/stall_guard.bash"
stall_guarded suite

suite_leftover_cgroups
exit $SUITE_RC
