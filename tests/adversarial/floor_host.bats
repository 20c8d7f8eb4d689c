#!/usr/bin/env bats
# Attacks on the host from inside a container (docs/policy.md): writes through
# /proc/<pid>/root, reads of host processes and of the kernel's /proc
# files, /proc/sys, TIOCSTI on the terminal the container shares with the
# host, the runtime's binary through /proc/<pid>/exe (CVE-2019-5736) and a
# tmpfs filled to the host's memory. Each runs inside a real container
# under both floor profiles, as root that asked for CAP_SYS_ADMIN and
# CAP_SYS_PTRACE, and the test looks at the host afterwards: an attack
# that "fails" but changed the host is a hole. The attack program is
# tests/helpers/host_attack.c; it prints what it got and never writes
# through a descriptor it should not have.

load ../helpers
load attack_helpers

# host_bundle: a bundle with the attack program in /bin, a writable rootfs
# (strict makes it read-only again) and the capabilities the floor must
# make useless.
host_bundle() {
        local attack
        attack=$(helper_bin host_attack) || return 1
        make_bundle
        cp "$attack" "$BUNDLE/rootfs/bin/host_attack"
        edit_config '.root.readonly = false |
                .process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN", "CAP_SYS_PTRACE"] | .value |= unique)'
}

# run_profile PROFILE [JSON]: `sbrun run` of $BUNDLE under PROFILE with
# the policy JSON merged in (see policy_for).
run_profile() {
        run sbrun --policy "$(policy_for "$@")" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
}

# --- 1. /proc/<pid>/root ----------------------------------------------------

@test "host: writes through /proc/1/root, /proc/self/root and ../ escapes land in the rootfs or fail" {
        host_bundle
        local esc=/var/tmp/sbrun-escape-$ID
        [ ! -e "$esc" ]
        # ".." at a process's root stays at that root, however many there
        # are: the escapes must end in the container's own /var/tmp.
        set_cmd "for p in /proc/1/root/etc/sbrun-x /proc/self/root/etc/sbrun-y \
                        /proc/1/root/../../..$esc /proc/self/root/../../../..$esc-self \
                        /proc/1/cwd/../../..$esc-cwd /proc/1/root/proc/1/root/..$esc-nested \
                        /proc/self/root/tmp/sbrun-tmp; do
                        host_attack write \$p $ID
                done"
        for profile in standard strict; do
                rm -f "$BUNDLE"/rootfs/etc/sbrun-? "$BUNDLE/rootfs$esc"* "$BUNDLE/rootfs/tmp/sbrun-tmp"
                touch "$TEST_DIR/before"
                run_profile $profile
                [ "$status" -eq 0 ]
                echo "$profile: $output"
                [ "${#lines[@]}" -eq 7 ]
                for p in "$esc" "$esc-self" "$esc-cwd" "$esc-nested"; do
                        [ ! -e "$p" ] || fail "$profile: $p was written on the host"
                done
                if [ $profile = standard ]; then
                        # Every write succeeds, inside the bundle's rootfs.
                        [[ $output != *errno=* ]]
                        for p in /etc/sbrun-x /etc/sbrun-y "$esc" "$esc-self" "$esc-cwd" "$esc-nested" /tmp/sbrun-tmp; do
                                [ "$(cat "$BUNDLE/rootfs$p")" = "$ID" ] || fail "standard: $p is not in the rootfs"
                        done
                else
                        # A read-only root (EROFS) but for the /tmp tmpfs, which is
                        # not the bundle's: nothing in the rootfs changed.
                        [ "$(grep -c 'errno=30$' <<<"$output")" -eq 6 ]
                        [[ $output == *"write /proc/self/root/tmp/sbrun-tmp ok"* ]]
                        [ -z "$(find "$BUNDLE/rootfs" -newer "$TEST_DIR/before" -print -quit)" ]
                fi
                assert_no_leftovers "$ID" "$esc" "$esc-self" "$esc-cwd" "$esc-nested"
        done
}

# --- 2. other processes' /proc entries ----------------------------------------

@test "host: a host process's /proc entries are out of reach and the kernel's are masked" {
        host_bundle
        local marker=sbrun-secret-$ID-$RANDOM p
        # bash stays as the parent of sleep, holding the marker in its
        # command line and its environment.
        start_helper env "SBRUN_SECRET=$marker" bash -c "sleep 1000; : $marker"
        local hostpid=$HELPER_PID
        for ((i = 0; i < 50; i++)); do
                grep -qa "$marker" "/proc/$hostpid/environ" 2>/dev/null && break
                sleep 0.1
        done
        # The scan finds it from the host: the marker is there to be found.
        grep -qa "$marker" "/proc/$hostpid/cmdline"
        grep -qa "$marker" "/proc/$hostpid/environ"

        # Read from a file: the container's own command line must not hold it.
        printf '%s' "$marker" >"$BUNDLE/rootfs/marker"
        set_cmd "host_attack scan @/marker
                 if [ -e /proc/$hostpid ]; then echo pid-exists; fi
                 host_attack read /proc/keys /proc/timer_list /proc/sched_debug /proc/kcore \
                        /proc/latency_stats /proc/timer_stats /proc/sysrq-trigger
                 echo acpi=\$(ls -A /proc/acpi 2>/dev/null | wc -l) firmware=\$(ls -A /sys/firmware 2>/dev/null | wc -l)
                 echo kallsyms=\$(grep -cv '^0000000000000000 ' /proc/kallsyms)"
        for variant in spec cleared; do
                # The floor's masked and read-only paths hold whatever the spec
                # lists: here it lists none.
                [ $variant = cleared ] && edit_config 'del(.linux.maskedPaths) | del(.linux.readonlyPaths)'
                for profile in standard strict; do
                        run_profile $profile
                        echo "$profile/$variant: $output"
                        [ "$status" -eq 0 ]
                        [[ $output != *found* ]] || fail "$profile: the host process's marker is readable"
                        [[ $output != *pid-exists* ]]
                        # Only the container's own processes: sh and the scanner.
                        [[ $output == *"scanned "[1-3]$'\n'* ]]
                        # Masked: empty, or absent (this kernel may have none of them).
                        for p in keys timer_list sched_debug kcore latency_stats timer_stats sysrq-trigger; do
                                [[ $output == *"read /proc/$p bytes=0"* ]] || [[ $output == *"read /proc/$p errno="* ]] ||
                                        fail "$profile: /proc/$p leaks"
                        done
                        [[ $output == *"acpi=0 firmware=0"* ]]
                        # No CAP_SYSLOG: kernel addresses read as zero.
                        [[ $output == *"kallsyms=0"* ]]
                        assert_no_leftovers "$ID"
                done
        done
        # What the masks hide is there on the host.
        [ -n "$(head -c 1 /proc/timer_list)" ]
}

# --- 3. /proc/sys and sysrq -----------------------------------------------------

# The host's values the attack tries to change.
sysctl_values() {
        cat /proc/sys/kernel/core_pattern /proc/sys/kernel/panic
}

@test "host: writes to /proc/sys and /proc/sysrq-trigger fail and leave the host's values" {
        host_bundle
        local before panic core
        before=$(sysctl_values)
        core=$(cat /proc/sys/kernel/core_pattern)
        panic=$(($(cat /proc/sys/kernel/panic) + 17))
        # Harmless values if they ever got through: a core file name, a
        # panic timeout, dropping clean caches, sysrq's help.
        set_cmd "host_attack write /proc/sys/kernel/core_pattern sbrun-core-$ID
                 host_attack write /proc/sys/kernel/panic $panic
                 host_attack write /proc/sys/vm/drop_caches 1
                 host_attack write /proc/1/root/proc/sys/kernel/panic $panic
                 host_attack write /proc/sysrq-trigger h
                 grep CapEff /proc/self/status"
        for variant in spec cleared; do
                [ $variant = cleared ] && edit_config 'del(.linux.maskedPaths) | del(.linux.readonlyPaths)'
                for profile in standard strict; do
                        run_profile $profile
                        echo "$profile/$variant: $output"
                        if [ "$(sysctl_values)" != "$before" ]; then
                                # A hole: put the host back before failing.
                                echo "$core" >/proc/sys/kernel/core_pattern
                                echo $((panic - 17)) >/proc/sys/kernel/panic
                                fail "$profile/$variant: the host's sysctls changed: $(sysctl_values)"
                        fi
                        [ "$status" -eq 0 ]
                        [ "$(grep -c ' errno=' <<<"$output")" -eq 5 ]
                        [[ $output != *" ok"* ]]
                        # CAP_SYS_ADMIN (bit 21) was asked for and is not there.
                        cap=$(sed -n 's/^CapEff:[[:space:]]*//p' <<<"$output")
                        [ $((0x$cap & (1 << 21))) -eq 0 ]
                        assert_no_leftovers "$ID"
                done
        done
}

# --- 4. TIOCSTI -------------------------------------------------------------------

# The bytes the container tries to push into a terminal's input queue.
INJECT='echo sbrun-injected'

# expect_no_injection: the last run's TIOCSTI and TIOCLINUX calls, plain
# and with junk in the request's high 32 bits (the kernel reads only the
# low 32), all got EPERM, and nothing reached the queue.
expect_no_injection() {
        local n
        n=$(grep -c '^tiocsti\(-high\)\? rc=-1 errno=1'$'\r''\?$' <<<"$output")
        [ "$n" -eq $((2 * ${#INJECT})) ] || fail "$n TIOCSTI calls got EPERM"
        [ "$(grep -c '^tioclinux\(-high\)\? rc=-1 errno=1'$'\r''\?$' <<<"$output")" -eq 2 ]
        [ -z "$(grep '^tio' <<<"$output" | grep 'rc=0 ')" ]
        [[ $output != *sbrun-injected* ]]
}

@test "host: TIOCSTI on the terminal shared with the host (terminal: false) fails, nothing is queued" {
        local pty_run
        pty_run=$(helper_bin pty_run)
        host_bundle
        # The container's stdin is the runtime's: the test's pty, the
        # controlling terminal of the shell that runs sbrun. The process is
        # in a session of its own (as with runc), so the pty is not its
        # controlling terminal; the floor's filter refuses TIOCSTI anyway.
        set_cmd "[ -t 0 ] && echo stdin=tty; host_attack tiocsti 0 '$INJECT'; echo tty_nr=\$(cut -d' ' -f7 /proc/self/stat) sid=\$(cut -d' ' -f6 /proc/self/stat) pid=\$\$"
        for profile in standard strict; do
                runtime_argv $profile
                run "$pty_run" "${RUNTIME[@]}" run -b "$BUNDLE" "$ID" 3>&-
                echo "$profile: $output"
                [ "$status" -eq 0 ]
                expect_no_injection
                # It shares the host's terminal, which is not its controlling
                # terminal: a new session without one.
                [[ $output == *"stdin=tty"* ]]
                [[ $output =~ tty_nr=([0-9]+)\ sid=([0-9]+)\ pid=([0-9]+) ]]
                [ "${BASH_REMATCH[1]}" -eq 0 ]
                [ "${BASH_REMATCH[2]}" -eq "${BASH_REMATCH[3]}" ]
                # pty_run's own descriptor of the slave: the input queue is empty.
                [[ $output == *"pty_run: status 0 queued 0 read-errno 11"* ]]
                assert_no_leftovers "$ID"
        done
}

@test "host: TIOCSTI on a pty the container made its own controlling terminal fails" {
        host_bundle
        # Here the kernel would allow it (a process may type into its own
        # controlling terminal): EPERM is the floor's.
        set_args host_attack tiocsti-own "$INJECT"
        for profile in standard strict; do
                run_profile $profile
                echo "$profile: $output"
                [ "$status" -eq 0 ]
                [[ $output == *"ctty rc=0 errno=0"* ]]
                expect_no_injection
                [[ $output == *"queued 0"* ]]
                assert_no_leftovers "$ID"
        done
}

@test "host: TIOCSTI on the container's own terminal (terminal: true) fails" {
        local pty_run
        pty_run=$(helper_bin pty_run)
        host_bundle
        edit_config '.process.terminal = true'
        # The pty is sbrun's and the container process's controlling
        # terminal; an injected line would be echoed and show in the output.
        set_cmd "host_attack tiocsti 0 '$INJECT'; sleep 0.2"
        for profile in standard strict; do
                runtime_argv $profile
                run "$pty_run" "${RUNTIME[@]}" run -b "$BUNDLE" "$ID" 3>&-
                echo "$profile: $output"
                [ "$status" -eq 0 ]
                expect_no_injection
                [[ $output == *"pty_run: status 0 queued 0 read-errno 11"* ]]
                assert_no_leftovers "$ID"
        done
}

# --- 5. the runtime's binary through /proc (CVE-2019-5736) ----------------------

# judge_exe_attack LOG ROOTFS...: the attacker's log shows it ran, and every
# executable it could name ("seen") or got a write-capable descriptor of
# ("W": /proc/PID/exe opened O_WRONLY, directly or reopened from O_PATH,
# /proc/PID/mem O_RDWR) is a file of the containers' own rootfs: the
# container's own processes are fair game, the runtime's never.
judge_exe_attack() {
        local log=$1 line dev ino
        shift
        grep -q '^rounds [0-9]* tries [1-9]' "$log" || fail "the attacker did not finish: $(cat "$log")"
        find "$@" -xdev -printf '%D:%i\n' | sort -u >"$TEST_DIR/rootfs.inodes"
        while read -r line; do
                [[ $line =~ dev=([0-9]+)\ ino=([0-9]+) ]] || continue
                dev=${BASH_REMATCH[1]} ino=${BASH_REMATCH[2]}
                grep -qx "$dev:$ino" "$TEST_DIR/rootfs.inodes" ||
                        fail "outside the container: $line ($(find / -xdev -inum "$ino" 2>/dev/null | head -n 3 | tr '\n' ' '))" ||
                        return 1
        done < <(grep -E '^(W|seen) ' "$log")
}

# stop_attacker PROFILE: exec the command that makes the attacker stop. The
# attacker may hold its own rootfs's busybox open for writing for an instant
# (a reopen through /proc/PID/exe once the process that ran it has gone: the
# container's own files are fair game), and an execve of busybox in that
# instant fails with ETXTBSY. That is the container racing itself, not the
# runtime: retry on exactly that error, fail on any other.
stop_attacker() {
        local i
        for ((i = 0; i < 10; i++)); do
                run "${RUNTIME[@]}" exec "$ID" touch /tmp/attack.stop </dev/null 3>&-
                [ "$status" -eq 0 ] && return 0
                [[ $output == *"exec /bin/touch: text file busy"* ]] || break
                sleep 0.1
        done
        fail "$1: stop: $output; $(container_status "$ID") $(cat "$TEST_DIR"/attack.* "$TEST_DIR/sbrun.log")"
}

@test "host: the runtime's processes' /proc/PID/exe and mem are out of reach during exec and start" {
        local bins before pid i id2 b2=$TEST_DIR/bundle2 landlock
        host_bundle
        landlock=$(sbrun check --format json | jq -r '.items[] | select(.item == "landlock") | .status')
        bins=("$SBRUN" "$(command -v bwrap)")
        [ -f "$SBRUN_BUILDDIR/sbrun-init" ] && bins+=("$SBRUN_BUILDDIR/sbrun-init")
        before=$(sha256sum "${bins[@]}")
        # The attacker is the container's process: it loops over every other
        # process of its pid namespace until told to stop.
        set_args host_attack exe /tmp/attack.stop
        # A second container joins that pid namespace: the attacker sees its
        # init from create to start.
        make_bundle "$b2"
        for profile in standard strict; do
                runtime_argv $profile
                "${RUNTIME[@]}" run -d -b "$BUNDLE" "$ID" </dev/null >"$TEST_DIR/attack.out" 2>"$TEST_DIR/attack.err" 3>&-
                for ((i = 0; i < 50; i++)); do
                        grep -q attacking "$TEST_DIR/attack.out" && break
                        sleep 0.1
                done
                grep -q attacking "$TEST_DIR/attack.out" || fail "$profile: no attacker: $(cat "$TEST_DIR"/attack.*)"
                pid=$(container_pid "$ID")

                # exec: sbrun forks into the container's namespaces, then runs
                # sbrun-init from a memfd, which runs the command.
                for ((i = 0; i < 6; i++)); do
                        "${RUNTIME[@]}" exec "$ID" true </dev/null 3>&-
                        "${RUNTIME[@]}" exec "$ID" sh -c 'sleep 0.05' </dev/null 3>&-
                done

                id2=$(new_id)
                # Rootless (tests/rootless/sbrun-as-user), a pid namespace is
                # joined with the user namespace that owns it, as in a rootless
                # podman pod.
                BUNDLE=$b2 edit_config '.linux.namespaces |= map(if .type == "pid" then .path = $p
                        elif .type == "user" then .path = $u else . end) |
                        if $u != "" then del(.linux.uidMappings, .linux.gidMappings) else . end' \
                        --arg p "/proc/$pid/ns/pid" --arg u "${SBRUN_AS_USER:+/proc/$pid/ns/user}"
                run detached "${RUNTIME[@]}" create -b "$b2" "$id2"
                [ "$status" -eq 0 ] || fail "$profile: create in the attacker's pid namespace: $output"
                sleep 0.5
                "${RUNTIME[@]}" start "$id2" 3>&-
                wait_for_status "$id2" stopped
                "${RUNTIME[@]}" delete "$id2" 3>&-

                stop_attacker "$profile"
                wait_for_status "$ID" stopped 20
                "${RUNTIME[@]}" delete "$ID" 3>&-
                echo "$profile: $(cat "$TEST_DIR/attack.out")"
                judge_exe_attack "$TEST_DIR/attack.out" "$BUNDLE/rootfs" "$b2/rootfs"
                # It did meet the runtime's processes (refused: EACCES) and the
                # exec'd commands (seen): the attack had its chance. Under
                # strict, with Landlock, each exec'd process and the second
                # init have a Landlock domain of their own, which the
                # attacker's cannot reach either (docs/design.md, Landlock).
                grep -q '^stat exe-path errno=13 ' "$TEST_DIR/attack.out"
                grep -q '^stat mem-rdwr errno=13 ' "$TEST_DIR/attack.out"
                if [ "$profile" = strict ] && [ "$landlock" = ok ]; then
                        run ! grep -q '^seen ' "$TEST_DIR/attack.out"
                else
                        grep -q '^seen ' "$TEST_DIR/attack.out"
                fi
                assert_no_leftovers "$ID"
                assert_no_leftovers "$id2"
        done
        [ "$(sha256sum "${bins[@]}")" = "$before" ]
}

# --- 6. filling a tmpfs ---------------------------------------------------------

# fill_cmd DIR...: a command that writes 16 MiB of zeros into each DIR and
# prints "DIR STATUS BYTES" (dd fails when the tmpfs is full, or at once on
# a read-only directory).
fill_cmd() {
        local d cmd=""
        for d in "$@"; do
                cmd+="dd if=/dev/zero of=$d/fill bs=1M count=16 2>/dev/null; echo \"$d \$? \$(cat $d/fill 2>/dev/null | wc -c)\"; rm -f $d/fill; "
        done
        echo "$cmd"
}

# expect_capped CAP DIR...: every DIR filled up and stopped at CAP bytes.
expect_capped() {
        local cap=$1 d line
        shift
        for d in "$@"; do
                line=$(grep "^$d " <<<"$output") || fail "no result for $d: $output" || return 1
                read -r _ st bytes <<<"$line"
                [ "$st" -ne 0 ] || fail "$d: dd wrote all 16 MiB (cap $cap)" || return 1
                [ "$bytes" -le "$cap" ] || fail "$d: $bytes bytes written, cap $cap" || return 1
        done
}

@test "host: filling /tmp, /dev and /dev/shm stops at the tmp ceiling under strict" {
        make_bundle
        # strict's own /tmp, bwrap's /dev and the spec's /dev/shm; /var/tmp
        # and /run are on the read-only root.
        set_cmd "$(fill_cmd /tmp /dev /dev/shm /var/tmp /run) df -k /tmp | tail -n 1"
        run_profile strict '{"floor": {"ceilings": {"tmp": "8M"}}}'
        echo "$output"
        [ "$status" -eq 0 ]
        expect_capped $((8 << 20)) /tmp /dev /dev/shm /var/tmp /run
        [ "$(awk '$1 == "tmpfs" { print $2 }' <<<"$output")" = 8192 ]
        assert_no_leftovers "$ID"

        # Without the key: strict's default, 64 MiB.
        set_cmd 'df -k /tmp /dev /dev/shm | tail -n +2'
        run_profile strict
        [ "$status" -eq 0 ]
        [ "$(awk '{ print $2 }' <<<"$output" | sort -u)" = 65536 ]
        assert_no_leftovers "$ID"
}

# inode_fill_cmd DIR...: for each DIR, make empty files until one fails (at
# most 100000) and print "DIR COUNT ERROR", then remove them.
inode_fill_cmd() {
        local d cmd=""
        for d in "$@"; do
                cmd+="i=0; while [ \$i -lt 100000 ] && true 2>/dev/null >$d/inode-fill-\$i; do i=\$((i + 1)); done; "
                cmd+="echo \"$d \$i \$({ true >$d/inode-fill-\$i; } 2>&1)\"; rm -f $d/inode-fill-*; "
        done
        echo "$cmd"
}

@test "host: a million empty files stop at the inode ceiling of /tmp, /dev and /dev/shm with ENOSPC" {
        make_bundle
        set_cmd "$(inode_fill_cmd /tmp /dev /dev/shm)"
        for profile in standard strict; do
                run_profile $profile '{"floor": {"ceilings": {"inodes": 2000}}}'
                echo "$profile: $output"
                [ "$status" -eq 0 ]
                local d line n
                for d in /tmp /dev /dev/shm; do
                        [ $profile = standard ] && [ $d = /tmp ] && continue # the rootfs's /tmp
                        line=$(grep "^$d " <<<"$output") || fail "$profile: no result for $d"
                        read -r _ n _ <<<"$line"
                        [ "$n" -lt 2000 ] || fail "$profile: $d took $n files (ceiling 2000)"
                        [[ $line == *"No space left on device"* ]] || fail "$profile: $line"
                done
                assert_no_leftovers "$ID"
        done

        # Without the key: strict's default, 16k inodes, on each of them.
        set_cmd 'grep -E " /(tmp|dev|dev/shm) tmpfs " /proc/mounts'
        run_profile strict
        [ "$status" -eq 0 ]
        [ "$(grep -c "nr_inodes=16384" <<<"$output")" = 3 ] || fail "$output"
}

# A config without a /dev mount still gets one (as runc gives the default
# nodes): the operator's ceilings hold for it too.
@test "host: the /dev of a config without one is held to lower tmp and inode ceilings" {
        make_bundle
        edit_config '.mounts |= map(select(.destination != "/dev"))'
        set_cmd 'grep " /dev tmpfs " /proc/mounts; ls /dev/null'
        run_profile standard '{"floor": {"ceilings": {"tmp": "8M", "inodes": 1000}}}'
        [ "$status" -eq 0 ] || fail "$output"
        [[ ${lines[0]} == *size=8192k,nr_inodes=1000,* ]] || fail "$output"
        [ "${lines[1]}" = /dev/null ] || fail "$output"
        grep -qF 'mounts./dev: requested tmpfs size=67108864,nr_inodes=16384, effective tmpfs size=8388608,nr_inodes=1000 (rule: standard tmpfs ceilings)' \
                "$TEST_DIR/sbrun.log" || fail "no warning: $(cat "$TEST_DIR/sbrun.log")"
        assert_no_leftovers "$ID"

        # Above runc's 64 MiB and 16384 inodes, those hold, and nothing is said.
        run_profile standard
        [ "$status" -eq 0 ] || fail "$output"
        [[ ${lines[0]} == *size=65536k,nr_inodes=16384,* ]] || fail "$output"
}

@test "host: run.sbrun.workspace under strict: a tmpfs the container may write, full at the size and inode ceilings" {
        make_bundle
        edit_config '.annotations["run.sbrun.workspace"] = "/work"'
        set_cmd "$(fill_cmd /work) $(inode_fill_cmd /work) grep ' /work ' /proc/mounts"
        run_profile strict '{"floor": {"ceilings": {"tmp": "8M", "inodes": 2000}}}'
        echo "$output"
        [ "$status" -eq 0 ]
        expect_capped $((8 << 20)) /work
        local line n
        line=$(grep "^/work [0-9]* " <<<"$output" | tail -n 1)
        read -r _ n _ <<<"$line"
        [ "$n" -gt 1000 ] && [ "$n" -lt 2000 ] || fail "/work took $n files (ceiling 2000)"
        [[ $line == *"No space left on device"* ]] || fail "$line"
        [[ $output == *"tmpfs /work tmpfs rw,nosuid,nodev,"*"size=8192k,nr_inodes=2000"* ]] || fail "$output"
        assert_no_leftovers "$ID"
}

@test "host: a read-only root with tmpfs mounts of no size (podman --read-only) is capped under both profiles" {
        make_bundle
        edit_config '.root.readonly = true |
                .mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["rw", "nosuid", "nodev"]},
                            {"destination": "/var/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["rw", "nosuid", "nodev"]},
                            {"destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["rw", "nosuid", "nodev", "mode=755"]}]'
        set_cmd "$(fill_cmd /tmp /var/tmp /run /dev /dev/shm)"
        for profile in standard strict; do
                run_profile $profile '{"floor": {"ceilings": {"tmp": "8M"}}}'
                echo "$profile: $output"
                [ "$status" -eq 0 ]
                expect_capped $((8 << 20)) /tmp /var/tmp /run /dev /dev/shm
                assert_no_leftovers "$ID"
        done

        # Without the key: standard's default, 1 GiB, not half the host's RAM.
        set_cmd 'df -k /tmp /var/tmp /run | tail -n +2'
        run_profile standard
        [ "$status" -eq 0 ]
        [ "$(awk '{ print $2 }' <<<"$output" | sort -u)" = 1048576 ]
        assert_no_leftovers "$ID"
}

@test "host: a container that fills its workspace (one big file; a million empty files) ends with the verdict workspace_full, naming it" {
        make_bundle
        edit_config '.annotations["run.sbrun.workspace"] = "/work"'
        local log=$TEST_DIR/trail/audit.jsonl policy kind
        policy='{"floor": {"ceilings": {"tmp": "8M", "inodes": 2000}}, "audit": {"log": "'$log'"}}'
        # A user's trail is their own, whatever the policy names.
        [ -z "${SBRUN_AS_USER:-}" ] ||
                log=$(getent passwd "$SBRUN_AS_USER" | cut -d: -f6)/.local/state/sbrun/audit.jsonl
        for kind in space inodes; do
                # Filled and left full: the process fails on ENOSPC, as a
                # build or a download that meets a full disk does.
                if [ $kind = space ]; then
                        set_cmd 'dd if=/dev/zero of=/work/big bs=1M count=100'
                else
                        set_cmd 'i=0; while : >/work/f$i; do i=$((i + 1)); done'
                fi
                run sbrun --policy "$(policy_for strict "$policy")" --log "$TEST_DIR/sbrun.log" \
                        run --verdict-file "$TEST_DIR/verdict.json" -b "$BUNDLE" "$ID-$kind"
                [ "$status" -eq 1 ] || fail "$kind: status $status: $output"
                [[ $output == *"No space left on device"* ]] || fail "$kind: $output"
                run jq -c '[.verdict, .exit_code, [.full[] | select(.path == "/work") | .'$kind']]' \
                        "$TEST_DIR/verdict.json"
                [ "$output" = '["workspace_full",1,[true]]' ] || fail "$kind: $(cat "$TEST_DIR/verdict.json")"
                # The trail's verdict line says the same.
                run jq -c 'select(.event == "verdict" and .id == $id) | [.verdict, (.full | map(.path))]' \
                        --arg id "$ID-$kind" "$log"
                [[ $output == '["workspace_full",["/work"'* ]] || fail "$kind: trail: $output"
                assert_no_leftovers "$ID-$kind"
        done

        # A container that exits 0 with a full tmpfs is "exited", and the
        # verdict still names what was full.
        set_cmd 'dd if=/dev/zero of=/work/big bs=1M count=100 2>/dev/null; exit 0'
        run sbrun --policy "$(policy_for strict "$policy")" --log "$TEST_DIR/sbrun.log" \
                run --verdict-file "$TEST_DIR/verdict.json" -b "$BUNDLE" "$ID"
        [ "$(jq -c '[.verdict, [.full[].path]]' "$TEST_DIR/verdict.json")" = '["exited",["/work"]]' ] ||
                fail "$(cat "$TEST_DIR/verdict.json")"
}
