# Helpers for tests/faults/: sbrun killed at a named fault point
# (common/fault.h), then what it left is judged and `delete --force` must
# remove all of it.
#
# SBRUN_FAULTS is a sbrun built with its fault points live: `make
# sbrun-faults` in the build tree (default $SBRUN_BUILDDIR/sbrun-faults), or
# a build configured with --enable-fault-injection. tests/run-all.sh makes
# it and runs this directory only then.

SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN_FAULTS=${SBRUN_FAULTS:-$SBRUN_BUILDDIR/sbrun-faults}
SBRUN=$SBRUN_FAULTS
load "$SBRUN_SRCDIR/tests/helpers.bash"

setup() {
        [ -x "$SBRUN_FAULTS" ] || fail "no fault build: SBRUN_FAULTS=$SBRUN_FAULTS (make sbrun-faults)"
        "$SBRUN_FAULTS" --version | grep -qx 'fault-injection: on' ||
                fail "$SBRUN_FAULTS is not a fault-injection build"
        sb_setup
}

# fault_points [PREFIX]: the points of the source (tests/faults/fault-points.sh).
fault_points() {
        "$SBRUN_SRCDIR/tests/faults/fault-points.sh" "$SBRUN_SRCDIR" | grep -E "^${1:-}" || true
}

# assert_killed_at POINT STATUS OUTPUT: sbrun died by SIGKILL, at POINT.
assert_killed_at() {
        local point=$1 st=$2 out=$3
        [ "$st" -eq 137 ] || {
                fail "$point: expected death by SIGKILL (137), got status $st: $out"
                return 1
        }
        [[ $out == *"sbrun: fault point $point: SIGKILL"* ]] || {
                fail "$point: sbrun was killed, but not at this point (never reached?): $out"
                return 1
        }
}

# proc_alive PID: PID exists and is not a zombie.
proc_alive() {
        local st
        st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# assert_state_consistent POINT ID: `state` shows a container whose status
# matches its process, or says clearly that it is not (fully) there.
assert_state_consistent() {
        local point=$1 id=$2 out rc=0 status pid
        out=$(timeout 20 "${SBRUN_ARGV[@]}" state "$id" 2>&1 3>&-) || rc=$?
        if [ "$rc" -eq 124 ]; then
                fail "$point: 'state $id' hangs"
                return 1
        fi
        if [ "$rc" -ne 0 ]; then
                [[ $out == *"container \"$id\" does not exist"* ||
                        $out == *"container \"$id\" was not fully created"* ]] || {
                        fail "$point: 'state $id' fails without a clear reason: $out"
                        return 1
                }
                return 0
        fi
        jq -e . >/dev/null <<<"$out" || {
                fail "$point: 'state $id' is not JSON: $out"
                return 1
        }
        status=$(jq -r .status <<<"$out")
        pid=$(jq -r .pid <<<"$out")
        case $status in
        creating)
                # A create that died: its record is marked incomplete, with
                # the pid once there was one.
                [ "$(jq -r .sbrun.create <<<"$out")" = incomplete ] || {
                        fail "$point: creating, but not marked incomplete: $out"
                        return 1
                }
                [ "$pid" -eq 0 ] || proc_alive "$pid" || {
                        fail "$point: state says creating, but pid $pid is gone: $out"
                        return 1
                }
                ;;
        created | running | paused)
                # A signal sent just before the kill (kill.after-signal) may
                # end the process between the two looks: then a second look
                # must say stopped.
                proc_alive "$pid" ||
                        [ "$(timeout 20 "${SBRUN_ARGV[@]}" state "$id" 2>/dev/null 3>&- | jq -r .status)" = stopped ] || {
                        fail "$point: state says $status, but pid $pid is gone: $out"
                        return 1
                }
                ;;
        stopped)
                if [ "$pid" -gt 0 ] 2>/dev/null && proc_alive "$pid" &&
                        [ "$(stat -L -c %d:%i "/proc/$pid/root" 2>/dev/null)" = "$(stat -c %d:%i "$BUNDLE/rootfs")" ]; then
                        fail "$point: state says stopped, but pid $pid lives in the rootfs: $out"
                        return 1
                fi
                ;;
        *)
                fail "$point: state has status '$status': $out"
                return 1
                ;;
        esac
}

# assert_cleaned POINT ID: after `delete --force`, nothing of ID is left: no
# state dir, process, mount or cgroup (assert_no_leftovers), no fd anyone
# holds on the state dir, no half-written seccomp cache entry.
assert_cleaned() {
        local point=$1 id=$2 fds bad
        assert_no_leftovers "$id" || {
                fail "$point: delete --force left the above"
                return 1
        }
        fds=$(find /proc/[0-9]*/fd -lname "$ROOT/$id*" -printf '%p -> %l\n' 2>/dev/null || true)
        [ -z "$fds" ] || {
                fail "$point: fds still open on the state dir: $fds"
                return 1
        }
        if [ -d "$ROOT/.seccomp-cache" ]; then
                bad=$(find "$ROOT/.seccomp-cache" -mindepth 1 -regextype posix-extended ! -regex '.*/[0-9a-f]{16}\.bpf' -printf '%f ')
                [ -z "$bad" ] || {
                        fail "$point: the seccomp cache holds entries that are not whole: $bad"
                        return 1
                }
        fi
}

# delete_force POINT ID: `delete --force` succeeds (and does not hang).
delete_force() {
        local out rc=0
        out=$(timeout 30 "${SBRUN_ARGV[@]}" delete --force "$2" 2>&1 3>&-) || rc=$?
        [ "$rc" -eq 0 ] || {
                fail "$1: 'delete --force $2' failed ($rc): $out"
                return 1
        }
}

# crash_check POINT ID STATUS OUTPUT: the whole judgement for one point.
crash_check() {
        assert_killed_at "$1" "$3" "$4" || return 1
        assert_state_consistent "$1" "$2" || return 1
        delete_force "$1" "$2" || return 1
        assert_cleaned "$1" "$2"
}

# faulted POINT CMD...: CMD with SBRUN_FAULT=POINT, stdio on files (the
# container may inherit them); sets F_STATUS and F_OUTPUT (stdout+stderr).
faulted() {
        local point=$1 out
        shift
        out=$(mktemp "$TEST_DIR/fault.XXXXXX")
        F_STATUS=0
        SBRUN_FAULT=$point timeout 60 "$@" </dev/null >"$out" 2>&1 3>&- || F_STATUS=$?
        F_OUTPUT=$(cat "$out")
}
