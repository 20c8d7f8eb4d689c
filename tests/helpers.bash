# Common setup for sbrun's bats integration tests.
#
# Each test gets its own state root (--root) and bundle under a temp dir, so
# the suite never touches /run/sbrun. Every container a test makes is
# force-deleted in teardown, which then asserts that nothing was left behind.
#
# Environment:
#   SBRUN           runtime under test (default $SBRUN_BUILDDIR/sbrun); the
#                   runtime-neutral tests also pass with SBRUN=$(command -v runc)
#   SBRUN_BUILDDIR  build tree (default: the source tree)
#   SBRUN_SRCDIR    source tree (default: found from this file)
#   SBRUN_TEST_TMP  suite-wide scratch dir (default: bats' run tmpdir);
#                   tests/run-all.sh sets it and checks it for leftovers
#   SBRUN_ROOTFS    cached busybox rootfs (default $SBRUN_BUILDDIR/tests/.work/rootfs)

bats_require_minimum_version 1.5.0

# A broken runtime must not hang the suite.
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}

SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
SBRUN_TEST_TMP=${SBRUN_TEST_TMP:-$BATS_RUN_TMPDIR}
SBRUN_ROOTFS=${SBRUN_ROOTFS:-$SBRUN_BUILDDIR/tests/.work/rootfs}

# Print a message on stderr (bats shows it when the test fails) and fail.
fail() {
        echo "FAIL: $*" >&2
        return 1
}

# ---------------------------------------------------------------------------
# setup / teardown

setup() {
        sb_setup
}

teardown() {
        sb_teardown
}

sb_setup() {
        # Loud failures, not skips: a suite that skips everything proves nothing.
        [ "$(id -u)" -eq 0 ] || fail "integration tests must run as root"
        command -v bwrap >/dev/null || fail "bwrap not found: apt-get install bubblewrap"
        command -v jq >/dev/null || fail "jq not found: apt-get install jq"
        [ -x "$SBRUN" ] || fail "runtime under test not found: SBRUN=$SBRUN"
        [ -n "$SBRUN_TEST_TMP" ] || fail "SBRUN_TEST_TMP is empty"

        "$SBRUN_SRCDIR/tests/lib/make-rootfs.sh" "$SBRUN_ROOTFS" ||
                fail "cannot build the busybox rootfs in $SBRUN_ROOTFS"

        # Traversable by all: in a user namespace the container's root is
        # an unprivileged host uid that must still reach the rootfs.
        mkdir -p "$SBRUN_TEST_TMP"
        chmod 0755 "$SBRUN_TEST_TMP"
        TEST_DIR=$(mktemp -d "$SBRUN_TEST_TMP/test.XXXXXX")
        chmod 0755 "$TEST_DIR"
        ROOT=$TEST_DIR/state
        mkdir -m 0700 "$ROOT"
        # A rootless runtime (tests/rootless/sbrun-as-user) keeps its state
        # in a root it owns, or refuses it, and writes its log and files
        # beside it; the policy files the tests write stay root's.
        [ -z "${SBRUN_AS_USER:-}" ] || chown "$SBRUN_AS_USER:" "$TEST_DIR" "$ROOT"
        BUNDLE=$TEST_DIR/bundle
        ID=$(new_id)
        SB_POLICY=$(sb_policy)
        # The runtime's command line as sbrun() builds it, for tests that
        # hand it to another program (a subreaper, bash -c).
        SBRUN_ARGV=("$SBRUN" --root "$ROOT")
        [ -n "$SB_POLICY" ] && SBRUN_ARGV+=(--policy "$SB_POLICY" --log "$TEST_DIR/sbrun.log")
        export TEST_DIR ROOT BUNDLE ID SB_POLICY
}

sb_teardown() {
        local id pid rc=0

        [ -n "${TEST_DIR:-}" ] && [ -d "$TEST_DIR" ] || return 0

        stop_helpers

        for id in $(test_container_ids); do
                "${SBRUN_ARGV[@]}" delete --force "$id" >/dev/null 2>&1 3>&- || true
        done

        # Background `sbrun run`s end when their container is gone.
        if [ -f "$TEST_DIR/bg.pids" ]; then
                while read -r pid; do
                        timeout_wait "$pid" 10 || {
                                echo "background runtime process $pid still running" >&2
                                kill -KILL "$pid" 2>/dev/null || true
                                rc=1
                        }
                done <"$TEST_DIR/bg.pids"
        fi

        for id in $(test_container_ids); do
                assert_no_leftovers "$id" || rc=1
        done

        # Remove the test's files only if nothing is mounted below them:
        # rm must never walk into a leaked bind of a host directory.
        if ! mounts_under "$TEST_DIR" | grep -q .; then
                rm -rf --one-file-system "$TEST_DIR"
        fi
        return $rc
}

# ---------------------------------------------------------------------------
# the runtime

# sbrun ARGS...: the runtime under test with this test's state root. Bats'
# own fd 3 is closed: a container holding it would make bats wait forever.
# Unless the caller names its own, the suite's --policy (see sb_policy) is
# added, with warnings sent to --log $TEST_DIR/sbrun.log.
sbrun() {
        local a policy=1 log=1
        for a in "$@"; do
                case $a in
                --policy | --policy=*) policy=0 ;;
                --log | --log=*) log=0 ;;
                esac
        done
        local -a g=(--root "$ROOT")
        if [ -n "$SB_POLICY" ] && [ $policy = 1 ]; then
                g+=(--policy "$SB_POLICY")
                [ $log = 1 ] && g+=(--log "$TEST_DIR/sbrun.log")
        fi
        "$SBRUN" "${g[@]}" "$@" 3>&-
}

# host_has_v2_controllers: this host's cgroup2 mount offers cpu, memory, pids.
host_has_v2_controllers() {
        local mnt c
        mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
        [ -n "$mnt" ] || return 1
        for c in cpu memory pids; do
                grep -qw "$c" "$mnt/cgroup.controllers" 2>/dev/null || return 1
        done
}

# sb_policy: the operator policy the suite runs sbrun under, or "". On a host
# without cgroup v2 controllers (a hybrid v1/v2 host such as the development
# machines) sbrun fails closed unless the policy opts out of resource
# enforcement; cgroups.bats and the VM lane test that part. SBRUN_POLICY=FILE
# picks a policy, SBRUN_POLICY=none passes none. Runtimes without --policy
# (runc) get none.
#
# A test file that is about the policy itself sets SB_DEFAULT_POLICY=0 at its
# top and passes --policy where it wants one; cgroups.bats is treated so.
sb_policy() {
        if [ "${SB_DEFAULT_POLICY:-1}" = 0 ] ||
                [ "$(basename "${BATS_TEST_FILENAME:-}")" = cgroups.bats ]; then
                return 0
        fi
        case ${SBRUN_POLICY:-auto} in
        none) return 0 ;;
        auto) ;;
        *)
                echo "$SBRUN_POLICY"
                return 0
                ;;
        esac
        "$SBRUN" --help 2>&1 | grep -q -- --policy || return 0
        host_has_v2_controllers && return 0
        printf '%s\n' '{"cgroups": {"enforce": false}}' >"$TEST_DIR/policy.json"
        chmod 0644 "$TEST_DIR/policy.json"
        echo "$TEST_DIR/policy.json"
}

# policy_with JSON NAME: an operator policy $TEST_DIR/NAME.json for this test
# (root-owned, 0644): JSON merged over the suite's own policy, so that its
# cgroup opt-out stays when it has one. Prints the path.
policy_with() {
        local f=$TEST_DIR/$2.json
        if [ -n "$SB_POLICY" ]; then
                jq -s '.[0] * .[1]' "$SB_POLICY" - <<<"$1" >"$f"
        else
                printf '%s\n' "$1" >"$f"
        fi
        chmod 0644 "$f"
        echo "$f"
}

# detached CMD...: run CMD with stdio on files and print them after (stdout,
# then stderr). For commands that leave a container behind (create, run -d):
# the container inherits stdio, and `run` would otherwise wait for it to
# close the pipe.
detached() {
        local out err rc=0
        out=$(mktemp "$TEST_DIR/out.XXXXXX")
        err=$(mktemp "$TEST_DIR/err.XXXXXX")
        "$@" </dev/null >"$out" 2>"$err" 3>&- || rc=$?
        cat "$out"
        cat "$err" >&2
        return $rc
}

# new_id: a fresh container ID that teardown will clean up.
new_id() {
        local id="sbt-${BATS_SUITE_TEST_NUMBER:-0}-$$-$RANDOM"
        echo "$id" >>"$TEST_DIR/ids"
        echo "$id"
}

# Every ID this test may have made: the ones it named and whatever the
# runtime lists or keeps in its state root.
test_container_ids() {
        {
                cat "$TEST_DIR/ids" 2>/dev/null
                "${SBRUN_ARGV[@]}" list -q 2>/dev/null 3>&-
                ls -1 "$ROOT" 2>/dev/null
        } | sed -n 's/^\(sbt-[A-Za-z0-9_.-]*\)$/\1/p' | sort -u
}

# container_status ID: the "status" of `sbrun state ID`, or "none".
container_status() {
        local out
        out=$(sbrun state "$1" 2>/dev/null) || {
                echo none
                return 0
        }
        jq -r .status <<<"$out"
}

# container_pid ID: the "pid" of `sbrun state ID`.
container_pid() {
        sbrun state "$1" | jq -r .pid
}

# wait_file_has FILE TEXT [SECONDS]: FILE holds TEXT within SECONDS (10;
# times WAIT_SCALE where a file sets it, e.g. for the VM lane).
wait_file_has() {
        local i
        for ((i = 0; i < ${3:-10} * 10 * ${WAIT_SCALE:-1}; i++)); do
                grep -qF -- "$2" "$1" 2>/dev/null && return 0
                sleep 0.1
        done
        fail "no '$2' in $1 after ${3:-10}s: $(cat "$1" 2>/dev/null)"
}

# wait_for_status ID STATUS [SECONDS]
wait_for_status() {
        local id=$1 want=$2 secs=${3:-10} i got
        for ((i = 0; i < secs * 10; i++)); do
                got=$(container_status "$id")
                [ "$got" = "$want" ] && return 0
                sleep 0.1
        done
        fail "container $id: status is '$got', waited ${secs}s for '$want'"
}

now_ms() {
        echo $(($(date +%s%N) / 1000000))
}

# control_ms: what a `sbrun run` of `true` costs on this machine now, in
# ms: the control of a timing bound (timeout.bats, output_limit.bats), so
# that a loaded machine, a qemu guest beside the suite or a sanitizer build
# moves the bound with the run it measures.
control_ms() {
        local b=$TEST_DIR/control t0
        [ -d "$b" ] || { make_bundle "$b" && BUNDLE=$b set_args true; } >/dev/null
        t0=$(now_ms)
        sbrun run -b "$b" "$ID-control" >/dev/null 2>&1 || true
        echo $(($(now_ms) - t0))
}

# bind_volume SOURCE [OPTION...]: bind SOURCE at /data; sets VOL to its
# index in .mounts (volumes.bats, io_ceiling.bats).
bind_volume() {
        local src=$1 options
        shift
        options=$(jq -cn '$ARGS.positional' --args rbind "$@")
        edit_config '.mounts += [{destination: "/data", type: "bind", source: $s, options: $o}]' \
                --arg s "$src" --argjson o "$options"
        VOL=$(jq '.mounts | length - 1' "$BUNDLE/config.json")
}

# run_bg OUTFILE ARGS...: `sbrun ARGS...` in the background, stdout and
# stderr to OUTFILE; sets BG_PID. Closes bats' fd 3 so bats does not wait.
run_bg() {
        local out=$1
        shift
        "${SBRUN_ARGV[@]}" "$@" >"$out" 2>&1 </dev/null 3>&- &
        BG_PID=$!
        echo "$BG_PID" >>"$TEST_DIR/bg.pids"
}

# start_helper CMD...: a host helper process, in a session of its own that
# teardown kills whole; sets HELPER_PID. (A background job of a
# non-interactive shell is no group leader, so setsid does not fork.)
start_helper() {
        setsid "$@" </dev/null >/dev/null 2>&1 3>&- &
        HELPER_PID=$!
        echo "$HELPER_PID" >>"$TEST_DIR/helper.pids"
}

# stop_helpers: end every start_helper session of this test (namespace
# holders, sleepers), whole: unshare --fork leaves a child.
stop_helpers() {
        local pid
        [ -f "$TEST_DIR/helper.pids" ] || return 0
        while read -r pid; do
                kill -KILL -- "-$pid" 2>/dev/null || true
                kill -KILL "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        done <"$TEST_DIR/helper.pids"
        rm -f "$TEST_DIR/helper.pids"
}

# timeout_wait PID SECONDS: wait for a child, giving up after SECONDS.
# Sets WAIT_STATUS to its exit status.
timeout_wait() {
        local pid=$1 secs=$2 i
        for ((i = 0; i < secs * 10; i++)); do
                if ! kill -0 "$pid" 2>/dev/null; then
                        WAIT_STATUS=0
                        wait "$pid" 2>/dev/null || WAIT_STATUS=$?
                        return 0
                fi
                # A zombie child still answers kill -0 until waited for.
                if [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
                        WAIT_STATUS=0
                        wait "$pid" 2>/dev/null || WAIT_STATUS=$?
                        return 0
                fi
                sleep 0.1
        done
        return 1
}

# subreaper: path of the tests/helpers/subreaper.c binary, built on demand.
subreaper_bin() {
        local bin=${SUBREAPER:-$SBRUN_TEST_TMP/subreaper}
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/subreaper.c" &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build the subreaper helper"
        fi
        echo "$bin"
}

# ---------------------------------------------------------------------------
# bundles

# make_bundle [DIR]: a bundle with a private copy of the busybox rootfs and
# the config.json `sbrun spec` writes, made runnable without a terminal.
# Default DIR is $BUNDLE.
make_bundle() {
        local dir=${1:-$BUNDLE}
        mkdir -p "$dir"
        cp -a "$SBRUN_ROOTFS" "$dir/rootfs"
        rm -f "$dir/rootfs/.sbrun-rootfs-complete"
        if [ -n "${SBRUN_AS_USER:-}" ]; then
                # tests/rootless/sbrun-as-user: the user's own bundle, as a
                # user unpacks an image (container root is the user).
                chown -R "$SBRUN_AS_USER:" "$dir"
                (cd "$dir" && sbrun spec --rootless) || fail "sbrun spec --rootless failed in $dir"
        else
                (cd "$dir" && sbrun spec) || fail "sbrun spec failed in $dir"
        fi
        [ -f "$dir/config.json" ] || fail "sbrun spec wrote no $dir/config.json"
        # Remember the rootfs identity: a process rooted there is a leftover
        # even after the directory is gone.
        stat -c '%d:%i' "$dir/rootfs" >>"$TEST_DIR/rootfs.ids"
        stat -c '%d:%i' "$dir/rootfs" >>"$SBRUN_TEST_TMP/rootfs.ids"
        BUNDLE=$dir edit_config '.process.terminal = false | .process.args = ["true"]'
}

# edit_config JQ-FILTER [JQ-ARGS...]: edit $BUNDLE/config.json in place,
# e.g. edit_config '.hostname = $h' --arg h box1
edit_config() {
        local filter=$1 cfg=$BUNDLE/config.json
        shift
        jq "$@" "$filter" "$cfg" >"$cfg.new" || fail "jq filter failed: $filter"
        mv "$cfg.new" "$cfg"
}

# config_get JQ-FILTER: read $BUNDLE/config.json.
config_get() {
        jq -r "$1" "$BUNDLE/config.json"
}

# set_args ARG...: process.args of $BUNDLE. (jq --args would take "-c" for
# its own option, so each argument goes in as --arg aN.)
set_args() {
        local i=0 list="" a
        local -a jqargs=()
        for a in "$@"; do
                jqargs+=(--arg "a$i" "$a")
                list+="${list:+,}\$a$i"
                i=$((i + 1))
        done
        edit_config ".process.args = [$list]" "${jqargs[@]}"
}

# set_cmd SHELL-COMMAND: process.args = ["sh", "-c", SHELL-COMMAND].
set_cmd() {
        set_args sh -c "$1"
}

# ---------------------------------------------------------------------------
# leftovers

# mounts_under DIR: mount points at or below DIR in our mount namespace.
mounts_under() {
        local dir
        dir=$(realpath -m "$1")
        awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# procs_rooted_in IDS-FILE [GREP-WORD]: processes whose root or cwd is one of
# the directories (dev:ino) listed in IDS-FILE, or whose command line names
# GREP-WORD (the bwrap command line names the bundle).
procs_rooted_in() {
        local ids=$1 word=${2:-} pid
        if [ -s "$ids" ]; then
                stat -L -c '%n %d:%i' /proc/[0-9]*/root /proc/[0-9]*/cwd 2>/dev/null |
                        awk 'NR == FNR { want[$1] = 1; next }
                             ($2 in want) { split($1, p, "/"); print p[3] }' "$ids" - |
                        sort -u
        fi
        if [ -n "$word" ]; then
                # "[/]tmp/..." matches the word but not grep's own command line.
                for pid in $(grep -ls -- "[${word:0:1}]${word:1}" /proc/[0-9]*/cmdline | cut -d/ -f3); do
                        [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] || echo "$pid"
                done
        fi
}

describe_pids() {
        local pid
        for pid in "$@"; do
                echo "  pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
        done
}

# assert_no_leftovers ID [HOST-PATH...]: nothing of container ID remains:
# no state, no state dir, no process rooted in this test's bundles, no
# mount under the test dir, none of the named host paths, no cgroup.
assert_no_leftovers() {
        local id=$1 p pids i
        shift

        if sbrun state "$id" >/dev/null 2>&1; then
                fail "leftover: 'state $id' still succeeds"
                return 1
        fi
        if [ -n "$(find "$ROOT" -name "*$id*" 2>/dev/null)" ]; then
                fail "leftover: state files for $id: $(find "$ROOT" -name "*$id*")"
                return 1
        fi
        if [ -e "/run/sbrun/$id" ]; then
                fail "leftover: /run/sbrun/$id (the test used --root $ROOT)"
                return 1
        fi
        for p in "$@"; do
                if [ -e "$p" ] || [ -L "$p" ]; then
                        fail "leftover: host path $p exists"
                        return 1
                fi
        done
        # Killed processes take a moment to disappear.
        for ((i = 0; i < 50; i++)); do
                pids=$(procs_rooted_in "$TEST_DIR/rootfs.ids" "$TEST_DIR/")
                [ -z "$pids" ] && break
                sleep 0.1
        done
        if [ -n "$pids" ]; then
                fail "leftover processes for $id:"
                describe_pids $pids
                return 1
        fi
        if [ -n "$(mounts_under "$TEST_DIR")" ]; then
                fail "leftover mounts: $(mounts_under "$TEST_DIR" | tr '\n' ' ')"
                return 1
        fi
        # Read-only look: cgroups named after the container.
        if [ -n "$(find /sys/fs/cgroup -maxdepth 4 -type d -name "*$id*" 2>/dev/null)" ]; then
                fail "leftover cgroup: $(find /sys/fs/cgroup -maxdepth 4 -type d -name "*$id*")"
                return 1
        fi
        return 0
}

# assert_fails_cleanly ID SUBSTRING [HOST-PATH...]: the last `run` failed
# with exit status 1 (runc's), its output names SUBSTRING, and container ID
# left nothing behind.
assert_fails_cleanly() {
        local id=$1 want=$2
        shift 2
        if [ "$status" -ne 1 ]; then
                fail "expected exit status 1 and '$want', got $status; output: $output"
                return 1
        fi
        if [[ $output != *"$want"* ]]; then
                fail "expected '$want' in output (status $status): $output"
                return 1
        fi
        assert_no_leftovers "$id" "$@"
}
