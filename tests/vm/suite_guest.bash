# tests/vm/suite_guest.bash: what the VM suites (tests/vm/*-suite.sh) do
# alike in the guest, before their tests and after them. Sourced after
# tests/lib/lanes.bash and suite_begin.

# suite_guest_env: the tests' environment in the guest. sbrun from
# SBRUN or SBRUN_BUILDDIR; the test directory and the busybox rootfs in
# the guest's own /tmp (9p cannot hold FIFOs or device nodes), one pair a
# suite. Exits 2 without sbrun.
suite_guest_env() {
        local name=${SUITE%-suite}
        export SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
        export SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
        export SBRUN_TEST_TMP=/tmp/sbrun-$name-tests
        export SBRUN_ROOTFS=/tmp/sbrun-$name-rootfs
        [ -x "$SBRUN" ] || { echo "$SUITE: no sbrun at $SBRUN (set SBRUN_BUILDDIR or SBRUN)" >&2; exit 2; }
        mkdir -p "$SBRUN_TEST_TMP"
        # The busybox rootfs: tests/lib/make-rootfs.sh forks a ln per applet,
        # which takes most of a minute under TCG; a copy of the one the host
        # built (SBRUN_VM_ROOTFS, which tests/run-all.sh puts beside sbrun)
        # takes a second, and make-rootfs.sh then finds it complete.
        if [ -n "${SBRUN_VM_ROOTFS:-}" ] && [ -f "$SBRUN_VM_ROOTFS/.sbrun-rootfs-complete" ] &&
                [ ! -e "$SBRUN_ROOTFS" ]; then
                cp -a "$SBRUN_VM_ROOTFS" "$SBRUN_ROOTFS" || {
                        rm -rf "$SBRUN_ROOTFS"
                        echo "$SUITE: cannot copy $SBRUN_VM_ROOTFS: the tests build their own" >&2
                }
        fi
        # Everything in the guest runs ~50x slower than on the host, and more
        # when the host is busy; the first test also pays for cold 9p caches.
        export BATS_TEST_TIMEOUT=${SBRUN_VM_TEST_TIMEOUT:-600}
        # bats reads process substitutions through /dev/fd, which devtmpfs lacks.
        [ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
}

# suite_leftover_cgroups [NAME-GLOB...]: what a test made in the cgroup
# tree and left behind (the test suites' names, and NAME-GLOBs) is a
# failure of the suite too.
suite_leftover_cgroups() {
        local names=(-name 'sbt-*' -o -name 'sbrun-test*' -o -name 'sbrun_test*') glob left
        for glob in "$@"; do
                names+=(-o -name "$glob")
        done
        left=$(find /sys/fs/cgroup -mindepth 1 -type d \( "${names[@]}" \) 2>/dev/null)
        if [ -n "$left" ]; then
                echo "$SUITE: leftover cgroups: $left" >&2
                echo "not ok - $SUITE: leftover cgroups: $(tr '\n' ' ' <<<"$left")"
                SUITE_RC=1
        fi
}

# suite_leftover_units: under systemd, a unit a test made fail, or a
# container's scope or a slice made for one still loaded and not inactive
# (systemd collects a stopped transient unit), is a failure of the suite
# too: the names the tests and the engines give them (sbtest-*, libpod-*,
# cri-containerd-*, the test slices, the kubelet's kubepods slices).
suite_leftover_units() {
        local failed units
        failed=$(systemctl list-units --failed --no-legend --plain 2>&1)
        if [ -n "$failed" ]; then
                echo "not ok - $SUITE: failed units after the suite: $(tr '\n' ' ' <<<"$failed")"
                SUITE_RC=1
        fi
        units=$(systemctl list-units --all --no-legend --plain 'sbtest-*.scope' 'libpod-*.scope' \
                'libpod-conmon-*.scope' 'cri-containerd-*.scope' 'sbt-*.slice' 'sbt.slice' 'kubepods*.slice' 2>&1 |
                awk '$3 != "inactive"')
        if [ -n "$units" ]; then
                echo "not ok - $SUITE: container units left after the suite: $(tr '\n' ' ' <<<"$units")"
                SUITE_RC=1
        fi
}
