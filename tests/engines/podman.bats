#!/usr/bin/env bats
# The real podman (4.3.1, rootful, with conmon) driving sbrun: podman's
# everyday commands on the suite's busybox image, each checked as the user
# sees it. The private podman tree (tests/engines/lib/podman.bash) is made
# once for the file and must come out empty: no container, pod, volume,
# process or mount left.
#
# On a hybrid cgroup host the runtime runs under the cgroup opt-out policy:
# resource flags are accepted with a warning and not enforced, and the
# commands that need the container's cgroup (pause, update, stats) fail
# saying so. In the VM lane (pure cgroup v2, no opt-out: SBRUN_VM=1) the
# same tests check that the limits hold.

load ../helpers
load lib/readme
load lib/podman

setup_file() {
        pm_setup_file
}

teardown_file() {
        pm_teardown_file
}

setup() {
        pm_env
}

teardown() {
        pm_clean_tests
}

# in_vm: the VM lane, where cgroup limits are real.
in_vm() {
        [ -z "$PM_POLICY" ]
}

@test "podman run --rm prints the container's output and removes it" {
        run podman run --rm busybox echo hello from sbrun
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$output" = "hello from sbrun" ] || fail "output: $output"
        run podman ps -aq
        [ -z "$output" ] || fail "container left: $output"
        run podman info --format '{{.Host.OCIRuntime.Name}} {{.Host.OCIRuntime.Path}}'
        [ "$output" = "sbrun $PM_RUNTIME" ] || fail "podman's runtime: $output"
}

@test "README: podman --runtime runs a container with sbrun" {
        local cmd
        cmd=$(readme_block 'podman: run')
        [ -n "$cmd" ] || fail "README.md has no podman run snippet after its marker"
        cmd=${cmd//\/usr\/local\/bin\/sbrun/$PM_RUNTIME}
        run eval "$cmd"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$output" = "hello from sbrun" ] || fail "output: $output"
}

# wait_log NAME TEXT [SECONDS]: until `podman logs NAME` shows TEXT.
wait_log() {
        local i
        for ((i = 0; i < ${3:-20} * 10; i++)); do
                podman logs "$1" 2>&1 | grep -qF -- "$2" && return 0
                sleep 0.1
        done
        fail "podman logs $1 never showed '$2': $(podman logs "$1" 2>&1)"
}

# pm_state NAME: the container's status as podman reports it.
pm_state() {
        podman inspect --format '{{.State.Status}}' "$1"
}

@test "podman run: the command's exit code, 126 for a file that is not executable, 127 for a missing one" {
        run podman run --rm busybox sh -c 'exit 3'
        [ "$status" -eq 3 ] || fail "exit 3 gave $status: $output"
        run podman run --rm busybox /etc/passwd
        [ "$status" -eq 126 ] || fail "a non-executable file gave $status: $output"
        [[ $output == *"permission denied"* ]] || fail "output: $output"
        run -127 podman run --rm busybox /no/such/program
        [ "$status" -eq 127 ] || fail "a missing program gave $status: $output"
        [[ $output == *"no such file or directory"* ]] || fail "output: $output"
        run -127 podman run --rm busybox no-such-command
        [ "$status" -eq 127 ] || fail "a command not in PATH gave $status: $output"
        [[ $output == *"executable file not found in \$PATH"* ]] || fail "output: $output"
        run podman ps -aq
        [ -z "$output" ] || fail "container left: $output"
}

@test "podman run -d, logs, ps and top show the running container" {
        run podman run -d --name web busybox sh -c 'echo started; exec sleep 1000'
        [ "$status" -eq 0 ] || fail "run -d: $output"
        wait_log web started
        run podman ps --format '{{.Names}} {{.Status}}'
        [[ $output == "web Up "* ]] || fail "ps: $output"
        [ "$(pm_state web)" = running ] || fail "state: $(pm_state web)"
        run podman top web pid args
        [ "$status" -eq 0 ] || fail "top: $output"
        [[ $output == *"sleep 1000"* ]] || fail "top: $output"
        run podman top web
        [[ $output == *"sleep 1000"* ]] || fail "top (default fields): $output"
}

@test "podman stop: SIGTERM first; SIGKILL once the timeout is over" {
        podman run -d --name polite busybox sh -c \
                'trap "echo got TERM; exit 0" TERM; echo ready; while :; do sleep 0.1; done' >/dev/null
        wait_log polite ready
        run podman stop -t 10 polite
        [ "$status" -eq 0 ] || fail "stop: $output"
        run podman logs polite
        [[ $output == *"got TERM"* ]] || fail "the container did not see SIGTERM: $output"
        [ "$(podman inspect --format '{{.State.ExitCode}}' polite)" = 0 ]

        podman run -d --name stubborn busybox sh -c \
                'trap "echo ignoring TERM" TERM; echo ready; while :; do sleep 0.1; done' >/dev/null
        wait_log stubborn ready
        local t0 ms
        t0=$(date +%s%N)
        run podman stop -t 2 stubborn
        [ "$status" -eq 0 ] || fail "stop: $output"
        ms=$((($(date +%s%N) - t0) / 1000000))
        # SIGKILL comes at the 2 s timeout, not before; 10 s bounds a hang.
        [ "$ms" -ge 2000 ] || fail "stopped after ${ms} ms, before the timeout"
        [ "$ms" -lt 10000 ] || fail "stop took ${ms} ms"
        wait_log stubborn "ignoring TERM"
        [ "$(pm_state stubborn)" = exited ] || fail "state: $(pm_state stubborn)"
        [ "$(podman inspect --format '{{.State.ExitCode}}' stubborn)" = 137 ] ||
                fail "exit code $(podman inspect --format '{{.State.ExitCode}}' stubborn), not 137 (SIGKILL)"
}

@test "podman kill -s delivers the signal; SIGKILL ends the container with 137" {
        podman run -d --name sig busybox sh -c \
                'trap "echo got USR1" USR1; echo ready; while :; do sleep 0.1; done' >/dev/null
        wait_log sig ready
        run podman kill -s USR1 sig
        [ "$status" -eq 0 ] || fail "kill -s USR1: $output"
        wait_log sig "got USR1"
        [ "$(pm_state sig)" = running ]
        run podman kill -s KILL sig
        [ "$status" -eq 0 ] || fail "kill -s KILL: $output"
        run podman wait sig
        [ "$output" = 137 ] || fail "wait: $output"
}

@test "podman restart runs the container again with a new process" {
        podman run -d --name again busybox sh -c 'echo run; exec sleep 1000' >/dev/null
        wait_log again run
        local pid1 pid2
        pid1=$(podman inspect --format '{{.State.Pid}}' again)
        run podman restart -t 1 again
        [ "$status" -eq 0 ] || fail "restart: $output"
        [ "$(pm_state again)" = running ] || fail "state: $(pm_state again)"
        pid2=$(podman inspect --format '{{.State.Pid}}' again)
        [ "$pid1" != "$pid2" ] || fail "same pid $pid1 after restart"
        [ "$(podman logs again | grep -c '^run$')" = 2 ] || fail "logs: $(podman logs again)"
}

@test "podman rm -f removes a running container and its processes" {
        podman run -d --name doomed busybox sleep 1000 >/dev/null
        local pid
        pid=$(podman inspect --format '{{.State.Pid}}' doomed)
        kill -0 "$pid" || fail "no process $pid"
        run podman rm -f -t 1 doomed
        [ "$status" -eq 0 ] || fail "rm -f: $output"
        run podman ps -aq
        [ -z "$output" ] || fail "container left: $output"
        local i
        for ((i = 0; i < 50; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
        done
        ! kill -0 "$pid" 2>/dev/null || fail "process $pid still running"
        [ -z "$(ls "$PM_DIR/sbrun-state")" ] || fail "runtime state left: $(ls "$PM_DIR/sbrun-state")"
}

@test "podman exec: output, exit code, --user, --workdir, --env, -d" {
        podman run -d --name box busybox sleep 1000 >/dev/null
        run podman exec box echo hello
        [ "$output" = hello ] || fail "exec: $output"
        run podman exec box sh -c 'exit 5'
        [ "$status" -eq 5 ] || fail "exit code $status"
        run -127 podman exec box /no/such/program
        [ "$status" -eq 127 ] || fail "a missing program gave $status: $output"
        run podman exec --user 1000:1001 box sh -c 'echo $(id -u):$(id -g)'
        [ "$output" = 1000:1001 ] || fail "--user: $output"
        run podman exec --workdir /etc box pwd
        [ "$output" = /etc ] || fail "--workdir: $output"
        run podman exec --env GREETING=bonjour box sh -c 'echo $GREETING'
        [ "$output" = bonjour ] || fail "--env: $output"
        run podman exec -d box sh -c 'echo detached >/tmp/exec-d'
        [ "$status" -eq 0 ] || fail "exec -d: $output"
        local i
        for ((i = 0; i < 50; i++)); do
                [ "$(podman exec box cat /tmp/exec-d 2>/dev/null)" = detached ] && break
                sleep 0.1
        done
        [ "$(podman exec box cat /tmp/exec-d)" = detached ] || fail "exec -d did not run"
}

@test "podman exec -it and run -it give the process a terminal" {
        local pty
        pty=$(pm_pty_run)
        podman run -d --name term busybox sleep 1000 >/dev/null
        run "$pty" podman --root "$PM_DIR/root" --runroot "$PM_DIR/runroot" exec -it term sh -c 'tty; echo exec-ok'
        [ "$status" -eq 0 ] || fail "exec -it: $output"
        [[ $output == *"/dev/pts/"* ]] || fail "exec -it: no terminal: $output"
        [[ $output == *exec-ok* ]] || fail "exec -it: $output"
        run "$pty" podman --root "$PM_DIR/root" --runroot "$PM_DIR/runroot" run --rm -it busybox sh -c 'tty; stty size; exit 4'
        [ "$status" -eq 4 ] || fail "run -it: status $status: $output"
        [[ $output == *"/dev/pts/0"* ]] || fail "run -it: no terminal: $output"
}

# oci_log NAME: what sbrun logged for the container (podman passes the
# runtime --log FILE --log-format json).
oci_log() {
        cat "$PM_DIR/runroot/overlay-containers/$(podman inspect --format '{{.Id}}' "$1")/userdata/oci-log"
}

# host_cgroup NAME FILE: FILE of the container's own cgroup, read on the
# host (cgroup v2: the path /proc/PID/cgroup names).
host_cgroup() {
        local pid path
        pid=$(podman inspect --format '{{.State.Pid}}' "$1")
        path=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
        cat "/sys/fs/cgroup$path/$2"
}

@test "podman run --memory, --pids-limit, --cpus: enforced with cgroup v2, accepted with a warning without" {
        podman run -d --name limited --memory 64m --pids-limit 50 --cpus 0.5 busybox sleep 1000 >/dev/null
        [ "$(podman inspect --format '{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}} {{.HostConfig.NanoCpus}}' limited)" = \
                "67108864 50 500000000" ] || fail "podman did not record the limits"
        if in_vm; then
                run podman exec limited cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max /sys/fs/cgroup/cpu.max
                [ "$status" -eq 0 ] || fail "cgroup files: $output"
                [ "${lines[0]}" = 67108864 ] || fail "memory.max: $output"
                [ "${lines[1]}" = 50 ] || fail "pids.max: $output"
                [ "${lines[2]}" = "50000 100000" ] || fail "cpu.max: $output"
                [ "$(host_cgroup limited memory.max)" = 67108864 ] || fail "host view of memory.max"
                # 50 processes at most: the 60 sleeps do not all start.
                run podman exec limited sh -c 'for i in $(seq 60); do sleep 30 & done 2>/dev/null; wait'
                [ "$(host_cgroup limited pids.events | awk '/^max/ {print $2}')" -gt 0 ] ||
                        fail "pids.max was never hit: $(host_cgroup limited pids.events)"
        else
                [ "$(pm_state limited)" = running ] || fail "state: $(pm_state limited)"
                run oci_log limited
                [[ $output == *"runs WITHOUT resource limits (linux.resources is not enforced)"* ]] ||
                        fail "sbrun's warning is not in the runtime log: $output"
        fi
}

@test "podman pause/unpause and update: real with cgroup v2; without, a clear 'no cgroup' error" {
        podman run -d --name frozen busybox sleep 1000 >/dev/null
        if in_vm; then
                run podman pause frozen
                [ "$status" -eq 0 ] || fail "pause: $output"
                [ "$(pm_state frozen)" = paused ] || fail "state: $(pm_state frozen)"
                [ "$(host_cgroup frozen cgroup.freeze)" = 1 ] || fail "cgroup.freeze is not 1"
                run podman unpause frozen
                [ "$status" -eq 0 ] || fail "unpause: $output"
                [ "$(pm_state frozen)" = running ] || fail "state: $(pm_state frozen)"
                [ "$(host_cgroup frozen cgroup.freeze)" = 0 ] || fail "cgroup.freeze is not 0"
                # podman 4.3's update has no --pids-limit.
                run podman update --memory 96m --cpus 0.25 frozen
                [ "$status" -eq 0 ] || fail "update: $output"
                run podman exec frozen cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max
                [ "${lines[0]}" = 100663296 ] || fail "memory.max after update: $output"
                [ "${lines[1]}" = "25000 100000" ] || fail "cpu.max after update: $output"
        else
                run podman pause frozen
                [ "$status" -ne 0 ] || fail "pause succeeded without a cgroup"
                [[ $output == *"has no cgroup: it runs without resource limits"* ]] || fail "pause: $output"
                [ "$(pm_state frozen)" = running ] || fail "state: $(pm_state frozen)"
                run podman update --memory 96m frozen
                [ "$status" -ne 0 ] || fail "update succeeded without a cgroup"
                [[ $output == *"has no cgroup: it runs without resource limits"* ]] || fail "update: $output"
        fi
}

@test "podman stats: the container's own cgroup with cgroup v2; without, no cgroup of its own" {
        podman run -d --name counted --memory 64m busybox sleep 1000 >/dev/null
        local pid
        pid=$(podman inspect --format '{{.State.Pid}}' counted)
        if in_vm; then
                run podman stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.PIDs}}' counted
                [ "$status" -eq 0 ] || fail "stats: $output"
                [[ $output == "counted "*" / 67.11MB 1" ]] || fail "stats: $output"
        else
                # podman reads the cgroup itself; the container is in the
                # cgroup it was started from, as sbrun's warning says.
                [ "$(grep -v '^0::' "/proc/$pid/cgroup")" = "$(grep -v '^0::' /proc/self/cgroup)" ] ||
                        fail "the container has cgroups of its own: $(cat "/proc/$pid/cgroup")"
                run podman stats --no-stream --format '{{.Name}}' counted
                [ "$status" -eq 0 ] || fail "stats: status $status: $output"
                # Its row, after podman's own warning that it cannot read the
                # cgroup: not a glob that an error naming the container matches.
                [ "${lines[${#lines[@]} - 1]}" = counted ] || fail "stats: $output"
        fi
}

@test "podman run --memory: over the limit the container is OOM-killed (cgroup v2); without cgroups it is not" {
        # 48 MB in a shell variable, under a 16 MiB limit without swap.
        podman create --name greedy --memory 16m --memory-swap 16m busybox sh -c \
                'x=$(head -c 48000000 /dev/zero | tr "\0" a); echo ${#x}' >/dev/null
        # conmon 2.1.6 marks an OOM kill with a file "oom" in its working
        # directory, which podman 4.3 leaves as its own, and podman looks for
        # it in the bundle (with runc as with sbrun): start from there.
        local bundle
        bundle=$PM_DIR/root/overlay-containers/$(podman inspect --format '{{.Id}}' greedy)/userdata
        (cd "$bundle" && podman start greedy >/dev/null)
        run podman wait greedy
        if in_vm; then
                [ "$output" = 137 ] || fail "exit code $output, not 137 (SIGKILL): $(podman logs greedy 2>&1)"
                [ "$(podman inspect --format '{{.State.OOMKilled}}' greedy)" = true ] ||
                        fail "podman does not see the OOM kill: $(podman inspect --format '{{json .State}}' greedy)"
        else
                [ "$output" = 0 ] || fail "exit code $output: $(podman logs greedy 2>&1)"
                [ "$(podman logs greedy)" = 48000000 ] || fail "logs: $(podman logs greedy 2>&1)"
        fi
}

@test "podman run --read-only: the root is read-only, /tmp and /run are writable" {
        # touch's complaint on the same stream as the echo: conmon reads
        # stdout and stderr through two pipes and may pass them on in either
        # order, which once put the complaint last.
        run podman run --rm --read-only busybox sh -c 'touch /x 2>&1; touch /tmp/x && touch /run/x && echo writable'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *"touch: /x: Read-only file system"* ]] || fail "root writable: $output"
        [[ $output == *writable ]] || fail "/tmp or /run not writable: $output"
}

@test "podman run --tmpfs gives a fresh tmpfs with the image's files" {
        run podman run --rm --tmpfs /etc:size=1m busybox sh -c \
                'grep " /etc " /proc/mounts; cat /etc/passwd | head -1; echo new >/etc/new && cat /etc/new'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ ${lines[0]} == "tmpfs /etc tmpfs "*"size=1024k"* ]] || fail "mount: $output"
        [[ ${lines[1]} == root:* ]] || fail "the image's /etc/passwd was not copied up: $output"
        [ "${lines[2]}" = new ] || fail "not writable: $output"
}

@test "podman run -v: a bind mount and a named volume" {
        local dir=$PM_DIR/bind.$BATS_TEST_NUMBER
        mkdir -p "$dir"
        echo from-host >"$dir/in"
        run podman run --rm -v "$dir:/data" busybox sh -c 'cat /data/in; echo from-container >/data/out'
        [ "$output" = from-host ] || fail "bind: $output"
        [ "$(cat "$dir/out")" = from-container ] || fail "bind: the container's write is not on the host"
        run podman run --rm -v "$dir:/data:ro" busybox sh -c 'echo x >/data/out'
        [[ $output == *"Read-only file system"* ]] || fail ":ro bind writable: $output"
        rm -rf "$dir"

        podman volume create keep >/dev/null
        run podman run --rm -v keep:/vol busybox sh -c 'echo kept >/vol/f'
        [ "$status" -eq 0 ] || fail "volume write: $output"
        run podman run --rm -v keep:/vol busybox cat /vol/f
        [ "$output" = kept ] || fail "volume read: $output"
        podman volume rm keep >/dev/null
}

@test "podman run --init: podman's init is pid 1 and the command its child" {
        run podman run --rm --init busybox sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo; echo $$'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ ${lines[0]} == "/run/podman-init -- sh -c"* ]] || fail "pid 1: $output"
        [ "${lines[1]}" != 1 ] || fail "the command is pid 1: $output"
}

@test "podman run --uidmap: the container's uids map to the range given" {
        run podman run --rm --uidmap 0:200000:65536 --gidmap 0:200000:65536 busybox sh -c \
                'cat /proc/self/uid_map /proc/self/gid_map; id -u'
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$(echo ${lines[0]})" = "0 200000 65536" ] || fail "uid_map: $output"
        [ "$(echo ${lines[1]})" = "0 200000 65536" ] || fail "gid_map: $output"
        [ "${lines[2]}" = 0 ] || fail "id: $output"
}

# podman's :idmap volume asks for the container's own mapping (no mapping
# of the mount's own): disk id 0 becomes the container's root. crun makes
# it; sbrun's floor refuses it by name, since the container's root would
# write files, setuid ones included, as the host's root (docs/policy.md,
# "Idmapped mounts") unless the operator's policy waives the rule
# (floor.volumes.idmap "engine"). A volume idmapped within the container's
# own ids needs a bundle's mounts[].uidMappings (tests/integration/idmap.bats).
# crun 1.8 refuses a hybrid cgroup host: its side runs in the VM lane,
# where the directory is on the guest's ext4 (its /tmp is a tmpfs, which
# Linux 6.1 cannot idmap).
@test "podman run -v SRC:DST:idmap: crun maps the disk's root to the container's; sbrun's floor refuses it by name, and does as crun with floor.volumes.idmap \"engine\"" {
        local dir=$PM_DIR/idmap.$BATS_TEST_NUMBER
        [ "${SBRUN_VM:-0}" = 1 ] && dir=$("$SBRUN_SRCDIR/tests/vm/bundle-fs.sh" ext4)/idmap.$BATS_TEST_NUMBER
        mkdir -p "$dir"
        echo from-host >"$dir/in"
        if in_vm; then
                run podman --runtime /usr/bin/crun run --rm --uidmap 0:200000:65536 --gidmap 0:200000:65536 \
                        -v "$dir:/data:idmap" busybox sh -c 'stat -c %u /data/in; touch /data/out'
                [ "$status" -eq 0 ] || fail "crun: status $status: $output"
                [ "$output" = 0 ] || fail "crun: $output"
                [ "$(stat -c %u "$dir/out")" = 0 ] || fail "crun: out is $(stat -c %u "$dir/out")"
                rm -f "$dir/out"
        fi

        run podman run --rm --uidmap 0:200000:65536 --gidmap 0:200000:65536 \
                -v "$dir:/data:idmap" busybox sh -c 'touch /data/out'
        [ "$status" -ne 0 ] || fail "sbrun ran it: $output"
        [[ $output == *"uidMappings: the container's own mapping, containerID 0 hostID 200000 size 65536 refused (rule: standard: an idmapped mount writes to the disk only ids the container's own user namespace maps)"* ]] ||
                fail "sbrun: $output"
        [ ! -e "$dir/out" ] || fail "sbrun: the container wrote"

        # The operator's waiver, floor.volumes.idmap "engine": sbrun then
        # does what crun does.
        local policy=$PM_DIR/policy-idmap.json wrapper=$PM_DIR/bin/sbrun-idmap
        if [ -n "$PM_POLICY" ]; then
                jq '. * {"floor": {"volumes": {"idmap": "engine"}}}' "$PM_POLICY" >"$policy"
        else
                printf '%s\n' '{"floor": {"volumes": {"idmap": "engine"}}}' >"$policy"
        fi
        chmod 0644 "$policy"
        printf '#!/bin/sh\nexec %s --root %s --policy %s "$@"\n' "$SBRUN" "$PM_DIR/sbrun-state" "$policy" >"$wrapper"
        chmod 0755 "$wrapper"
        run podman --runtime "$wrapper" run --rm --uidmap 0:200000:65536 --gidmap 0:200000:65536 \
                -v "$dir:/data:idmap" busybox sh -c 'stat -c %u /data/in; touch /data/out'
        [ "$status" -eq 0 ] || fail "sbrun with the waiver: status $status: $output"
        # podman may pass on what the runtime said on stderr (the floor's
        # warnings) before the container's output.
        [ "${lines[-1]}" = 0 ] && [ -z "$(grep -v '^sbrun: warning: ' <<<"$output" | grep -vx 0)" ] ||
                fail "sbrun with the waiver: $output"
        [ "$(stat -c %u "$dir/out")" = 0 ] || fail "sbrun with the waiver: out is $(stat -c %u "$dir/out")"
        rm -rf "$dir"
}

@test "podman run --sysctl sets a namespaced sysctl" {
        run podman run --rm --sysctl kernel.msgmax=12345 busybox cat /proc/sys/kernel/msgmax
        [ "$output" = 12345 ] || fail "kernel.msgmax: $output"
        run podman run --rm --sysctl kernel.msgmax=12345 --sysctl net.ipv4.ip_unprivileged_port_start=80 \
                busybox cat /proc/sys/net/ipv4/ip_unprivileged_port_start
        [ "$output" = 80 ] || fail "net.ipv4.ip_unprivileged_port_start: $output"
}

@test "podman run --cap-drop: the capability is gone" {
        run podman run --rm --cap-drop CHOWN busybox sh -c 'grep CapBnd /proc/self/status; chown 1000 /tmp'
        [ "$status" -ne 0 ] || fail "chown worked without CAP_CHOWN: $output"
        [[ $output == *"Operation not permitted"* ]] || fail "$output"
        local bnd=$((16#$(awk '/CapBnd/ {print $2}' <<<"$output")))
        [ $((bnd & 1)) -eq 0 ] || fail "CAP_CHOWN in CapBnd: $output"
        [ $((bnd & (1 << 5))) -ne 0 ] || fail "CAP_KILL dropped too: $output"
}

@test "podman healthcheck run: unhealthy, then healthy" {
        podman run -d --name checked --health-cmd 'test -f /tmp/ok' --health-interval disable \
                --health-retries 1 busybox sleep 1000 >/dev/null
        run podman healthcheck run checked
        [ "$status" -eq 1 ] || fail "status $status: $output"
        [[ $output == *unhealthy* ]] || fail "$output"
        podman exec checked touch /tmp/ok
        run podman healthcheck run checked
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "$(podman inspect --format '{{.State.Health.Status}}' checked)" = healthy ] || fail "health"
}

@test "podman pod: two containers share the pod's ipc, uts and net namespaces; pod stop stops both" {
        run podman pod create --name duo --hostname duo-host
        [ "$status" -eq 0 ] || fail "pod create: $output"
        podman run -d --pod duo --name one busybox sleep 1000 >/dev/null
        podman run -d --pod duo --name two busybox sleep 1000 >/dev/null
        local ns a b
        for ns in ipc uts net; do
                a=$(podman exec one readlink /proc/self/ns/$ns)
                b=$(podman exec two readlink /proc/self/ns/$ns)
                [ -n "$a" ] && [ "$a" = "$b" ] || fail "$ns: one has '$a', two has '$b'"
                [ "$a" != "$(readlink /proc/self/ns/$ns)" ] || fail "$ns: the host's namespace"
        done
        a=$(podman exec one readlink /proc/self/ns/mnt)
        b=$(podman exec two readlink /proc/self/ns/mnt)
        [ "$a" != "$b" ] || fail "mnt: both containers in $a"
        [ "$(podman exec two hostname)" = duo-host ] || fail "hostname: $(podman exec two hostname)"
        run podman pod stop -t 1 duo
        [ "$status" -eq 0 ] || fail "pod stop: $output"
        [ "$(pm_state one) $(pm_state two)" = "exited exited" ] || fail "states: $(pm_state one) $(pm_state two)"
        run podman pod ps --format '{{.Name}} {{.Status}}'
        [ "$output" = "duo Exited" ] || fail "pod ps: $output"
        run podman pod rm duo
        [ "$status" -eq 0 ] || fail "pod rm: $output"
}

@test "podman kube play runs a pod manifest; kube down removes it" {
        cat >"$PM_DIR/kube.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: kubed
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: docker.io/library/busybox:latest
    command: ["sh", "-c", "echo hello from $GREETING; exec sleep 1000"]
    env:
    - name: GREETING
      value: kube
YAML
        run podman kube play "$PM_DIR/kube.yaml"
        [ "$status" -eq 0 ] || fail "kube play: $output"
        wait_log kubed-app "hello from kube"
        [ "$(pm_state kubed-app)" = running ] || fail "state: $(pm_state kubed-app)"
        run podman kube down "$PM_DIR/kube.yaml"
        [ "$status" -eq 0 ] || fail "kube down: $output"
        run podman pod ps -q
        [ -z "$output" ] || fail "pod left: $output"
}

@test "podman run --annotation run.sbrun.policy=strict: no capabilities, read-only root, no network socket, Landlock" {
        # The files podman binds in (/etc/hosts, /dev/shm...) stay writable
        # under Landlock; /proc, which no mount makes a workspace, does not.
        run podman run --rm --annotation run.sbrun.policy=strict busybox sh -c \
                'grep -E "^Cap(Eff|Bnd)" /proc/self/status; touch /x; touch /tmp/x && echo tmp-ok; nc 127.0.0.1 1
                 echo "10.0.0.9 extra" >>/etc/hosts && echo hosts-ok; touch /dev/shm/s && echo shm-ok
                 { echo x >/proc/self/comm; } 2>/dev/null || echo proc-refused'
        [[ $output == *hosts-ok* && $output == *shm-ok* && $output == *proc-refused* ]] ||
                fail "Landlock: $output"
        [[ $output == *"CapEff:	0000000000000000"* ]] || fail "capabilities: $output"
        [[ $output == *"CapBnd:	0000000000000000"* ]] || fail "capabilities: $output"
        [[ $output == *"touch: /x: Read-only file system"* ]] || fail "root writable: $output"
        [[ $output == *tmp-ok* ]] || fail "/tmp not writable: $output"
        [[ $output == *"nc: socket: "* ]] || fail "socket(2) allowed: $output"
        run podman run --rm busybox grep CapEff /proc/self/status
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == "CapEff:	"[0-9a-f]* ]] || fail "no CapEff line: $output"
        [[ $output != *"0000000000000000"* ]] || fail "the standard profile has no capabilities: $output"
}

@test "the floor's deliberate differences: --privileged, --network host, --pid=host and --ipc=host refused, seccomp=unconfined still confined" {
        run -126 podman run --rm --privileged busybox true
        [[ $output == *'annotations["io.podman.annotations.privileged"]: TRUE (podman --privileged) refused (rule: standard: no privileged container)'* ]] ||
                fail "--privileged: $output"
        run -126 podman run --rm --network host busybox true
        [[ $output == *"linux.namespaces: the host network namespace refused (rule: standard: no host network namespace)"* ]] ||
                fail "--network host: $output"
        # --pid=host and --ipc=host: refused, never a new namespace in silence.
        local t
        for t in pid ipc; do
                run -126 podman run --rm "--$t=host" busybox true
                [[ $output == *"linux.namespaces: the host $t namespace refused (rule: standard: no host $t namespace)"* ]] ||
                        fail "--$t=host: $output"
        done
        run podman run --rm --security-opt seccomp=unconfined --cap-add NET_RAW --cap-add MKNOD busybox grep -E '^(Seccomp|CapBnd|NoNewPrivs):' /proc/self/status
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *"Seccomp:	2"* ]] || fail "no seccomp filter: $output"
        [[ $output == *"NoNewPrivs:	1"* ]] || fail "no no_new_privs: $output"
        local bnd
        bnd=$((16#$(awk '/CapBnd/ {print $2}' <<<"$output")))
        # CAP_MKNOD 27, CAP_NET_RAW 13, CAP_AUDIT_WRITE 29, CAP_SETFCAP 31.
        local cap
        for cap in 13 27 29 31; do
                [ $((bnd & (1 << cap))) -eq 0 ] || fail "capability $cap in CapBnd: $output"
        done
        [ $((bnd & 1)) -ne 0 ] || fail "CAP_CHOWN dropped: $output"
}

# pm_notify RUNTIME NAME [PODMAN-RUN-OPTION...]: `podman run -d
# --sdnotify=container` on RUNTIME with NOTIFY_SOCKET pointing at a
# listener that plays systemd (tests/helpers/notify_listener.py); the
# container says STATUS=starting and READY=1 a second in, through
# tests/helpers/sd_notify.c bound into it, unless NOREADY=1 is in its
# environment. Prints what the listener got, one message a line, then
# "exit N" when the container had ended (sd_notify failed: 9).
pm_notify() {
        local runtime=$1 name=$2 sock=$PM_DIR/$2.sock log=$PM_DIR/$2.log bin=$PM_DIR/sd_notify i
        shift 2
        [ -x "$bin" ] || cc -O2 -Wall -static -o "$bin" "$SBRUN_SRCDIR/tests/helpers/sd_notify.c" ||
                fail "cannot build tests/helpers/sd_notify.c"
        start_helper python3 "$SBRUN_SRCDIR/tests/helpers/notify_listener.py" "$sock" "$log"
        local listener=$HELPER_PID
        for ((i = 0; i < 100; i++)); do
                grep -qx ready "$log" 2>/dev/null && break
                sleep 0.1
        done
        NOTIFY_SOCKET=$sock podman --runtime "$runtime" run -d --sdnotify=container --name "$name" \
                -v "$bin:/sd_notify:ro" "$@" busybox \
                sh -c 'sleep 1; [ -z "$NOREADY" ] || exec sleep 1000
                        /sd_notify "STATUS=starting" "READY=1" || exit 9; exec sleep 1000' \
                >"$PM_DIR/$name.out" 2>&1 || fail "podman run on $runtime: $(cat "$PM_DIR/$name.out")"
        for ((i = 0; i < 50; i++)); do
                grep -q READY=1 "$log" && break
                [ "$(pm_state "$name")" = exited ] && break
                sleep 0.1
        done
        grep -vx ready "$log"
        [ "$(pm_state "$name")" = exited ] &&
                echo "exit $(podman inspect --format '{{.State.ExitCode}}' "$name")"
        podman rm -f -t 0 "$name" >/dev/null 2>&1
        kill -KILL -- "-$listener" 2>/dev/null || true
        wait "$listener" 2>/dev/null || true
}

# podman 4.3 never hands NOTIFY_SOCKET to the runtime: it binds a directory
# of its own at /run/notify through the config, sets the process's
# NOTIFY_SOCKET there, and conmon (--sdnotify-socket) passes READY=1 on,
# podman naming conmon as MAINPID. So sbrun's own proxy (notify.bats) takes
# no part; under strict that writable bind needs project quota like any
# other volume, and the allow-list would have no socket(2) for the service
# anyway (README, "What runc 1.2 added").
@test "podman --sdnotify=container: the container's READY=1 reaches podman's NOTIFY_SOCKET, on sbrun as on crun" {
        local got
        got=$(pm_notify "$PM_RUNTIME" notify-sbrun)
        [[ $got == *"MAINPID="*"READY=1 fds=0"* ]] || fail "sbrun: $got"
        [[ $got != *STATUS=* && $got != *exit* ]] || fail "sbrun: $got"
        # READY=1 is the container's own: none without it.
        got=$(pm_notify "$PM_RUNTIME" notify-noready -e NOREADY=1)
        [[ $got == "MAINPID="*" fds=0" ]] || fail "sbrun without READY=1: $got"
        # Under strict podman's writable bind of its notify directory is
        # refused at create, by name (no project quota on it; in the VM lane
        # it is on a tmpfs above the tmp ceiling).
        NOTIFY_SOCKET=$PM_DIR/strict.sock run podman run --rm --sdnotify=container \
                --annotation run.sbrun.policy=strict busybox true
        [ "$status" -ne 0 ] || fail "strict: podman's notify bind was accepted"
        [[ $output == *"/userdata/notify is on a "*"(rule: strict: a writable volume is bounded by project quota"* ]] ||
                fail "strict: $output"
        # crun refuses a hybrid cgroup host: side by side in the VM lane.
        in_vm || return 0
        command -v crun >/dev/null || fail "crun is not installed"
        got=$(pm_notify "$(command -v crun)" notify-crun)
        [[ $got == *"MAINPID="*"READY=1 fds=0"* ]] || fail "crun: $got"
}
