#!/usr/bin/env bats
# AppArmor and SELinux on a host that enables neither (the development
# machines): the labels a config or exec asks for are dropped with a warning
# naming them, as runc drops them, and the container is otherwise the same.
# tests/vm/lsm.bats shows an AppArmor profile confining a container.

load ../helpers

PROFILE=sbrun-test
LABEL=system_u:system_r:container_t:s0:c1,c2
MOUNT_LABEL=system_u:object_r:container_file_t:s0:c1,c2

# Loud, not a skip, if this host enables an LSM: the file tests the other path.
require_no_lsm() {
        if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ] ||
                [ -e /sys/fs/selinux/enforce ]; then
                fail "this host enables AppArmor or SELinux: lsm.bats tests a host without them"
        fi
}

# warned LOG TEXT: TEXT is in LOG, as printed or as --log quotes it (\").
warned() {
        grep -qF -- "$2" "$1" || grep -qF -- "${2//\"/\\\"}" "$1" ||
                fail "no warning \"$2\" in: $(cat "$1")"
}

with_labels() {
        edit_config '.process.apparmorProfile = $p | .process.selinuxLabel = $l |
                .linux.mountLabel = $m' --arg p "$PROFILE" --arg l "$LABEL" --arg m "$MOUNT_LABEL"
}

# What an LSM label could change that the container's process can see.
PROBE='grep -E "^(Cap|NoNewPrivs|Seccomp)" /proc/self/status
awk "{ print \$5, \$6, \$9, \$10, \$11 }" /proc/self/mountinfo
cat /proc/self/attr/current 2>&1 || true'

@test "without AppArmor or SELinux the labels are ignored with a warning naming each" {
        require_no_lsm
        make_bundle
        set_cmd "$PROBE"
        run sbrun --log "$TEST_DIR/plain.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run without labels: $output"
        local plain=$output

        with_labels
        run sbrun --log "$TEST_DIR/lsm.log" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run with labels: $output"
        # Nothing else changes: the same capabilities, filter and mounts.
        [ "$output" = "$plain" ] || fail "with labels: $output; without: $plain"
        warned "$TEST_DIR/lsm.log" \
                "process.apparmorProfile: \"$PROFILE\" ignored: AppArmor is not enabled on this host"
        warned "$TEST_DIR/lsm.log" \
                "process.selinuxLabel: \"$LABEL\" ignored: SELinux is not enabled on this host"
        warned "$TEST_DIR/lsm.log" \
                "linux.mountLabel: \"$MOUNT_LABEL\" ignored: SELinux is not enabled on this host"
        run ! grep -q 'ignored' "$TEST_DIR/plain.log"

        # policy explain says the same of the same bundle: each label
        # dropped, and allowed.
        run sbrun policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ]
        [ "$(jq -r .allowed <<<"$output")" = true ]
        local field
        for field in process.apparmorProfile process.selinuxLabel linux.mountLabel; do
                jq -e --arg f "$field" '.changes | any(.field == $f and .action == "dropped")' \
                        <<<"$output" >/dev/null || fail "explain does not drop $field: $output"
        done
}

@test "exec with --apparmor and --process-label runs, warning that they are ignored" {
        require_no_lsm
        make_bundle
        set_cmd 'sleep 1000'
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run -d: $output"

        run sbrun --log "$TEST_DIR/exec.log" exec --apparmor "$PROFILE" --process-label "$LABEL" \
                "$ID" echo confined-as-asked
        [ "$status" -eq 0 ] || fail "exec: $output"
        [ "$output" = confined-as-asked ]
        warned "$TEST_DIR/exec.log" "process.apparmorProfile: \"$PROFILE\" ignored"
        warned "$TEST_DIR/exec.log" "process.selinuxLabel: \"$LABEL\" ignored"
}

@test "exec inherits the container's labels, and a --process document may carry its own" {
        require_no_lsm
        make_bundle
        set_cmd 'sleep 1000'
        with_labels
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run -d: $output"

        run sbrun --log "$TEST_DIR/inherit.log" exec "$ID" echo inherited
        [ "$status" -eq 0 ] || fail "exec: $output"
        [ "$output" = inherited ]
        warned "$TEST_DIR/inherit.log" "process.apparmorProfile: \"$PROFILE\" ignored"

        jq -n --arg p other-profile '{args: ["echo", "own"], cwd: "/", user: {uid: 0, gid: 0},
                env: ["PATH=/bin:/usr/bin"], apparmorProfile: $p}' >"$TEST_DIR/process.json"
        run sbrun --log "$TEST_DIR/own.log" exec --process "$TEST_DIR/process.json" "$ID"
        [ "$status" -eq 0 ] || fail "exec --process: $output"
        [ "$output" = own ]
        warned "$TEST_DIR/own.log" 'process.apparmorProfile: "other-profile" ignored'
}

@test "features reports AppArmor and SELinux support" {
        run sbrun features
        [ "$status" -eq 0 ]
        [ "$(jq -r '.linux.apparmor.enabled, .linux.selinux.enabled' <<<"$output" | tr '\n' ' ')" = "true true " ]
}
