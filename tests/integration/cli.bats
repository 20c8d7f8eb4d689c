#!/usr/bin/env bats
# The command line: --version, spec, features, help, global flags.

load ../helpers

@test "--version prints the version and the runtime-spec version" {
        run sbrun --version
        [ "$status" -eq 0 ]
        [[ ${lines[0]} =~ ^$(basename "$SBRUN")\ version\ [0-9]+\.[0-9]+ ]]
        [[ $output =~ (^|$'\n')spec:\ 1\.[0-9]+\.[0-9]+ ]]
}

@test "--help lists the commands" {
        run sbrun --help
        [ "$status" -eq 0 ]
        for cmd in create start state kill delete run list spec; do
                [[ $output == *"$cmd"* ]]
        done
}

@test "spec writes config.json into the current directory" {
        mkdir "$TEST_DIR/here"
        cd "$TEST_DIR/here"

        run sbrun spec
        [ "$status" -eq 0 ]
        [ -f config.json ]
        [[ $(jq -r .ociVersion config.json) == 1.* ]]
        [ "$(jq -r .root.path config.json)" = rootfs ]
        [ "$(jq -r '.process.args | length' config.json)" -ge 1 ]
        [ "$(jq -r '[.linux.namespaces[].type] | index("pid") != null' config.json)" = true ]
        [ "$(jq -r '[.linux.namespaces[].type] | index("mount") != null' config.json)" = true ]
}

@test "spec --bundle DIR writes DIR/config.json" {
        mkdir "$TEST_DIR/b"
        run sbrun spec --bundle "$TEST_DIR/b"
        [ "$status" -eq 0 ]
        jq -e .ociVersion "$TEST_DIR/b/config.json" >/dev/null
}

@test "spec --rootless adds a user namespace mapping the caller" {
        mkdir "$TEST_DIR/b"
        run sbrun spec --rootless --bundle "$TEST_DIR/b"
        [ "$status" -eq 0 ]
        cfg=$TEST_DIR/b/config.json
        [ "$(jq -r '[.linux.namespaces[].type] | index("user") != null' "$cfg")" = true ]
        [ "$(jq -r '.linux.uidMappings[0].hostID' "$cfg")" = "$(id -u)" ]
        [ "$(jq -r '.linux.gidMappings[0].hostID' "$cfg")" = "$(id -g)" ]
}

@test "the config.json that spec writes runs as is" {
        make_bundle
        rm "$BUNDLE/config.json"
        (cd "$BUNDLE" && sbrun spec)

        # The default program is a shell: with no input it exits at once.
        run sbrun run -b "$BUNDLE" "$ID" </dev/null
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
        # It asks for nothing the standard floor takes away (runc's template
        # asks for CAP_AUDIT_WRITE).
        [ "$(jq -c .process.capabilities.bounding "$BUNDLE/config.json")" = '["CAP_KILL","CAP_NET_BIND_SERVICE"]' ]
        ! grep -q 'process.capabilities' "$TEST_DIR/sbrun.log"
}

@test "features prints the runtime's capabilities as JSON" {
        run sbrun features
        [ "$status" -eq 0 ]
        [[ $(jq -r .ociVersionMin <<<"$output") == 1.* ]]
        [[ $(jq -r .ociVersionMax <<<"$output") == 1.* ]]
        [ "$(jq -r '.mountOptions | index("ro") != null' <<<"$output")" = true ]
        [ "$(jq -r '.linux.namespaces | index("pid") != null' <<<"$output")" = true ]
}

@test "--debug is accepted" {
        make_bundle
        set_args echo debug-ok

        run --separate-stderr sbrun --debug run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = debug-ok ]
}

@test "--root keeps state out of /run/sbrun" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID"
        [ ! -e "/run/sbrun/$ID" ]
        [ -n "$(find "$ROOT" -name "$ID")" ]
}

@test "create --bundle and -b are the same" {
        make_bundle
        set_args echo long-form

        run sbrun run --bundle "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = long-form ]
}

@test "create --no-pivot and --no-new-keyring are accepted" {
        make_bundle
        set_args echo flags-ok

        run sbrun run --no-pivot --no-new-keyring -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = flags-ok ]
}

@test "--pid-file takes a path relative to the current directory" {
        make_bundle
        set_args sleep 1000
        cd "$TEST_DIR"

        detached sbrun create -b "$BUNDLE" --pid-file rel.pid "$ID"
        [ "$(cat "$TEST_DIR/rel.pid")" = "$(container_pid "$ID")" ]
}
