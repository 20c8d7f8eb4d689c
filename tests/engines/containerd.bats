#!/usr/bin/env bats
# containerd 1.6 driving sbrun through its runc shim v2 (ctr run --runtime
# io.containerd.runc.v2 --runc-binary WRAPPER): a private containerd per
# file (tests/engines/lib/containerd.bash), the suite's busybox image
# imported with `ctr images import`, and what the ctr user sees.
#
# On a host without cgroup v2 controllers the wrapper passes the policy
# {"cgroups": {"enforce": false}}, and the cgroup checks expect the clear
# "runs without resource limits" error; in the VM lane (pure cgroup v2, no
# opt-out) they expect the real thing. tests/vm/cgroups-suite.sh runs the
# tests tagged "vm:" there.

load ../helpers
load lib/readme
load lib/containerd

# Waits are longer in the VM lane (TCG runs ~50x slower).
WAIT_SCALE=1
[ "${SBRUN_VM:-}" = 1 ] && WAIT_SCALE=10

setup_file() {
        export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}
        containerd_start
        containerd_import_image
}

teardown_file() {
        local left
        left=$(containerd_leftovers)
        containerd_cleanup
        containerd_stop || left+=" (containerd_stop failed)"
        [ -z "$left" ] || fail "containerd.bats left: $left"
}

setup() {
        ID=ctr$BATS_TEST_NUMBER-$RANDOM
        T=$BATS_TEST_TMPDIR
}

# Each test removes what it made; what is still there (a task, a container,
# a shim, a rootfs mount, a cgroup) fails it. Shims exit a moment after the
# container is gone.
teardown() {
        local left i
        for ((i = 0; i < 50 * WAIT_SCALE; i++)); do
                left=$(containerd_leftovers)
                [ -z "$left" ] && break
                sleep 0.1
        done
        containerd_cleanup
        [ -z "$left" ] || fail "leftover after the test: $left"
}

# cgroups_enforced: sbrun runs with real cgroup limits (the VM lane).
cgroups_enforced() {
        host_has_v2_controllers
}

# ctr_run ARGS...: `ctr run` with the runc shim running sbrun.
ctr_run() {
        ctrd run --runtime "$CTRD_RUNTIME" --runc-binary "$CTRD_WRAPPER" \
                --fifo-dir "$CTRD_DIR/fifo" "$@"
}

# ctr_exec ARGS...: `ctr task exec`, FIFOs in the suite's directory.
ctr_exec() {
        ctrd task exec --fifo-dir "$CTRD_DIR/fifo" "$@"
}

# ctr_run_bg OUT ARGS...: ctr_run in the background, output to OUT; sets
# BG_PID.
ctr_run_bg() {
        local out=$1
        shift
        ctr_run "$@" </dev/null >"$out" 2>&1 &
        BG_PID=$!
}

# detach_run ID ARGS...: `ctr run -d` of ID with ARGS..., its output to
# $T/ID.log (the shim's file logger).
detach_run() {
        local id=$1
        shift
        ctr_run -d --log-uri "file://$T/$id.log" "$CTRD_IMAGE" "$id" "$@" </dev/null
}

# detach_sleep ID: a detached task whose process is `sleep 300` (the
# container's pid 1), started: its init has made way for it.
detach_sleep() {
        detach_run "$1" sh -c 'echo started; exec sleep 300'
        wait_task "$1" RUNNING
        wait_file_has "$T/$1.log" started
        local i pid
        pid=$(task_pid "$1")
        for ((i = 0; i < 50 * WAIT_SCALE; i++)); do
                [ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" = "sleep 300 " ] && return 0
                sleep 0.1
        done
        fail "task $1: pid $pid is not sleep 300: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
}

# remove ID: the task (forced) and the container.
remove() {
        ctrd task delete -f "$1" >/dev/null 2>&1 || true
        ctrd containers delete "$1"
}

# task_status ID: the STATUS column of `ctr task ls` for ID, or "none".
task_status() {
        local s
        s=$(ctrd task ls | awk -v id="$1" '$1 == id { print $3 }')
        echo "${s:-none}"
}

# task_pid ID: the host pid of the task's init process.
task_pid() {
        ctrd task ls | awk -v id="$1" '$1 == id { print $2 }'
}

# wait_task ID STATUS [SECONDS]
wait_task() {
        local i got
        for ((i = 0; i < ${3:-10} * 10 * WAIT_SCALE; i++)); do
                got=$(task_status "$1")
                [ "$got" = "$2" ] && return 0
                sleep 0.1
        done
        fail "task $1 is $got, waited for $2"
}

# pty_bin: tests/helpers/pty_run.c, built on demand.
pty_bin() {
        local bin=$SBRUN_TEST_TMP/pty_run
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/pty_run.c" &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build tests/helpers/pty_run.c"
        fi
        echo "$bin"
}

# ---------------------------------------------------------------------------
# run

@test "ctr run --rm: the container's output, in the image's rootfs" {
        run ctr_run --rm "$CTRD_IMAGE" "$ID" sh -c 'echo hello from $(hostname); cat /etc/passwd | head -n 1; id -u'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *"hello from"* ]]
        [[ $output == *"root:x:0:0"* ]]
        [ "${lines[-1]}" = 0 ]
}

@test "ctr run: the exit code of the container's process" {
        run ctr_run --rm "$CTRD_IMAGE" "$ID" sh -c 'exit 3'
        [ "$status" -eq 3 ] || fail "status $status, want 3: $output"
        run ctr_run --rm "$CTRD_IMAGE" "$ID" /no/such/program
        [ "$status" -ne 0 ] || fail "a missing program ran: $output"
        [[ $output == *"/no/such/program"* ]] || fail "the error does not name the program: $output"
}

# ctr 1.6 loses an EOF that comes before the task is created (its stdin
# closer is set only once NewTask returns), with any runtime: the input ends
# a moment later, as typed input would.
stdin_then_eof() {
        printf 'first\nx\ny\n'
        sleep 2
}

# with_stdin CMD...: CMD with stdin_then_eof as its input.
with_stdin() {
        stdin_then_eof | "$@"
}

@test "ctr run: stdin reaches the container and its EOF ends it" {
        run with_stdin ctr_run --rm "$CTRD_IMAGE" "$ID" sh -c 'read -r l; echo "got [$l]"; cat | wc -l'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "${lines[0]}" = "got [first]" ]
        [ "$(echo "${lines[1]}" | tr -d ' ')" = 2 ]
}

@test "ctr run -t: a terminal, and ctr returns when the process exits" {
        local pty
        pty=$(pty_bin)
        run timeout 60 "$pty" ctr --address "$CTRD_SOCK" --namespace "$CTRD_NS" run -t --rm \
                --runtime "$CTRD_RUNTIME" --runc-binary "$CTRD_WRAPPER" --fifo-dir "$CTRD_DIR/fifo" \
                "$CTRD_IMAGE" "$ID" sh -c 'tty; [ -t 0 ] && echo stdin-is-a-tty; exit 4'
        [ "$status" -ne 124 ] || fail "ctr run -t hung: $output"
        [ "$status" -eq 4 ] || fail "status $status, want 4: $output"
        [[ $output == *"/dev/pts/"* ]] || fail "no pty in the container: $output"
        [[ $output == *"stdin-is-a-tty"* ]]
}

@test "ctr run -d: the task runs detached; task ls, task ps" {
        # The task's pid is the container's process on the host.
        detach_sleep "$ID"
        local pid
        pid=$(task_pid "$ID")
        [ "$(awk '$1 == "NSpid:" { print $3 }' "/proc/$pid/status")" = 1 ] ||
                fail "pid $pid is not pid 1 of the container: $(grep NSpid "/proc/$pid/status")"
        [ "$(stat -L -c %i "/proc/$pid/root/bin/busybox")" = "$(stat -L -c %i "/proc/$pid/exe")" ]
        # The shim asks `sbrun ps --format json`, which reads the cgroup.
        run ctrd task ps "$ID"
        if cgroups_enforced; then
                [ "$status" -eq 0 ] || fail "task ps: $output"
                [[ $output == *"$pid"* ]] || fail "task ps does not list $pid: $output"
        else
                [ "$status" -ne 0 ] || fail "task ps without a cgroup: $output"
                [[ $output == *"has no cgroup: it runs without resource limits"* ]] ||
                        fail "task ps: no clear error: $output"
        fi
        remove "$ID"
        ! kill -0 "$pid" 2>/dev/null || fail "process $pid still runs after task delete -f"
}

# ---------------------------------------------------------------------------
# exec

@test "ctr task exec: output, exit code, a missing program" {
        detach_sleep "$ID"
        run ctr_exec --exec-id e1 "$ID" sh -c 'echo in-exec; cat /proc/1/cmdline | tr "\0" " "; exit 5'
        [ "$status" -eq 5 ] || fail "status $status, want 5: $output"
        [ "${lines[0]}" = in-exec ]
        [ "${lines[1]}" = "sleep 300 " ] || fail "exec is not in the container's pid namespace: $output"
        run ctr_exec --exec-id e2 "$ID" /no/such/program
        [ "$status" -ne 0 ] || fail "a missing program ran: $output"
        run with_stdin ctr_exec --exec-id e3 "$ID" cat
        [ "$status" -eq 0 ] && [ "$output" = "$(printf 'first\nx\ny')" ] || fail "stdin of exec: $status $output"
        remove "$ID"
}

@test "ctr task exec -t: a terminal, and ctr returns" {
        local pty
        pty=$(pty_bin)
        detach_run "$ID" sleep 300
        wait_task "$ID" RUNNING
        run timeout 60 "$pty" ctr --address "$CTRD_SOCK" --namespace "$CTRD_NS" task exec -t \
                --fifo-dir "$CTRD_DIR/fifo" --exec-id t1 "$ID" sh -c 'tty; exit 6'
        [ "$status" -ne 124 ] || fail "ctr task exec -t hung: $output"
        [ "$status" -eq 6 ] || fail "status $status, want 6: $output"
        [[ $output == *"/dev/pts/"* ]] || fail "no pty in the exec: $output"
        remove "$ID"
}

@test "ctr task exec --detach: returns at once, the process runs on" {
        detach_run "$ID" sleep 300
        wait_task "$ID" RUNNING
        # The process outlives the exec by 5 s: an exec that waited for it
        # takes at least that long, one that did not returns well before.
        local t0 ms
        t0=$(date +%s%N)
        run ctr_exec --detach --exec-id d1 "$ID" sh -c 'sleep 5; echo done >/tmp/marker'
        [ "$status" -eq 0 ] || fail "exec --detach: $output"
        ms=$((($(date +%s%N) - t0) / 1000000))
        [ "$ms" -lt 5000 ] || fail "exec --detach waited for the process (${ms} ms)"
        run ctr_exec --exec-id c1 "$ID" cat /tmp/marker
        [ "$status" -ne 0 ] || fail "the marker is there too early: $output"
        local i
        for ((i = 0; i < 150; i++)); do
                run ctr_exec --exec-id "c2-$i" "$ID" cat /tmp/marker
                [ "$status" -eq 0 ] && break
                sleep 0.1
        done
        [ "$output" = done ] || fail "the detached exec did not run: $output"
        remove "$ID"
}

# ---------------------------------------------------------------------------
# signals

@test "ctr task kill: USR1 and TERM reach the process, ctr run exits with its code" {
        ctr_run_bg "$T/out" --rm "$CTRD_IMAGE" "$ID" sh -c \
                'trap "echo got USR1" USR1; trap "echo got TERM; exit 7" TERM; echo ready; while :; do sleep 0.1; done'
        wait_file_has "$T/out" ready 30
        ctrd task kill -s USR1 "$ID"
        wait_file_has "$T/out" "got USR1"
        ctrd task kill "$ID"
        timeout_wait "$BG_PID" 30 || fail "ctr run did not return after TERM"
        [ "$WAIT_STATUS" -eq 7 ] || fail "ctr run exited $WAIT_STATUS, want 7: $(cat "$T/out")"
        grep -q "got TERM" "$T/out"
}

@test "ctr task kill -s KILL: exit status 137" {
        ctr_run_bg "$T/out" --rm "$CTRD_IMAGE" "$ID" sleep 300
        wait_task "$ID" RUNNING 30
        ctrd task kill -s KILL "$ID"
        timeout_wait "$BG_PID" 30 || fail "ctr run did not return after KILL"
        [ "$WAIT_STATUS" -eq 137 ] || fail "ctr run exited $WAIT_STATUS, want 137: $(cat "$T/out")"
}

@test "ctr task delete -f: a running task is killed and removed" {
        detach_run "$ID" sleep 300
        wait_task "$ID" RUNNING
        local pid
        pid=$(task_pid "$ID")
        run ctrd task delete -f "$ID"
        [ "$status" -eq 0 ] || fail "task delete -f: $output"
        [ "$(task_status "$ID")" = none ]
        ! kill -0 "$pid" 2>/dev/null || fail "process $pid still runs"
        ctrd containers delete "$ID"
}

@test "ctr task delete -f of a task that has exited" {
        # The shim kills first and takes sbrun's "container not running"
        # for "gone already"; other words would fail the delete.
        detach_run "$ID" sh -c 'exit 0'
        wait_task "$ID" STOPPED
        run ctrd task delete -f "$ID"
        [ "$status" -eq 0 ] || fail "task delete -f: $output"
        [ "$(task_status "$ID")" = none ]
        ctrd containers delete "$ID"
}

# ---------------------------------------------------------------------------
# cgroups: real in the VM lane, the clear error on a host without them

@test "vm: ctr task pause / resume" {
        detach_run "$ID" sh -c 'i=0; while :; do i=$((i+1)); echo $i >/tmp/count; sleep 0.1; done'
        wait_task "$ID" RUNNING
        run ctrd task pause "$ID"
        if ! cgroups_enforced; then
                [ "$status" -ne 0 ] || fail "pause succeeded without a cgroup"
                [[ $output == *"without resource limits"* ]] || fail "pause: no clear error: $output"
                [ "$(task_status "$ID")" = RUNNING ]
                remove "$ID"
                return 0
        fi
        [ "$status" -eq 0 ] || fail "pause: $output"
        [ "$(task_status "$ID")" = PAUSED ]
        local pid a b
        pid=$(task_pid "$ID")
        # A frozen task sleeps in the freezer's trap (or is stopped), never runs.
        grep -Eq '^State:[[:space:]]+[DST] ' "/proc/$pid/status" ||
                fail "paused task: $(grep '^State:' "/proc/$pid/status")"
        a=$(cat "/proc/$pid/root/tmp/count")
        sleep 1
        b=$(cat "/proc/$pid/root/tmp/count")
        [ "$a" = "$b" ] || fail "the paused task ran on: $a -> $b"
        run ctrd task resume "$ID"
        [ "$status" -eq 0 ] || fail "resume: $output"
        [ "$(task_status "$ID")" = RUNNING ]
        sleep 1
        b=$(cat "/proc/$pid/root/tmp/count")
        [ "$a" != "$b" ] || fail "the resumed task does not run"
        remove "$ID"
}

@test "vm: ctr task metrics" {
        detach_run "$ID" sleep 300
        wait_task "$ID" RUNNING
        run ctrd task metrics "$ID"
        if ! cgroups_enforced; then
                # The shim reads the metrics itself, from the cgroup the
                # task's pid is in (/proc/PID/cgroup), never asking sbrun:
                # on a hybrid host that is the v1 cgroup the shim runs in,
                # shared with the host, without a limit.
                [ "$status" -eq 0 ] || fail "metrics: $output"
                [[ $output == *"memory.usage_in_bytes"* ]] || fail "metrics: $output"
                [[ $output == *"memory.limit_in_bytes    9223372036854771712"* ]] ||
                        fail "metrics show a limit the container does not have: $output"
                remove "$ID"
                return 0
        fi
        [ "$status" -eq 0 ] || fail "metrics: $output"
        [[ $output == *"pids.current"* ]] || fail "no pids.current: $output"
        [[ $output == *"memory.usage"* ]] || fail "no memory usage: $output"
        remove "$ID"
}

# ctr's spec mounts no cgroup file system in the container: the host reads
# the task's cgroup (from /proc/PID/cgroup), as an operator would.
@test "vm: ctr run --memory-limit --cpus: the limits in the task's cgroup" {
        ctr_run -d --memory-limit 67108864 --cpus 0.5 --log-uri "file://$T/$ID.log" \
                "$CTRD_IMAGE" "$ID" sleep 300 </dev/null
        wait_task "$ID" RUNNING
        local pid shim cg mnt
        pid=$(task_pid "$ID")
        shim=$(awk '$1 == "PPid:" { print $2 }' "/proc/$pid/status")
        cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
        mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
        if ! cgroups_enforced; then
                # The operator opted out: the task stays in the shim's cgroup,
                # without the limits.
                [ "$cg" = "$(sed -n 's/^0:://p' "/proc/$shim/cgroup")" ] ||
                        fail "a cgroup of its own without enforcement? $cg"
                remove "$ID"
                return 0
        fi
        [[ $cg == */"$ID" ]] || fail "the task's cgroup is $cg"
        [ "$(cat "$mnt$cg/memory.max")" = 67108864 ]
        [ "$(cat "$mnt$cg/cpu.max")" = "50000 100000" ]
        remove "$ID"
}

@test "vm: an OOM kill is a /tasks/oom event and exit status 137" {
        ctrd events >"$T/events" 2>&1 &
        local ev=$!
        # 64 MiB in a shell variable: bounded, so that the host without a
        # limit only spends that much.
        run ctr_run --rm --memory-limit 33554432 "$CTRD_IMAGE" "$ID" \
                sh -c 'x=$(head -c 67108864 /dev/zero | tr "\0" a); echo ${#x}'
        if ! cgroups_enforced; then
                sleep 1
                kill "$ev"
                wait "$ev" || true
                [ "$status" -eq 0 ] && [ "$output" = 67108864 ] ||
                        fail "without a cgroup the allocation should succeed: $status $output"
                ! grep -q /tasks/oom "$T/events" || fail "an OOM event without a cgroup: $(cat "$T/events")"
                grep -q /tasks/exit "$T/events" || fail "no exit event: $(cat "$T/events")"
                return 0
        fi
        [ "$status" -eq 137 ] || fail "status $status, want 137: $output"
        wait_file_has "$T/events" /tasks/oom
        grep -q /tasks/exit "$T/events" || fail "no exit event: $(cat "$T/events")"
        kill "$ev"
        wait "$ev" || true
}

# ---------------------------------------------------------------------------
# sbrun features, which containerd 2.x runs through the shim (BinaryName
# features) to choose what to put in config.json

# The properties runtime-spec v1.3.0 defines (features.md, features-linux.md):
# the document "MUST NOT contain properties that are not defined in this
# version", ociVersionMax.
FEATURES_PATHS='ociVersionMin ociVersionMax hooks mountOptions annotations
potentiallyUnsafeConfigAnnotations linux linux.namespaces linux.capabilities
linux.cgroup linux.cgroup.v1 linux.cgroup.v2 linux.cgroup.systemd
linux.cgroup.systemdUser linux.cgroup.rdma linux.seccomp linux.seccomp.enabled
linux.seccomp.actions linux.seccomp.operators linux.seccomp.archs
linux.seccomp.knownFlags linux.seccomp.supportedFlags linux.apparmor
linux.apparmor.enabled linux.selinux linux.selinux.enabled linux.intelRdt
linux.intelRdt.enabled linux.intelRdt.schemata linux.intelRdt.monitoring
linux.memoryPolicy linux.memoryPolicy.modes linux.memoryPolicy.flags
linux.mountExtensions linux.mountExtensions.idmap
linux.mountExtensions.idmap.enabled linux.netDevices linux.netDevices.enabled'

@test "sbrun features: runtime-spec 1.3.0 properties only, and true of sbrun" {
        run "$CTRD_WRAPPER" features
        [ "$status" -eq 0 ] || fail "features: $output"
        local doc=$output p
        [ "$(jq -r .ociVersionMin <<<"$doc")" = 1.0.0 ]
        [ "$(jq -r .ociVersionMax <<<"$doc")" = 1.3.0 ]
        # Every property is one the spec defines (annotations' keys are free).
        for p in $(jq -r 'paths | map(tostring) | join(".")' <<<"$doc" |
                grep -v '^annotations\.' | grep -Ev '\.[0-9]+$'); do
                [[ " $(echo $FEATURES_PATHS) " == *" $p "* ]] || fail "features: \"$p\" is not in runtime-spec 1.3.0"
        done
        # What sbrun does: every hook, cgroup v2 through cgroupfs and
        # systemd's system manager (tests/vm/systemd_cgroup.bats), seccomp,
        # AppArmor and SELinux labels (tests/integration/lsm.bats), network
        # devices (tests/integration/net_devices.bats), idmapped mounts as the
        # host's root (tests/integration/idmap.bats, what containerd reads
        # before it sends them); no RDT.
        [ "$(jq -c .hooks <<<"$doc")" = '["prestart","createRuntime","createContainer","startContainer","poststart","poststop"]' ]
        [ "$(jq -c .linux.cgroup <<<"$doc")" = '{"v1":false,"v2":true,"systemd":true,"systemdUser":true,"rdma":true}' ]
        [ "$(jq -r .linux.seccomp.enabled <<<"$doc")" = true ]
        [ "$(jq -c '[.linux.apparmor, .linux.selinux, .linux.intelRdt, .linux.netDevices] | map(.enabled)' <<<"$doc")" = '[true,true,false,true]' ]
        local idmap=false
        [ "$(id -u)" = 0 ] && [ "$(awk '{ print $1 $2 $3 }' /proc/self/uid_map)" = 004294967295 ] && idmap=true
        [ "$(jq -r .linux.mountExtensions.idmap.enabled <<<"$doc")" = "$idmap" ]
        [ "$(jq -r '.mountOptions | index("idmap") != null and index("ridmap") != null' <<<"$doc")" = "$idmap" ]
        [ "$(jq -r '.linux.seccomp | (.supportedFlags - .knownFlags) | length' <<<"$doc")" = 0 ]
        [ "$(jq -r '.linux.seccomp.actions | index("SCMP_ACT_NOTIFY") != null' <<<"$doc")" = true ]
        # Namespaces as sbrun makes them: "time" is parsed but bwrap cannot
        # make it, so it is not claimed.
        [ "$(jq -c '.linux.namespaces | sort' <<<"$doc")" = '["cgroup","ipc","mount","network","pid","user","uts"]' ]
        # Mount options: none that sbrun parses but does not carry out
        # (tests/integration/mounts.bats runs every one that is listed).
        for p in suid dev sync dirsync mand; do
                [ "$(jq -r --arg o "$p" '.mountOptions | index($o) == null' <<<"$doc")" = true ] ||
                        fail "features lists mount option \"$p\", which sbrun does not carry out"
        done
        [ "$(jq -r '.mountOptions | index("tmpcopyup") != null' <<<"$doc")" = true ]
        # Annotations that change what sbrun does (profile, wall clock).
        [ "$(jq -c .potentiallyUnsafeConfigAnnotations <<<"$doc")" = '["run.sbrun."]' ]
        [ "$(jq -r '.annotations["run.sbrun.version"]' <<<"$doc")" = "$("$SBRUN" --version | awk 'NR == 1 { print $NF }')" ]
}

# ---------------------------------------------------------------------------
# the README's snippets, as written

@test "README: the ctr command line runs as written" {
        local cmd
        cmd=$(readme_block "containerd: ctr")
        [[ $cmd == "ctr run "*"--runc-binary /usr/local/bin/sbrun"* ]] || fail "README block: $cmd"
        # The built sbrun (with the suite's policy) for the installed one,
        # the suite's image and containerd for Docker Hub's and the system's.
        cmd=${cmd//\/usr\/local\/bin\/sbrun/$CTRD_WRAPPER}
        cmd=${cmd//docker.io\/library\/busybox:latest/$CTRD_IMAGE}
        cmd="ctr --address $CTRD_SOCK --namespace $CTRD_NS ${cmd#ctr }"
        run ctrd_in_ns bash -c "$cmd"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$output" = "hello from sbrun" ]
}

@test "README: the CRI runtime handler block loads in containerd's CRI plugin" {
        local toml wrapper=$CTRD_WRAPPER
        toml=$(readme_block "cri-runtime-handler")
        [[ $toml == *'runtime_type = "io.containerd.runc.v2"'* ]] || fail "README block: $toml"
        [[ $toml == *'BinaryName = "/usr/local/bin/sbrun"'* ]] || fail "README block: $toml"
        # A second containerd, with the CRI plugin, the default handler a
        # stock config.toml declares, and the README's block (the built sbrun
        # for the installed one).
        toml='[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
'"${toml//\/usr\/local\/bin\/sbrun/$wrapper}"
        (
                containerd_start "$toml" || exit 1
                rc=0
                [ "$(ctrd plugins ls | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $NF }')" = ok ] ||
                        { echo "no CRI plugin: $(ctrd plugins ls)" >&2; rc=1; }
                containerd --config "$CTRD_DIR/config.toml" config dump >"$CTRD_DIR/dump.toml" 2>&1
                grep -A3 'runtimes.sbrun.options\]' "$CTRD_DIR/dump.toml" | grep -F "BinaryName = \"$wrapper\"" ||
                        { echo "the handler is not in the config: $(grep -A8 runtimes.sbrun "$CTRD_DIR/dump.toml")" >&2; rc=1; }
                containerd_stop || rc=1
                exit $rc
        )
}
