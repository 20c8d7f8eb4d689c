#!/usr/bin/env bats
# Attacks on the host from inside a container (issue 5): writes through
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
