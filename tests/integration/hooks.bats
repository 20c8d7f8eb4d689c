#!/usr/bin/env bats
# OCI hooks: each kind at its moment, with the state on stdin, in the right
# namespace, and the failure semantics runtime-spec config.md gives.

load ../helpers

# A hook script that records what it got: the state on stdin, its argv,
# environment and mount namespace, into DIR/KIND.*; exits with $3 (default 0).
write_recorder() {
        cat >"$1" <<'SCRIPT'
#!/bin/sh
kind=$1 dir=$2
cat >"$dir/$kind.state"
readlink /proc/self/ns/mnt >"$dir/$kind.mnt"
echo "$*" >"$dir/$kind.args"
env >"$dir/$kind.env"
echo "output of $kind"
exit "${3:-0}"
SCRIPT
        chmod 0755 "$1"
}

# hooks_bundle [EXTRA-JQ]: every kind records; runtime-side ones into
# $TEST_DIR/rec, startContainer (resolved in the container) into its /.
hooks_bundle() {
        make_bundle
        set_cmd 'sleep 1000'
        mkdir -p "$TEST_DIR/rec"
        write_recorder "$TEST_DIR/hook.sh"
        write_recorder "$BUNDLE/rootfs/hook.sh"
        edit_config '.root.readonly = false |
                def h(k; d): {path: $host, args: ["hook.sh", k, d], env: ["HOOK_KIND=" + k]};
                .hooks = {
                  prestart: [h("prestart"; $rec)],
                  createRuntime: [h("createRuntime"; $rec)],
                  createContainer: [h("createContainer"; "/")],
                  startContainer: [{path: "/hook.sh", args: ["hook.sh", "startContainer", "/"],
                                    env: ["HOOK_KIND=startContainer"]}],
                  poststart: [h("poststart"; $rec)],
                  poststop: [h("poststop"; $rec)] }' \
                --arg host "$TEST_DIR/hook.sh" --arg rec "$TEST_DIR/rec"
        [ -z "${1:-}" ] || edit_config "$1" --arg host "$TEST_DIR/hook.sh" --arg rec "$TEST_DIR/rec"
}

@test "each hook kind runs once, at its moment, with the state on stdin, in its namespace" {
        hooks_bundle
        local host_mnt init_pid init_mnt
        host_mnt=$(readlink /proc/self/ns/mnt)

        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        init_pid=$(container_pid "$ID")
        init_mnt=$(readlink "/proc/$init_pid/ns/mnt")
        # create: prestart, createRuntime (runtime namespace), createContainer
        # (the container's); nothing of start yet.
        [ "$(cat "$TEST_DIR/rec/createRuntime.mnt")" = "$host_mnt" ]
        [ "$(cat "$TEST_DIR/rec/prestart.mnt")" = "$host_mnt" ]
        [ "$(cat "$BUNDLE/rootfs/createContainer.mnt")" = "$init_mnt" ]
        [ "$(jq -r .status "$TEST_DIR/rec/createRuntime.state")" = creating ]
        [ "$(jq -r .pid "$TEST_DIR/rec/createRuntime.state")" = "$init_pid" ]
        [ "$(jq -r .id "$BUNDLE/rootfs/createContainer.state")" = "$ID" ]
        [ "$(cat "$TEST_DIR/rec/createRuntime.args")" = "createRuntime $TEST_DIR/rec" ]
        grep -qx HOOK_KIND=createRuntime "$TEST_DIR/rec/createRuntime.env"
        run ! grep -q '^HOME=' "$TEST_DIR/rec/createRuntime.env"
        [ ! -e "$BUNDLE/rootfs/startContainer.state" ]
        [ ! -e "$TEST_DIR/rec/poststart.state" ]

        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        [ "$(cat "$BUNDLE/rootfs/startContainer.mnt")" = "$init_mnt" ]
        [ "$(jq -r .status "$BUNDLE/rootfs/startContainer.state")" = created ]
        [ "$(jq -r .status "$TEST_DIR/rec/poststart.state")" = running ]
        [ "$(cat "$TEST_DIR/rec/poststart.mnt")" = "$host_mnt" ]
        [ ! -e "$TEST_DIR/rec/poststop.state" ]
        # Hook output goes to sbrun's log, never to the container's stdio.
        grep -q "output of poststart" "$TEST_DIR/sbrun.log"

        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r .status "$TEST_DIR/rec/poststop.state")" = stopped ]
        assert_no_leftovers "$ID"
}

@test "hooks see exactly the config's annotations, also when the container runs without a cgroup" {
        hooks_bundle '.annotations = {"org.example/a": "1", "run.sbrun.verdict": "forged"}'

        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        for kind in createRuntime poststart; do
                [ "$(jq -c .annotations "$TEST_DIR/rec/$kind.state")" = \
                        '{"org.example/a":"1","run.sbrun.verdict":"forged"}' ] ||
                        fail "$kind saw $(jq -c .annotations "$TEST_DIR/rec/$kind.state")"
        done
        [ "$(jq -c .annotations "$BUNDLE/rootfs/startContainer.state")" = \
                '{"org.example/a":"1","run.sbrun.verdict":"forged"}' ]
        # sbrun's own facts are in "sbrun", apart.
        run sbrun state "$ID"
        if ! host_has_v2_controllers; then
                [ "$(jq -r .sbrun.resources <<<"$output")" = unenforced ]
        fi
        [ "$(jq -r '.sbrun.verdict // "none"' <<<"$output")" = none ]
}

# A failing hook of KIND fails create and leaves nothing behind.
create_hook_fails() {
        hooks_bundle ".hooks.$1[0].args += [\"3\"]"
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "hooks.$1[0]"
        [[ $output == *"exit status 3"* ]]
}

@test "a failing prestart hook fails create and leaves nothing" {
        create_hook_fails prestart
}

@test "a failing createRuntime hook fails create and leaves nothing" {
        create_hook_fails createRuntime
}

@test "a failing createContainer hook fails create and leaves nothing" {
        create_hook_fails createContainer
}

@test "a failing startContainer hook fails start and stops the container" {
        hooks_bundle '.hooks.startContainer[0].args += ["3"]'
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]

        run sbrun start "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"hooks.startContainer[0]"*"exit status 3"* ]]
        wait_for_status "$ID" stopped
        [ ! -e "$TEST_DIR/rec/poststart.state" ]
        run sbrun delete "$ID"
        assert_no_leftovers "$ID"
}

@test "a failing poststart hook fails start and stops the container; later ones do not run" {
        hooks_bundle '.hooks.poststart = [
                {path: $host, args: ["hook.sh", "poststart1", $rec, "3"]},
                {path: $host, args: ["hook.sh", "poststart2", $rec]}]'
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        local pid
        pid=$(container_pid "$ID")

        # runtime-spec 1.3: the runtime fails the operation and stops the
        # container (runc kills it), which a warning did not.
        run sbrun start "$ID"
        [ "$status" -ne 0 ] || fail "start succeeded: $output"
        [[ $output == *"hooks.poststart[0]"*"exit status 3"* ]] || fail "start: $output"
        [ -e "$TEST_DIR/rec/poststart1.state" ]
        [ ! -e "$TEST_DIR/rec/poststart2.state" ]
        # Stopped when start returns: no process left of it.
        [ "$(container_status "$ID")" = stopped ]
        [ ! -e "/proc/$pid" ] || [ "$(awk '{print $3}' "/proc/$pid/stat")" = Z ] ||
                fail "the container process $pid still runs"
        run sbrun delete "$ID"
        [ "$status" -eq 0 ]
        [ "$(jq -r .status "$TEST_DIR/rec/poststop.state")" = stopped ]
        assert_no_leftovers "$ID"
}

@test "run fails on a failing poststart hook and leaves nothing" {
        hooks_bundle '.hooks.poststart[0].args += ["3"]'
        # Short, so that a run that ignores the failure ends and is seen.
        set_cmd 'sleep 2'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ] || fail "run succeeded: $output"
        [[ $output == *"hooks.poststart[0]"*"exit status 3"* ]] || fail "run: $output"
        assert_no_leftovers "$ID"
}

@test "a failing poststop hook is a warning; delete still removes everything" {
        hooks_bundle '.hooks.poststop = [
                {path: $host, args: ["hook.sh", "poststop1", $rec, "3"]},
                {path: $host, args: ["hook.sh", "poststop2", $rec]}]'
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]

        run sbrun delete --force "$ID"
        [ "$status" -eq 0 ]
        [ -e "$TEST_DIR/rec/poststop1.state" ]
        [ -e "$TEST_DIR/rec/poststop2.state" ]
        grep -q 'level=warning msg="hooks.poststop\[0\] (output: output of poststop1): hook .*: exit status 3"' \
                "$TEST_DIR/sbrun.log"
        assert_no_leftovers "$ID"
}

@test "a hung hook is killed at its timeout and fails create" {
        hooks_bundle '.hooks.createRuntime = [{path: "/bin/sh", timeout: 1,
                args: ["sh", "-c", "echo $$ > " + $rec + "/hung.pid; exec sleep 100"]}]'
        local start=$SECONDS

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "killed after its timeout of 1 s"
        # Generous: the bound is the timeout, not this machine's speed.
        [ $((SECONDS - start)) -lt 30 ]
        local pid
        pid=$(cat "$TEST_DIR/rec/hung.pid")
        [ ! -e "/proc/$pid" ] || [ "$(awk '{print $3}' "/proc/$pid/stat")" = Z ]
}
