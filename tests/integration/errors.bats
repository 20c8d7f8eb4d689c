#!/usr/bin/env bats
# Bad input: each fails with a message naming the problem, and leaves
# nothing behind.

load ../helpers

@test "invalid JSON fails with 'config.json: invalid JSON'" {
        make_bundle
        echo '{"ociVersion": "1.0.2", "process": {' >"$BUNDLE/config.json"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'config.json: invalid JSON'
}

@test "invalid JSON: run fails the same way" {
        make_bundle
        echo 'not json at all' >"$BUNDLE/config.json"

        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'config.json: invalid JSON'
}

@test "a wrong type names the JSON path" {
        make_bundle
        edit_config '.process.terminal = "yes"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'config.json: process.terminal: expected a boolean'
}

@test "a wrong type deep in linux.resources names the JSON path and the value" {
        make_bundle
        edit_config '.linux.resources.memory.limit = "lots"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'linux.resources.memory.limit'
        [[ $output == *lots* ]]
}

@test "a bundle without config.json fails with 'no such file or directory' naming it" {
        make_bundle
        rm "$BUNDLE/config.json"

        run detached sbrun create -b "$BUNDLE" "$ID"
        [[ ${output,,} == *"no such file or directory"* ]]
        assert_fails_cleanly "$ID" config.json
}

@test "a missing bundle directory fails with 'no such file or directory'" {
        run detached sbrun create -b "$TEST_DIR/no-bundle" "$ID"
        [[ ${output,,} == *"no such file or directory"* ]]
        assert_fails_cleanly "$ID" no-bundle
}

@test "config.json without process is refused by create" {
        make_bundle
        edit_config 'del(.process)'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" process
}

@test "config.json without ociVersion is refused" {
        make_bundle
        edit_config 'del(.ociVersion)'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" ociVersion
}

@test "a duplicate ID fails with 'already exists' and leaves the first container alone" {
        make_bundle
        set_args sleep 1000
        detached sbrun create -b "$BUNDLE" "$ID"
        pid=$(container_pid "$ID")
        before=$(sbrun state "$ID")

        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"already exists"* ]]
        [ "$(sbrun state "$ID")" = "$before" ]
        kill -0 "$pid"
        [ "$(sbrun list -q)" = "$ID" ]
}

@test "a duplicate ID on run fails too and leaves the first container alone" {
        make_bundle
        set_args sleep 1000
        detached sbrun run -d -b "$BUNDLE" "$ID"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"already exists"* ]]
        [ "$(container_status "$ID")" = running ]
}

@test "invalid container IDs are refused: ../x, a/b, empty, dot-dot" {
        make_bundle
        for bad in '../x' 'a/b' '..' '.' 'a b' ''; do
                run detached sbrun create -b "$BUNDLE" "$bad"
                [ "$status" -eq 1 ]
                [[ $output == *"invalid container ID"* || ($bad == "" && $output == *ID*) ]]
        done
        # Nothing was made next to the state root or in the bundle.
        [ -z "$(ls -A "$ROOT")" ]
        [ ! -e "$TEST_DIR/x" ]
        [ ! -e "$ROOT/a" ]
        [ "$(sbrun list -q)" = "" ]
}

@test "a refused container ID is refused with the reason" {
        make_bundle
        local allowed="an ID is letters, digits and _+-., starting with a letter or digit"
        run -1 sbrun create -b "$BUNDLE" ..
        [[ $output == *'invalid container ID "..": "." and ".." are not IDs'* ]]
        run -1 sbrun create -b "$BUNDLE" .
        [[ $output == *'invalid container ID ".": "." and ".." are not IDs'* ]]
        run -1 sbrun create -b "$BUNDLE" ''
        [[ $output == *'invalid container ID "": an ID must not be empty'* ]]
        run -1 sbrun create -b "$BUNDLE" 'a b'
        [[ $output == *"invalid container ID \"a b\": a space (character 2) is not allowed: $allowed"* ]]
        # runc's [+-.] is a range that lets in a comma; sbrun does not.
        run -1 sbrun create -b "$BUNDLE" 'ab,c'
        [[ $output == *"invalid container ID \"ab,c\": ',' (character 3) is not allowed: $allowed"* ]]
        run -1 sbrun create -b "$BUNDLE" "a$(printf '\033')[2Jb"
        [[ $output == *'invalid container ID "a\x1b[2Jb": \x1b (character 2) is not allowed'* ]]
        run -1 sbrun create -b "$BUNDLE" _x
        [[ $output == *"invalid container ID \"_x\": it starts with '_': $allowed"* ]]
        [ -z "$(ls -A "$ROOT")" ]
}

@test "a container ID longer than a unit name allows is refused before anything is made" {
        make_bundle
        local long
        long=$(printf 'a%.0s' {1..1000})
        for cmd in create run; do
                run -1 sbrun $cmd -b "$BUNDLE" "$long"
                # The limit by number, the ID cut short.
                [[ $output == *"invalid container ID \"$(printf 'a%.0s' {1..64})\"...: 1000 characters, longer than the 243 an ID may have"* ]]
                [[ $output != *$(printf 'a%.0s' {1..65})* ]]
        done
        run -1 sbrun create -b "$BUNDLE" "$(printf 'b%.0s' {1..244})"
        [[ $output == *"244 characters, longer than the 243"* ]]
        [ -z "$(ls -A "$ROOT")" ]
        [ -z "$(find "$TEST_DIR" -name 'aaaa*')" ]
        # sbrun-ID.scope is then 255 bytes: the longest ID is a container.
        long=$(printf 'c%.0s' {1..243})
        set_cmd true
        run -0 detached sbrun create -b "$BUNDLE" "$long"
        [ "$(container_status "$long")" = created ]
        run -0 sbrun delete "$long"
}

@test "state, start, kill and delete of an unknown container fail" {
        for cmd in state start kill delete; do
                run sbrun $cmd no-such-container
                [ "$status" -eq 1 ]
                [[ $output == *no-such-container* || $output == *"does not exist"* ]]
        done
        [ -z "$(ls -A "$ROOT")" ]
}

@test "delete --force of an unknown container succeeds quietly" {
        run sbrun delete --force no-such-container
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        # Without --force it is an error, by name.
        run -1 sbrun delete no-such-container
        [[ $output == *'container "no-such-container" does not exist'* ]]
}

@test "start of a stopped container fails" {
        make_bundle
        set_cmd 'exit 0'
        detached sbrun create -b "$BUNDLE" "$ID"
        sbrun start "$ID"
        wait_for_status "$ID" stopped

        run sbrun start "$ID"
        [ "$status" -eq 1 ]
        [ "$(container_status "$ID")" = stopped ]
}

@test "errors go to stderr as 'sbrun: <message>' with exit status 1" {
        make_bundle
        echo '{' >"$BUNDLE/config.json"

        run --separate-stderr detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        [ -z "$output" ]
        [[ ${stderr_lines[-1]} == "sbrun: "*"config.json: invalid JSON"* ]]
        assert_no_leftovers "$ID"
}

@test "--log FILE --log-format json ends with an error line engines can read" {
        make_bundle
        set_args no-such-program

        run detached sbrun --log "$TEST_DIR/log.json" --log-format json create -b "$BUNDLE" "$ID"
        [ "$status" -eq 1 ]
        last=$(tail -n 1 "$TEST_DIR/log.json")
        [ "$(jq -r .level <<<"$last")" = error ]
        [[ $(jq -r .msg <<<"$last") == *'executable file not found in $PATH'* ]]
        # Every line is JSON.
        jq -e . "$TEST_DIR/log.json" >/dev/null
        assert_no_leftovers "$ID"
}

@test "--log FILE with the text format holds the error message" {
        run sbrun --log "$TEST_DIR/log.txt" --log-format text state no-such-container
        [ "$status" -eq 1 ]
        grep -Eq 'no-such-container|does not exist' "$TEST_DIR/log.txt"
}

@test "an unknown command fails with a usage error" {
        run sbrun no-such-command
        [ "$status" -ne 0 ]
        [[ $output == *no-such-command* ]]
}

@test "an unknown option fails" {
        make_bundle
        run detached sbrun create --no-such-option -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *no-such-option* ]]
        assert_no_leftovers "$ID"
}

@test "create without an ID fails" {
        make_bundle
        run detached sbrun create -b "$BUNDLE"
        [ "$status" -ne 0 ]
        [ -z "$(ls -A "$ROOT")" ]
}

@test "a config.json, --process or --resources that is a FIFO is refused by type, not waited on" {
        make_bundle
        mv "$BUNDLE/config.json" "$TEST_DIR/config.json"
        mkfifo "$BUNDLE/config.json"
        # A read of the FIFO would wait for a writer for ever.
        run -1 timeout 20 "${SBRUN_ARGV[@]}" create -b "$BUNDLE" "$ID"
        [[ $output == *"$BUNDLE/config.json: not a regular file (a FIFO)"* ]]
        [ -z "$(ls -A "$ROOT")" ]
        rm "$BUNDLE/config.json"
        mkdir "$BUNDLE/config.json"
        run -1 timeout 20 "${SBRUN_ARGV[@]}" create -b "$BUNDLE" "$ID"
        [[ $output == *"$BUNDLE/config.json: not a regular file (a directory)"* ]]
        rmdir "$BUNDLE/config.json"

        mv "$TEST_DIR/config.json" "$BUNDLE/config.json"
        set_cmd 'sleep 1000'
        run -0 detached sbrun run -d -b "$BUNDLE" "$ID"
        mkfifo "$TEST_DIR/fifo"
        run -1 timeout 20 "${SBRUN_ARGV[@]}" exec --process "$TEST_DIR/fifo" "$ID"
        [[ $output == *"--process: $TEST_DIR/fifo: not a regular file (a FIFO)"* ]]
        run -1 timeout 20 "${SBRUN_ARGV[@]}" update --resources "$TEST_DIR/fifo" "$ID"
        [[ $output == *"--resources: $TEST_DIR/fifo: not a regular file (a FIFO)"* ]]
        # Standard input stays allowed for --resources.
        run timeout 20 "${SBRUN_ARGV[@]}" update --resources - "$ID" <<<'{"pids": {"limit": 100}}'
        [[ $output != *"not a regular file"* ]]
        [ "$(container_status "$ID")" = running ]
}
