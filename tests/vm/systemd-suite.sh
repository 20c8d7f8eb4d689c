#!/bin/bash
# tests/vm/systemd-suite.sh — sbrun on a host whose PID 1 is systemd: every
# tests/vm/systemd_*.bats (sorted), run in the VM lane's systemd boot:
#
#   tests/vm/run.sh --systemd -e SBRUN=/var/tmp/sbrun-bin/sbrun tests/vm/systemd-suite.sh --tap
#
# The guest is the cgroups suite's (tests/vm/cgroups-suite.sh: pure cgroup
# v2, the host's userspace, bundles in the guest's /tmp), but booted with
# run.sh --systemd: systemd 252 as PID 1, the system D-Bus, the suite in
# sbrun-vm.service with Delegate=yes. It refuses to run anywhere else: a
# systemd test that passes under the busybox init proves nothing. Extra
# arguments go to bats (e.g. --tap, -f cgroupfs).
#
# --plan (on the host, before the guest boots): print the name of every test
# the suite will run, one per line; tests/run-all.sh compares it with what
# the guest reported (lane vm-systemd). The files are selected through
# suite_sel (tests/lib/lanes.bash), as cgroups-suite.sh's, so the plan and
# the run cannot differ; a selection that matches no test is a failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
export SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=tests/lib/lanes.bash
. "$SBRUN_SRCDIR/tests/lib/lanes.bash"
suite_begin systemd-suite "$@"

# Every systemd_*.bats of this directory, in bats' order (C sort): a new
# file joins the lane by its name alone. (No process substitution: the
# busybox guest, which this script must refuse in words, has no /dev/fd.)
mapfile -t files <<<"$(printf '%s\n' "$here"/systemd_*.bats | LC_ALL=C sort)"
# The fault walk needs the host's `make sbrun-faults` (SBRUN_FAULTS, which
# tests/run-all.sh passes to both guests); without it, or with
# SBRUN_VM_FAULTS=0, it is left out of the plan and of the run alike.
if [ -z "${SBRUN_FAULTS:-}" ] || [ "${SBRUN_VM_FAULTS:-1}" = 0 ]; then
	mapfile -t files <<<"$(printf '%s\n' "${files[@]}" | grep -v '/systemd_faults\.bats$')"
	[ "$SUITE_MODE" = plan ] ||
		echo "systemd-suite: no SBRUN_FAULTS or SBRUN_VM_FAULTS=0: the fault walk with the systemd driver is left out" >&2
fi

if [ "$SUITE_MODE" = plan ]; then
	suite_sel "${files[@]}"
	exit 0
fi

[ "${SBRUN_VM:-}" = 1 ] ||
	{ echo "systemd-suite: run me in the VM lane: tests/vm/run.sh --systemd $0" >&2; exit 2; }
pid1=$(cat /proc/1/comm 2>/dev/null)
[ "$pid1" = systemd ] ||
	{ echo "systemd-suite: PID 1 is ${pid1:-unknown}, not systemd: tests/vm/run.sh --systemd $0" >&2; exit 2; }

# shellcheck source=tests/vm/suite_guest.bash
. "$here/suite_guest.bash"
suite_guest_env

# A test that outlives bats' timeout is reported and killed
# (tests/vm/stall_guard.bash), so that it cannot take the rest of the lane.
. "$SBRUN_SRCDIR/tests/vm/stall_guard.bash"
stall_guarded suite_sel "${files[@]}"

# What a test left in the cgroup tree, a unit it made fail or a container
# unit still loaded is a failure too (tests/vm/suite_guest.bash).
suite_leftover_cgroups 'sbrun-sd*'
suite_leftover_units
exit $SUITE_RC
