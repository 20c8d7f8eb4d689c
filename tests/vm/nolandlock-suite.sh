#!/bin/bash
# tests/vm/nolandlock-suite.sh — sbrun on a kernel that has Landlock built
# in but not enabled: every tests/vm/no_landlock*.bats (sorted), run in a
# guest booted with tests/vm/run.sh --no-landlock (the kernel's default LSM
# list less landlock; AppArmor and the rest as in the other boots):
#
#   tests/vm/run.sh --no-landlock -e SBRUN=/var/tmp/sbrun-bin/sbrun tests/vm/nolandlock-suite.sh --tap
#
# SBRUN_VM_ROOTFS: the host's busybox rootfs (tests/lib/make-rootfs.sh),
# where the guest sees it; copied instead of built again (see below).
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
SUITE=nolandlock-suite
SUITE_MODE=run
if [ "${1:-}" = --plan ]; then
	SUITE_MODE=plan
	shift
fi
SUITE_ARGS=("$@")
SUITE_RC=0
# shellcheck source=tests/lib/lanes.bash
. "$SBRUN_SRCDIR/tests/lib/lanes.bash"

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

export SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
export SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
export SBRUN_TEST_TMP=/tmp/sbrun-nolandlock-tests
export SBRUN_ROOTFS=/tmp/sbrun-nolandlock-rootfs
[ -x "$SBRUN" ] || { echo "nolandlock-suite: no sbrun at $SBRUN (set SBRUN_BUILDDIR or SBRUN)" >&2; exit 2; }
mkdir -p "$SBRUN_TEST_TMP"
# The busybox rootfs: tests/lib/make-rootfs.sh forks a ln per applet, which
# takes most of a minute under TCG, longer than this lane's tests; a copy of
# the one the host built (SBRUN_VM_ROOTFS, which tests/run-all.sh puts beside
# sbrun) takes a second, and make-rootfs.sh then finds it complete.
if [ -n "${SBRUN_VM_ROOTFS:-}" ] && [ -f "$SBRUN_VM_ROOTFS/.sbrun-rootfs-complete" ] &&
	[ ! -e "$SBRUN_ROOTFS" ]; then
	cp -a "$SBRUN_VM_ROOTFS" "$SBRUN_ROOTFS" || {
		rm -rf "$SBRUN_ROOTFS"
		echo "nolandlock-suite: cannot copy $SBRUN_VM_ROOTFS: the tests build their own" >&2
	}
fi
# As in cgroups-suite.sh: everything in the guest is ~50x slower.
export BATS_TEST_TIMEOUT=${SBRUN_VM_TEST_TIMEOUT:-600}
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# A test that outlives bats' timeout is reported and killed
# (tests/vm/stall_guard.bash), so that it cannot take the rest of the lane.
. "$SBRUN_SRCDIR/tests/vm/stall_guard.bash"
stall_guarded suite_sel "${files[@]}"

# What a test made in the cgroup tree and left behind is a failure too.
left=$(find /sys/fs/cgroup -mindepth 1 -type d \( -name 'sbt-*' -o -name 'sbrun-test*' -o -name 'sbrun_test*' \) 2>/dev/null)
if [ -n "$left" ]; then
	echo "not ok - nolandlock-suite: leftover cgroups: $(tr '\n' ' ' <<<"$left")"
	SUITE_RC=1
fi
exit $SUITE_RC
