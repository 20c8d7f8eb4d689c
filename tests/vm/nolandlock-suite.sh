#!/bin/bash
# tests/vm/nolandlock-suite.sh — sbrun on a kernel that has Landlock built
# in but not enabled: every tests/vm/no_landlock*.bats (sorted), run in a
# guest booted with tests/vm/run.sh --no-landlock (the kernel's default LSM
# list less landlock; AppArmor and the rest as in the other boots):
#
#   tests/vm/run.sh --no-landlock -e SBRUN=/var/tmp/sbrun-bin/sbrun tests/vm/nolandlock-suite.sh --tap
#
# SBRUN_VM_ROOTFS: the host's busybox rootfs (tests/lib/make-rootfs.sh),
# where the guest sees it; copied instead of built again
# (tests/vm/suite_guest.bash).
#
# The host suite simulates such a kernel (tests/helpers/no_landlock.c makes
# landlock_create_ruleset answer EOPNOTSUPP); this lane is the real one.
# It refuses to run where the kernel has Landlock: a "no Landlock" test that
# passes on a kernel with it proves nothing. Extra arguments go to bats.
#
# --plan (on the host, before the guest boots): print the name of every test
# the suite will run, one per line; tests/run-all.sh compares it with what
# the guest reported (lane vm-nolandlock). The files are selected through
# suite_sel (tests/lib/lanes.bash), as in the other suites.
set -u

here=$(cd "$(dirname "$0")" && pwd)
export SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=tests/lib/lanes.bash
. "$SBRUN_SRCDIR/tests/lib/lanes.bash"
suite_begin nolandlock-suite "$@"

# Every no_landlock*.bats of this directory, in bats' order: a new file
# joins the lane by its name alone. (No process substitution: the busybox
# guest has no /dev/fd until the suite makes it.)
mapfile -t files <<<"$(printf '%s\n' "$here"/no_landlock*.bats | LC_ALL=C sort)"

if [ "$SUITE_MODE" = plan ]; then
	suite_sel "${files[@]}"
	exit 0
fi

[ "${SBRUN_VM:-}" = 1 ] ||
	{ echo "nolandlock-suite: run me in the VM lane: tests/vm/run.sh --no-landlock $0" >&2; exit 2; }
# Each test asserts it as well; this says it once, in words.
lsm=$(cat /sys/kernel/security/lsm 2>/dev/null)
case ,$lsm, in
*,landlock,*)
	echo "nolandlock-suite: this kernel has Landlock ($lsm): tests/vm/run.sh --no-landlock $0" >&2
	exit 2
	;;
esac

# shellcheck source=tests/vm/suite_guest.bash
. "$here/suite_guest.bash"
suite_guest_env

# A test that outlives bats' timeout is reported and killed
# (tests/vm/stall_guard.bash), so that it cannot take the rest of the lane.
. "$SBRUN_SRCDIR/tests/vm/stall_guard.bash"
stall_guarded suite_sel "${files[@]}"

suite_leftover_cgroups
exit $SUITE_RC
