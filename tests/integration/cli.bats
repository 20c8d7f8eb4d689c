#!/usr/bin/env bats
# The command line: --version, spec, features, help, global flags.

load ../helpers

@test "--version prints the version and the runtime-spec version" {
        run sbrun --version
        [ "$status" -eq 0 ]
        [[ ${lines[0]} =~ ^$(basename "$SBRUN")\ version\ [0-9]+\.[0-9]+ ]]
        [[ $output =~ (^|$'\n')spec:\ 1\.[0-9]+\.[0-9]+ ]]
}

@test "--version names the commit, libseccomp and bubblewrap, as runc and crun" {
        run sbrun --version
        [ "$status" -eq 0 ]
        [[ ${lines[0]} =~ ^$(basename "$SBRUN")\ version\ [0-9]+\.[0-9]+\.[0-9]+$ ]] ||
                fail "first line: ${lines[0]}"
        grep -Eqx 'spec: 1\.3\.0' <<<"$output" || fail "no spec line in: $output"
        grep -Eqx 'libseccomp: [0-9]+\.[0-9]+\.[0-9]+' <<<"$output" ||
                fail "no libseccomp line in: $output"
        # The bwrap sbrun runs (config.h), asked at run time; sbrun check says the same.
        grep -Eqx 'bubblewrap: ([0-9]+\.[0-9]+\.[0-9]+|not found)' <<<"$output" ||
                fail "no bubblewrap line in: $output"
        local bwrap want
        bwrap=$(sed -n 's/^#define SBRUN_BWRAP_PATH "\(.*\)"$/\1/p' "$SBRUN_BUILDDIR/config.h")
        if [ -x "$bwrap" ]; then
                want=$("$bwrap" --version | sed -n '1s/^bubblewrap //p')
                grep -qx "bubblewrap: $want" <<<"$output" || fail "bwrap says $want: $output"
        fi
        # The commit built from: this checkout's when the tree is one (-dirty
        # when it held changes), else "unknown" from a tarball.
        local commit
        commit=$(sed -n 's/^commit: //p' <<<"$output")
        [ -n "$commit" ] || fail "no commit line in: $output"
        if [ "$SBRUN" = "$SBRUN_BUILDDIR/sbrun" ] &&
                want=$(git -C "$SBRUN_SRCDIR" rev-parse --short HEAD 2>/dev/null); then
                [ "${commit%-dirty}" = "$want" ] || fail "commit $commit, HEAD is $want"
        fi
}

@test "--help lists the commands" {
        run sbrun --help
        [ "$status" -eq 0 ]
        # Each as a line of the Commands list ("  run   create and start..."),
        # not a word inside another ("sbrun" holds "run").
        for cmd in create start state kill delete run list spec check exec ps pause resume update features; do
                grep -Eq "^  $cmd +[a-z]" <<<"$output" || fail "no '$cmd' line in: $output"
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
        run ! grep -q 'process.capabilities' "$TEST_DIR/sbrun.log"
        # The template meets the standard floor: no floor warning at all. (On
        # a host without cgroup v2 the one that limits are not enforced is
        # true and stays.)
        [ -s "$TEST_DIR/sbrun.log" ] || host_has_v2_controllers
        run grep -i warn "$TEST_DIR/sbrun.log"
        [ -z "$(grep -v 'runs WITHOUT resource limits' <<<"$output")" ] || fail "floor warnings: $output"
}

@test "features prints the runtime's capabilities as JSON" {
        run sbrun features
        [ "$status" -eq 0 ]
        [[ $(jq -r .ociVersionMin <<<"$output") == 1.* ]]
        [[ $(jq -r .ociVersionMax <<<"$output") == 1.* ]]
        [ "$(jq -r '.mountOptions | index("ro") != null' <<<"$output")" = true ]
        [ "$(jq -r '.linux.namespaces | index("pid") != null' <<<"$output")" = true ]
        # cgroup v2 only, with the device controller as an eBPF program.
        [ "$(jq -c '.linux.cgroup | [.v1, .v2]' <<<"$output")" = '[false,true]' ]
        [ "$(jq -r '.annotations["run.sbrun.cgroup.devices"]' <<<"$output")" = ebpf ]
}

@test "features is true of sbrun: runtime-spec 1.3.0, the user's systemd, RDMA, net devices, no RDT or NUMA policy" {
        run sbrun features
        [ "$status" -eq 0 ]
        # 1.3.0: every field of 1.3 has its decision (docs/policy.md).
        [ "$(jq -r .ociVersionMax <<<"$output")" = 1.3.0 ]
        # A rootless caller's cgroup goes through its own systemd --user
        # (runtime/cgroup/systemd_scope.c); rdma limits are written to rdma.max.
        [ "$(jq -c .linux.cgroup <<<"$output")" = '{"v1":false,"v2":true,"systemd":true,"systemdUser":true,"rdma":true}' ]
        # What spec/floor_spec_fields.c refuses is not claimed; network
        # devices are moved (those the operator's policy names).
        [ "$(jq -c '[.linux.intelRdt.enabled, .linux.netDevices.enabled]' <<<"$output")" = '[false,true]' ]
        # Idmapped mounts are made as root, of the host or of a user
        # namespace, never by a user (idmap.bats).
        if [ -z "${SBRUN_AS_USER:-}" ] && [ "$(id -u)" = 0 ]; then
                [ "$(jq -r .linux.mountExtensions.idmap.enabled <<<"$output")" = true ]
        else
                [ "$(jq -r .linux.mountExtensions.idmap.enabled <<<"$output")" = false ]
        fi
        [ "$(jq -c .linux.memoryPolicy <<<"$output")" = '{"modes":[],"flags":[]}' ]
        # Recursive read-only is carried out (sbrun-init's mount_setattr);
        # rrw, which would clear what the host set, is refused: not claimed.
        [ "$(jq -r '.mountOptions | index("rro") != null' <<<"$output")" = true ]
        [ "$(jq -r '.mountOptions | index("rrw")' <<<"$output")" = null ]
}

@test "--debug logs debug messages, to the --log file or else to stderr" {
        make_bundle
        set_args echo debug-ok

        # Without --debug: no debug line (so that the checks below mean something).
        run --separate-stderr sbrun --log "$TEST_DIR/plain.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = debug-ok ]
        run ! grep -q 'level=debug' "$TEST_DIR/plain.log"

        # With a log file: debug lines there (create logs the bwrap command
        # line), none on stderr, and the container's stdout untouched.
        run --separate-stderr sbrun --debug --log "$TEST_DIR/debug.log" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ]
        [ "$output" = debug-ok ]
        [ -z "$stderr" ] || fail "stderr with --log: $stderr"
        grep -q '^time=".*" level=debug msg="bwrap arg: ' "$TEST_DIR/debug.log" ||
                fail "no debug line in the log: $(cat "$TEST_DIR/debug.log")"

        # Without a log file (--log ""): on stderr.
        run --separate-stderr sbrun --debug --log "" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ]
        [ "$output" = debug-ok ]
        [[ $stderr == *"sbrun: debug: bwrap arg: "* ]] || fail "no debug line on stderr: $stderr"
}

@test "--root keeps state out of /run/sbrun" {
        make_bundle
        set_args sleep 1000

        detached sbrun create -b "$BUNDLE" "$ID"
        [ ! -e "/run/sbrun/$ID" ]
        [ -n "$(find "$ROOT" -name "$ID")" ]
}

@test "the demo (README's first command) leaves nothing in /run" {
        # In a mount namespace of its own over an empty /run: whatever the
        # demo makes there is seen, and the host's /run is not touched.
        run -0 unshare -m --propagation private bash -c '
                mount -t tmpfs tmpfs /run || exit 9
                cd "$1" && SBRUN="$1/sbrun" "$2/tests/lib/demo.sh" "$3" </dev/null 3>&- || exit
                echo "in /run: $(ls -A /run)"' _ "$SBRUN_BUILDDIR" "$SBRUN_SRCDIR" "$TEST_DIR/demo"
        [[ $output == *"hello from sbrun"* ]]
        [[ $output == *"in /run: " ]] || fail "$output"
        # Its state root is in its work directory, and empty.
        [ -z "$(ls "$TEST_DIR/demo/state")" ]
}

@test "create --bundle and -b are the same" {
        make_bundle
        set_args echo same-bundle
        # No config.json here: an option that were ignored could not fall
        # back on the current directory.
        cd "$TEST_DIR"

        run sbrun run --bundle "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "--bundle: $output"
        local long=$output
        run sbrun run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "-b: $output"
        [ "$output" = "$long" ] || fail "--bundle printed '$long', -b '$output'"
        [ "$long" = same-bundle ]
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

# The sizes are read before the container is looked up: one that is taken
# gets as far as the lookup (common/size_parse.h, with runc's "b" and -1).
@test "update takes runc's sizes: 512, 64k, 64m, 64mb, 1t, 0, -1" {
        local size
        for size in 512 64k 64m 64mb 64MB 512b 1t 8388607t 0 -1; do
                run sbrun update --memory "$size" no-such-container
                [ "$status" -eq 1 ] || fail "--memory $size: $output"
                [ "$output" = 'sbrun: container "no-such-container" does not exist' ] ||
                        fail "--memory $size: $output"
        done
}

# Bad usage, as runc: exit status 1, a message naming the command and what
# is wrong, and nothing made. Rows: ARGS|EXPECTED (ID and BUNDLE are this
# test's). The bundle is a real one: an option that were ignored would let
# create or run go through and leave state in --root.
@test "bad usage of every command exits 1, says what is wrong and leaves nothing" {
        make_bundle
        # Not the source tree: a spec that went through would write here.
        cd "$TEST_DIR"
        local args want out bad=""
        while IFS='|' read -r args want; do
                [ -n "$args" ] || continue
                args=${args//ID/$ID}
                args=${args//BUNDLE/$BUNDLE}
                # shellcheck disable=SC2086 # the row's words
                run detached sbrun $args
                out=$output
                if [ "$status" -ne 1 ] || [[ $out != *"$want"* ]]; then
                        bad+="  sbrun $args: exit status $status, expected 1 and '$want'; output: $out"$'\n'
                fi
                if [ -n "$(ls -A "$ROOT")" ]; then
                        bad+="  sbrun $args: left $(ls -A "$ROOT" | tr '\n' ' ')in --root"$'\n'
                fi
        done <<'EOF'
create --bogus -b BUNDLE ID|create: unknown option "--bogus"
create -x -b BUNDLE ID|create: unknown option "-x"
create -b BUNDLE --bundle|create: option "--bundle" needs a value
create -b BUNDLE|create: container ID is required
start --bogus ID|start: unknown option "--bogus"
start|start: container ID is required
state --bogus ID|state: unknown option "--bogus"
state|state: container ID is required
kill --bogus ID|kill: unknown option "--bogus"
kill|kill: container ID is required
delete --bogus ID|delete: unknown option "--bogus"
delete|delete: container ID is required
run --bogus -b BUNDLE ID|run: unknown option "--bogus"
run -b BUNDLE --timeout|run: option "--timeout" needs a value
run -b BUNDLE|run: container ID is required
list --bogus|list: unknown option "--bogus"
list --format|list: option "--format" needs a value
spec --bogus|spec: unknown option "--bogus"
spec --bundle|spec: option "--bundle" needs a value
features --bogus|features: unknown option "--bogus"
features extra|features: unexpected argument "extra"
exec --bogus ID true|exec: unknown option "--bogus"
exec --cwd|exec: option "--cwd" needs a value
exec|exec: container ID is required
ps --bogus ID|ps: unknown option "--bogus"
ps|ps: container ID is required
pause --bogus ID|pause: unknown option "--bogus"
pause|pause: container ID is required
resume --bogus ID|resume: unknown option "--bogus"
resume|resume: container ID is required
update --bogus ID|update: unknown option "--bogus"
update --memory|update: option "--memory" needs a value
update|update: container ID is required
update --memory -5 ID|--memory: "-5" is not a size (like 512m, or -1)
update --memory +5 ID|--memory: "+5" is not a size (like 512m, or -1)
update --memory-reservation 1.5g ID|--memory-reservation: "1.5g" is not a size (like 512m, or -1)
update --memory-swap 8388608t ID|--memory-swap: "8388608t" is too large a size
update --kernel-memory 17179869184G ID|--kernel-memory: "17179869184G" is too large a size
update --kernel-memory-tcp 18446744073709551615 ID|--kernel-memory-tcp: "18446744073709551615" is too large a size
policy --bogus|policy: unknown option "--bogus"
policy|policy: expected "show" or "explain"
policy nosuchsub|policy: unknown subcommand "nosuchsub"
policy explain --bogus|policy explain: unknown option "--bogus"
policy explain --bundle|policy explain: option "--bundle" needs a value
events --bogus ID|events: unknown option "--bogus"
events|events: container ID is required
events a b|events: expected one container ID, got 2 arguments
events --interval|events: option "--interval" needs a value
events --interval 5 ID|events: --interval: "5" is not a duration like 5s or 500ms
events --interval 1x ID|events: --interval: "1x" is not a duration like 5s or 500ms
events --interval 0s ID|events: --interval: the duration must be greater than 0
check --bogus|check: unknown option "--bogus"
check --format|check: option "--format" needs a value
check --format yaml|check: --format: "yaml" is not text or json
check extra|check: unexpected argument "extra"
checkpoint --bogus ID|checkpoint: unknown option "--bogus"
checkpoint|checkpoint: container ID is required
checkpoint --manage-cgroups-mode hard ID|checkpoint: --manage-cgroups-mode "hard": soft, full, strict or ignore
checkpoint --empty-ns pid ID|checkpoint: --empty-ns "pid": only network is supported (as runc)
checkpoint --lazy-pages ID|checkpoint: --lazy-pages is not supported by sbrun
checkpoint --page-server 1.2.3.4:5 ID|checkpoint: --page-server is not supported by sbrun
restore --bogus ID|restore: unknown option "--bogus"
restore|restore: container ID is required
restore --console-socket /s ID|restore: --console-socket: sbrun does not restore a container with a terminal
restore --lsm-profile p ID|restore: --lsm-profile is not supported by sbrun
restore --manage-cgroups-mode hard ID|restore: --manage-cgroups-mode "hard": soft, full, strict or ignore
restore -no-subreaper --lazy-pages ID|restore: --lazy-pages is not supported by sbrun
restore -no-pivot ID|restore: unknown option "-n"
EOF
        [ -z "$bad" ] || fail $'bad usage not refused as expected:\n'"$bad"
}
