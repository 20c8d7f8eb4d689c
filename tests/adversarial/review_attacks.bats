#!/usr/bin/env bats
# A review of the floor against a hostile config.json (issue #32), as the
# one who writes the bundle: each test is an attack that got through, and
# looks at what the container could do or what the host kept.

load ../helpers
load attack_helpers

teardown() {
        if [ -n "${SWAPPER:-}" ]; then
                kill "$SWAPPER" 2>/dev/null || true
                wait "$SWAPPER" 2>/dev/null || true
        fi
        sb_teardown
}

# The floor's read-only /proc/sys and masked paths lie at /proc only: a
# second proc mount elsewhere was the host's sysctls, writable by the
# container's root (kernel.core_pattern is code run as root on the host).
# The test only opens a sysctl for writing, never writes one.
@test "a proc mount outside /proc is refused: /p2/sys would be the host's writable sysctls" {
        make_bundle
        edit_config '.mounts += [{"destination": "/p2", "type": "proc", "source": "proc"}]'
        set_cmd '(exec 3>>/p2/sys/kernel/printk_ratelimit) && echo SYSCTL-WRITABLE; echo RAN'
        run sbrun run -b "$BUNDLE" "$ID"
        echo "$output"
        [[ $output != *SYSCTL-WRITABLE* ]] || fail "the container could write the host's sysctls"
        [ "$status" -ne 0 ]
        [[ $output == *'mounts[7].destination: /p2 refused (rule: standard: proc only at /proc'* ]]
        [[ $output != *RAN* ]]
        [ -z "$(ls -A "$ROOT")" ] || fail "state left: $(ls -A "$ROOT")"
        run sbrun policy explain --bundle "$BUNDLE"
        [ "$status" -eq 0 ]
        [[ $output == *'refused  mounts[7].destination'* ]] || fail "explain: $output"
        # /proc spelled otherwise is still /proc, where the floor's paths are.
        edit_config '.mounts[7].destination = "//proc/./"'
        set_cmd 'grep " /proc/sys " /proc/self/mountinfo'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *" /proc/sys ro,"* ]]
}

# sysfs read-write is the host's devices and kernel knobs, whose attribute
# files check the file mode only (a PCI device's remove, the host's
# transparent hugepage mode); and the floor's /sys/firmware mask lies at
# /sys only.
@test "sysfs is read-only whatever the config says, and only at /sys" {
        make_bundle
        edit_config '(.mounts[] | select(.type == "sysfs") | .options) = ["nosuid", "noexec", "nodev", "rw"]'
        set_cmd 'grep " /sys " /proc/self/mountinfo'
        run sbrun run -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *" /sys ro,"* ]] || fail "sysfs came up writable"
        grep -q 'requested rw, effective ro (rule: standard: sysfs read-only)' "$TEST_DIR/sbrun.log"
        edit_config '.mounts += [{"destination": "/s2", "type": "sysfs", "source": "sysfs", "options": ["ro"]}]'
        set_cmd 'ls /s2/firmware; echo RAN'
        run sbrun run -b "$BUNDLE" "$ID"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ $output == *'mounts[7].destination: /s2 refused (rule: standard: sysfs only at /sys'* ]]
        [[ $output != *RAN* ]]
}

# A destination under a bind was resolved from the source's path again,
# after the floor had judged what was held open: a source the bundle's
# writer swaps for a symlink in between had sbrun make the destination's
# directories wherever the symlink led (here, in sbrun's own state root,
# which the floor refuses to bind). A race: the old code lost it within a
# few dozen runs on the development machine.
@test "a destination under a bind is made in the directory held, not wherever its path leads by then" {
        make_bundle
        mkdir -p "$TEST_DIR/src/d" "$ROOT/victim"
        ln -s "$ROOT/victim" "$TEST_DIR/swap"
        edit_config '.mounts += [{"destination": "/data", "type": "bind", "source": $src, "options": ["rbind", "rw"]},
                                 {"destination": "/data/made", "type": "tmpfs", "source": "tmpfs"}]' \
                --arg src "$TEST_DIR/src/d"
        set_cmd true
        python3 - "$TEST_DIR/src/d" "$TEST_DIR/swap" <<'EOF' &
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
end = time.time() + 120
while time.time() < end:
    libc.renameat2(-100, a, -100, b, 2)  # RENAME_EXCHANGE
EOF
        SWAPPER=$!
        local i
        for i in $(seq 1 100); do
                sbrun run -b "$BUNDLE" "$ID-$i" >>"$TEST_DIR/runs.log" 2>&1 || true
                [ ! -e "$ROOT/victim/made" ] || fail "run $i made /data/made in the state root"
        done
        kill "$SWAPPER"
        wait "$SWAPPER" 2>/dev/null || true
        SWAPPER=
        rm -rf "$ROOT/victim"
}
