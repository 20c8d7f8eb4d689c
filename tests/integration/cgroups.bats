#!/usr/bin/env bats
# cgroups on the host: sbrun fails closed where cgroup v2 controllers are
# missing (a hybrid v1/v2 host like the development machines), and runs
# without limits only when the operator's policy says so. What the limits do
# is tested on real cgroup v2 in the VM lane (tests/vm/cgroups-suite.sh).

load ../helpers

# This file is about the policy itself: no suite-wide --policy.
SB_DEFAULT_POLICY=0

# write_policy JSON [MODE]: a policy file for --policy, owned by root.
write_policy() {
        POLICY=$TEST_DIR/policy.json
        printf '%s\n' "$1" >"$POLICY"
        chmod "${2:-0644}" "$POLICY"
}

needs_hybrid_host() {
        if host_has_v2_controllers; then
                skip "this host has cgroup v2 controllers: covered by the VM lane"
        fi
}

@test "without the opt-out, create fails closed naming the missing controllers, and leaves nothing" {
        needs_hybrid_host
        make_bundle
        set_args sleep 1000
        write_policy '{"cgroups": {"enforce": true}}'

        run detached sbrun --policy "$POLICY" create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "cgroup v2: controllers cpu, memory, pids are not available"
        [[ $output == *"hybrid v1/v2 host"* ]]
        [[ $output == *"\"enforce\": false} in $POLICY"* ]]
        [ -z "$(ls -A "$ROOT")" ]
}

@test "the default policy (no file) fails closed too" {
        needs_hybrid_host
        [ ! -e /etc/sbrun/policy.json ] || skip "/etc/sbrun/policy.json exists on this host"
        make_bundle
        set_args true

        run detached sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "are not available"
        [[ $output == *"/etc/sbrun/policy.json to run without resource limits"* ]]
}

@test "with \"enforce\": false a container runs, warns, and its state says it is unenforced" {
        needs_hybrid_host
        make_bundle
        set_args sleep 1000
        write_policy '{"cgroups": {"enforce": false}}'

        run detached sbrun --policy "$POLICY" create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *"runs WITHOUT resource limits"* ]]
        [[ $output == *"hybrid v1/v2 host"* ]]

        run sbrun state "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r .sbrun.resources <<<"$output")" = unenforced ]
        # sbrun's own marker is no annotation: those are config.json's.
        [ "$(jq -r '.annotations["run.sbrun.resources"] // "none"' <<<"$output")" = none ]
        [ "$(jq -r .status <<<"$output")" = created ]

        # Commands that need a cgroup say why they cannot work.
        for cmd in pause ps update events "events --stats"; do
                # shellcheck disable=SC2086 # "events --stats" is two words
                run sbrun $cmd "$ID"
                [ "$status" -eq 1 ]
                [[ $output == *"has no cgroup: it runs without resource limits"* ]]
        done

        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "an annotation in config.json cannot opt out of enforcement" {
        needs_hybrid_host
        make_bundle
        set_args true
        edit_config '.annotations["run.sbrun.resources"] = "enforced-by-me"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "are not available"
}

@test "a policy file writable by others, or not root's, is refused" {
        make_bundle
        set_args true
        write_policy '{"cgroups": {"enforce": false}}' 0666

        run detached sbrun --policy "$POLICY" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"must be owned by root and not writable by group or others"* ]]
        assert_no_leftovers "$ID"

        chmod 0644 "$POLICY"
        chown 65534 "$POLICY"
        run detached sbrun --policy "$POLICY" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"owner uid 65534"* ]]
        assert_no_leftovers "$ID"
}

@test "a policy with an unknown or mistyped setting is refused" {
        make_bundle
        set_args true
        for bad in '{"cgroups": {"enforced": false}}' '{"cgroup": {"enforce": false}}' \
                '{"cgroups": {"enforce": "no"}}' '{'; do
                write_policy "$bad"
                run detached sbrun --policy "$POLICY" run -b "$BUNDLE" "$ID"
                [ "$status" -eq 1 ]
                [[ $output == *"policy $POLICY"* ]]
                assert_no_leftovers "$ID"
        done
}

@test "--policy naming a missing file is an error" {
        make_bundle
        set_args true
        run detached sbrun --policy "$TEST_DIR/nope.json" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"policy $TEST_DIR/nope.json"* ]]
        assert_no_leftovers "$ID"
}

# refused_everywhere FIELD VALUE RULE: create fails with FIELD: VALUE
# refused (rule: RULE) and leaves nothing; policy explain of the same
# bundle says not allowed, with the same refusal.
refused_everywhere() {
        local want="$1: $2 refused (rule: $3)"
        run detached sbrun --policy "$POLICY" create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "$want"
        run sbrun --policy "$POLICY" policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ]
        [ "$(jq -r .allowed <<<"$output")" = false ]
        jq -e --arg f "$1" --arg v "$2" --arg r "$3" \
                '.changes | any(.action == "refused" and .field == $f and .requested == $v and .rule == $r)' \
                <<<"$output" >/dev/null || fail "explain does not refuse '$want': $output"
}

@test "invalid linux.resources are refused on any host, before anything exists, and explain agrees" {
        make_bundle
        set_args true
        write_policy '{"cgroups": {"enforce": false}}'

        edit_config '.linux.resources.blockIO.weight = 5'
        refused_everywhere linux.resources.blockIO.weight 5 "a blkio weight is 10 to 1000"
        # Decided before any cgroup is looked at: without the opt-out too,
        # on a hybrid host as on any other, the refusal is the error.
        write_policy '{"cgroups": {"enforce": true}}'
        refused_everywhere linux.resources.blockIO.weight 5 "a blkio weight is 10 to 1000"
        write_policy '{"cgroups": {"enforce": false}}'

        edit_config 'del(.linux.resources.blockIO) | .linux.resources.unified = {"../memory.max": "1"}'
        refused_everywhere linux.resources.unified '"../memory.max"' \
                "a key is a cgroup v2 interface file name, controller.file"

        edit_config '.linux.resources.unified = {"cgroup.procs": "1"}'
        refused_everywhere linux.resources.unified '"cgroup.procs"' \
                "cgroup.* files are sbrun's to manage (only cgroup.max.depth and cgroup.max.descendants may be set)"

        edit_config 'del(.linux.resources.unified) | .linux.resources.memory = {"limit": 1000, "swap": 500}'
        refused_everywhere linux.resources.memory.swap "500 (memory.limit 1000)" \
                "memory+swap must not be less than the memory limit"

        edit_config '.linux.resources = {"memory": {"swap": 1048576}}'
        refused_everywhere linux.resources.memory.swap "1048576 (memory.limit 0)" \
                "a swap limit needs a memory limit"

        edit_config '.linux.resources = {"cpu": {"idle": 2}}'
        refused_everywhere linux.resources.cpu.idle 2 "cpu.idle is 0 or 1"

        edit_config '.linux.resources = {"cpu": {"shares": 1024, "idle": 1}}'
        refused_everywhere linux.resources.cpu "shares 1024 and idle 1" \
                "an idle cgroup has no weight: shares and idle 1 exclude each other"

        edit_config '.linux.resources = {"blockIO": {"weightDevice": [{"major": 8, "minor": 0, "weight": 1001}]}}'
        refused_everywhere "linux.resources.blockIO.weightDevice[0].weight" 1001 \
                "a blkio weight is 10 to 1000"

        edit_config '.linux.resources = {"blockIO": {"weightDevice": [{"major": -1, "minor": 0, "weight": 500}]}}'
        refused_everywhere "linux.resources.blockIO.weightDevice[0]" -1:0 \
                "a device number is two 32-bit unsigned numbers"

        edit_config '.linux.resources = {"blockIO": {"throttleReadBpsDevice": [{"major": 8, "minor": 4294967296, "rate": 1}]}}'
        refused_everywhere "linux.resources.blockIO.throttleReadBpsDevice[0]" 8:4294967296 \
                "a device number is two 32-bit unsigned numbers"

        edit_config '.linux.resources = {"hugepageLimits": [{"pageSize": "2M", "limit": 1}]}'
        refused_everywhere "linux.resources.hugepageLimits[0].pageSize" '"2M"' \
                'a page size is written like "2MB"'

        edit_config '.linux.resources = {"rdma": {"mlx/0": {"hcaHandles": 1}}}'
        refused_everywhere linux.resources.rdma '"mlx/0"' \
                "an RDMA device name is one word without '/' or '='"

        edit_config '.linux.resources = {"unified": {"memory": "1"}}'
        refused_everywhere linux.resources.unified '"memory"' \
                "a key is a cgroup v2 interface file name, controller.file"

        # The control: the edges of the same rules, allowed by explain and
        # by create alike.
        edit_config '.linux.resources = {"memory": {"limit": 268435456, "swap": 268435456}, "cpu": {"shares": 1024, "idle": 0}, "blockIO": {"weight": 10, "weightDevice": [{"major": 8, "minor": 0, "weight": 1000}], "throttleReadBpsDevice": [{"major": 8, "minor": 4294967295, "rate": 1}]}, "hugepageLimits": [{"pageSize": "2MB", "limit": 0}], "rdma": {"mlx5_1": {"hcaHandles": 1}}, "unified": {"cgroup.max.depth": "3", "memory.high": "max"}}'
        run sbrun --policy "$POLICY" policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ]
        [ "$(jq -r .allowed <<<"$output")" = true ]
        # Where the container runs without a cgroup (this hybrid host),
        # create takes it too; with cgroup v2 the values would be written
        # and the rdma and device edges name hardware the host may lack.
        if ! host_has_v2_controllers; then
                run detached sbrun --policy "$POLICY" create -b "$BUNDLE" "$ID"
                [ "$status" -eq 0 ]
                run sbrun delete --force "$ID"
                [ "$status" -eq 0 ]
                assert_no_leftovers "$ID"
        fi
}

@test "pause, resume, ps and update of an unknown container fail" {
        for cmd in pause resume ps update; do
                run sbrun $cmd no-such-container
                [ "$status" -eq 1 ]
                [[ $output == *no-such-container* || $output == *"does not exist"* ]]
        done
}

@test "linux.cgroupsPath with .. is refused" {
        make_bundle
        set_args true
        write_policy '{"cgroups": {"enforce": false}}'
        edit_config '.linux.cgroupsPath = "/sbrun/../../etc"'

        run detached sbrun --policy "$POLICY" run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'linux.cgroupsPath: "/sbrun/../../etc": ".." is not allowed'
}
