#!/usr/bin/env bats
# A real kernel without Landlock: the guest of tests/vm/run.sh --no-landlock
# boots Debian's kernel, which has Landlock built in, with its default LSM
# list less landlock, so landlock_create_ruleset answers EOPNOTSUPP as on a
# host whose lsm= leaves it out. What tests/integration/landlock.bats checks
# with tests/helpers/no_landlock.c (a seccomp filter that makes the call
# fail) is checked here on the kernel itself, with real cgroup v2 and no
# opt-out policy: a strict create fails by name and leaves nothing, a
# best-effort policy runs it with a warning, `sbrun check` says Landlock is
# missing, standard does not need it. Run through tests/vm/nolandlock-suite.sh.

load ../helpers
load vm_helpers

# No opt-out policy: the floor as shipped.
SB_DEFAULT_POLICY=0

setup() {
        vm_require_cgroup2
        # Every test first: on a kernel with Landlock they would prove nothing.
        local lsm
        lsm=$(cat /sys/kernel/security/lsm) || fail "no /sys/kernel/security/lsm (securityfs, tests/vm/init.sh)"
        [[ ,$lsm, != *,landlock,* ]] ||
                fail "this kernel has Landlock ($lsm): boot it with tests/vm/run.sh --no-landlock (tests/vm/nolandlock-suite.sh)"
        sb_setup
}

teardown() {
        sb_teardown
}

# container_cgroups: the containers' cgroups sbrun made (cgdir's parent).
container_cgroups() {
        find "$(dirname "$(cgdir)")" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort
}

@test "no landlock: the kernel has it built in but not enabled; AppArmor and the others are on as in the other boots" {
        run cat /sys/kernel/security/lsm
        [ "$status" -eq 0 ] || fail "$output"
        [[ ,$output, == *,apparmor,* ]] || fail "no AppArmor in the LSM list: $output"
        [[ ,$output, != *,landlock,* ]] || fail "Landlock in the LSM list: $output"
        grep -qw 'lsm=[^ ]*' /proc/cmdline || fail "no lsm= on the kernel command line: $(cat /proc/cmdline)"
        # EOPNOTSUPP (built in, not enabled), not ENOSYS (not built in):
        # sbrun's own probe says which.
        run sbrun check
        [[ $(grep '^landlock ' <<<"$output") == *"none: built in but not enabled: add landlock to the kernel's lsm= list"* ]] ||
                fail "$output"
}

@test "no landlock: a strict create fails by name and leaves no state and no cgroup" {
        make_bundle
        edit_config '.annotations["run.sbrun.policy"] = "strict"'
        set_args echo ran
        local before
        before=$(container_cgroups)
        # detached: a create that wrongly succeeded would hold run's pipe.
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "landlock: a container without Landlock refused (rule: strict: Landlock; this kernel has none (built in but not enabled: add landlock to the kernel's lsm= list); \"landlock\": {\"mode\": \"best-effort\"} in /etc/sbrun/policy.json runs without it)"
        [ ! -e "$ROOT/$ID" ] || fail "state dir $ROOT/$ID left: $(ls -la "$ROOT/$ID")"
        [ ! -e "$(cgdir)" ] || fail "cgroup $(cgdir) left"
        [ "$(container_cgroups)" = "$before" ] || fail "cgroups before: $before; after: $(container_cgroups)"
}

@test "no landlock: under strict with landlock.mode best-effort the container starts, with the warning" {
        make_bundle
        edit_config '.annotations["run.sbrun.policy"] = "strict"'
        set_args echo ran
        local policy
        policy=$(policy_with '{"landlock": {"mode": "best-effort"}}' best)
        run detached sbrun --policy "$policy" --log "$TEST_DIR/create.log" create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        grep -qF "landlock: this kernel has none (built in but not enabled: add landlock to the kernel's lsm= list): the container runs without it (rule: landlock.mode best-effort in $policy)" \
                "$TEST_DIR/create.log" || fail "no warning in the log: $(cat "$TEST_DIR/create.log")"
        [ -d "$(cgdir)" ] || fail "no cgroup $(cgdir) for the created container"
        run sbrun state "$ID"
        [ "$(jq -r .status <<<"$output")" = created ] || fail "$output"
        run sbrun --policy "$policy" start "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        run sbrun --policy "$policy" delete --force "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        assert_no_leftovers "$ID"

        # run: the container's own output, the warning in the log.
        run sbrun --policy "$policy" --log "$TEST_DIR/run.log" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] && [ "$output" = ran ] || fail "$output"
        grep -q "landlock: this kernel has none" "$TEST_DIR/run.log" || fail "run: no warning: $(cat "$TEST_DIR/run.log")"
}

@test "no landlock: check says landlock FAIL (not ready) where the policy's profile is strict, warn under standard" {
        run sbrun --policy "$(policy_with '{"floor": {"profile": "strict"}}' strict)" check
        [ "$status" -ne 0 ] || fail "strict: check passed: $output"
        [[ $(grep '^landlock ' <<<"$output") == "landlock "*" FAIL "*"none: built in but not enabled"*"the strict profile needs it" ]] ||
                fail "strict: $output"
        [[ ${lines[-1]} != "ready: "* ]] || fail "strict: $output"

        run sbrun check
        [[ $(grep '^landlock ' <<<"$output") == "landlock "*" warn "*"none: built in but not enabled"* ]] ||
                fail "standard: $output"
}

@test "no landlock: standard without a landlock key runs the container with no warning" {
        make_bundle
        set_args echo ran
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        # stderr is in the output (no --log): "ran" and nothing else.
        [ "$output" = ran ] || fail "$output"
        assert_no_leftovers "$ID"
}
