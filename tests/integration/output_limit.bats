#!/usr/bin/env bats
# Output limits of a foreground `run`: how much of the container's stdout
# and stderr reaches the caller, and how the end is reported when a stream
# passes its limit (spec/floor_output_limit.c, runtime/container/output_cap.h,
# runtime/container/verdict.h).

load ../helpers

MiB=1048576

# The timing bounds below: the documented 2 s settle bound plus three times
# control_ms (tests/helpers.bash) plus 2 s of slack as the upper; the lower
# is what the container would take without the kill (its background child
# sleeps 60 s).

verdict_of() { # FIELD
        jq -r ".$1" "$TEST_DIR/verdict.json"
}

# run_capped ARGS...: `sbrun ARGS` with its stdout and stderr in files
# ($TEST_DIR/out, $TEST_DIR/err; what the caller received, counted in
# bytes), its status in $rc and its wall time in $elapsed (ms).
run_capped() {
        local t0
        t0=$(now_ms)
        rc=0
        sbrun "$@" </dev/null >"$TEST_DIR/out" 2>"$TEST_DIR/err" || rc=$?
        elapsed=$(($(now_ms) - t0))
}

bytes() {
        stat -c %s "$1"
}

# A policy with limits.output = $1, on top of the suite's (which may opt
# out of cgroups on a hybrid host).
output_policy() {
        policy_with "{\"limits\": {\"output\": \"$1\"}}" output
}

# The command of the flood tests: it ignores SIGTERM and leaves a child in
# the background that would outlive it by a minute. The flood is `yes`,
# bounded (64 MiB unless $2 says) so that a run whose cap does not work
# ends (and fails) instead of filling the disk.
flood_cmd() { # yes's redirection, bytes
        echo "trap '' TERM; (trap '' TERM; sleep 60) & yes | head -c ${2:-67108864} $1"
}

@test "output limit: yes capped at 1 MiB ends with output_limit (stdout), exactly 1 MiB forwarded, nothing left, within the settle bound" {
        make_bundle
        set_cmd "$(flood_cmd)"
        local control
        control=$(control_ms)

        run_capped run -b "$BUNDLE" --output-limit 1M --verdict-file "$TEST_DIR/verdict.json" "$ID"

        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        [ "$(bytes "$TEST_DIR/out")" -eq $MiB ] || fail "forwarded $(bytes "$TEST_DIR/out") bytes"
        [ "$(head -c 4 "$TEST_DIR/out")" = "$(printf 'y\ny\n')" ]
        [ "$(verdict_of verdict)" = output_limit ] || fail "$(cat "$TEST_DIR/verdict.json")"
        [ "$(verdict_of stream)" = stdout ]
        [ "$(verdict_of bytes)" = $MiB ]
        [ "$(verdict_of exit_code)" = 125 ]
        grep -q 'output limit of stdout reached (1048576 bytes)' "$TEST_DIR/err" "$TEST_DIR/sbrun.log" ||
                fail "no warning: $(cat "$TEST_DIR/err")"
        # The flood reaches 1 MiB in well under a second: run returns within
        # the 2 s settle bound after it, far below the 60 s it would take
        # without the kill.
        [ "$elapsed" -lt $((2000 + 3 * control + 2000)) ] || fail "run took ${elapsed} ms (control ${control} ms)"
        [ "$elapsed" -lt 60000 ]
        assert_no_leftovers "$ID"
}

@test "output limit: a stderr flood ends with output_limit naming stderr, stdout untouched" {
        make_bundle
        set_cmd "echo hello; $(flood_cmd '>&2')"
        local control
        control=$(control_ms)

        run_capped run -b "$BUNDLE" --stderr-limit 64k --verdict-file "$TEST_DIR/verdict.json" "$ID"

        [ "$rc" -eq 125 ] || fail "status $rc"
        [ "$(cat "$TEST_DIR/out")" = hello ]
        # sbrun's own warning goes to its stderr after the 64 KiB of y's.
        [ "$(head -c 65536 "$TEST_DIR/err" | tr -d 'y\n' | wc -c)" -eq 0 ]
        [ "$(tail -c +65537 "$TEST_DIR/err" | head -c 1)" != y ] || fail "more than 64 KiB of stderr forwarded"
        [ "$(verdict_of verdict)" = output_limit ]
        [ "$(verdict_of stream)" = stderr ]
        [ "$(verdict_of bytes)" = 65536 ]
        [ "$elapsed" -lt $((2000 + 3 * control + 2000)) ] || fail "run took ${elapsed} ms (control ${control} ms)"
        assert_no_leftovers "$ID"
}

@test "output limit: output under the cap is forwarded byte for byte (binary), verdict exited" {
        make_bundle
        head -c 300000 /dev/urandom >"$BUNDLE/rootfs/data.bin"
        head -c 200000 /dev/urandom >"$BUNDLE/rootfs/data2.bin"
        # The last line of stderr says what the container's stdio was:
        # run's pipes, not the caller's files.
        set_cmd 'cat /data.bin; cat /data2.bin >&2; readlink /proc/$$/fd/1 >&2; readlink /proc/$$/fd/2 >&2; exit 3'

        run_capped run -b "$BUNDLE" --output-limit 300000 --verdict-file "$TEST_DIR/verdict.json" "$ID"

        [ "$rc" -eq 3 ] || fail "status $rc: $(tail -c 300 "$TEST_DIR/err")"
        [ "$(sha256sum <"$TEST_DIR/out")" = "$(sha256sum <"$BUNDLE/rootfs/data.bin")" ] ||
                fail "stdout differs: $(bytes "$TEST_DIR/out") bytes"
        [ "$(head -c 200000 "$TEST_DIR/err" | sha256sum)" = "$(sha256sum <"$BUNDLE/rootfs/data2.bin")" ] ||
                fail "stderr differs"
        [[ "$(tail -c +200001 "$TEST_DIR/err")" == "pipe:["*$'\n'"pipe:["* ]] ||
                fail "the container's stdio was not run's pipes: $(tail -c +200001 "$TEST_DIR/err")"
        [ "$(verdict_of verdict)" = exited ]
        [ "$(verdict_of exit_code)" = 3 ]
        [ "$(verdict_of stream)" = null ]
        assert_no_leftovers "$ID"
}

@test "output limit: a caller that stops reading is a broken pipe for the container, as without a limit" {
        make_bundle
        set_args yes
        local n limit want=""

        # head leaves after 10 bytes; run must outlive its own SIGPIPE, pass
        # the broken pipe on to yes (EPIPE, or SIGPIPE where it is not
        # ignored) and end as the same run without a limit does.
        for limit in "" 1M; do
                n=$( (sbrun run -b "$BUNDLE" ${limit:+--output-limit "$limit"} \
                        --verdict-file "$TEST_DIR/verdict.json" "$ID" </dev/null 2>"$TEST_DIR/err"
                        echo $? >"$TEST_DIR/rc") | head -c 10 | wc -c)
                [ "$n" -eq 10 ]
                [ -z "$want" ] && want="$(cat "$TEST_DIR/rc") $(cat "$TEST_DIR/verdict.json")"
                [ "$(cat "$TEST_DIR/rc") $(cat "$TEST_DIR/verdict.json")" = "$want" ] ||
                        fail "with ${limit:-no limit}: $(cat "$TEST_DIR/rc") $(cat "$TEST_DIR/verdict.json"), without: $want"
                assert_no_leftovers "$ID"
        done
}

@test "output limit: the verdict reaches the audit trail and, with --keep, the state" {
        make_bundle
        set_cmd "$(flood_cmd)"
        local log=$TEST_DIR/audit/audit.jsonl policy
        mkdir -p "$TEST_DIR/audit"
        policy=$(policy_with "{\"audit\": {\"log\": \"$log\"}}" audited)

        run_capped --policy "$policy" run -b "$BUNDLE" --keep --stdout-limit 8k "$ID"
        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        [ "$(bytes "$TEST_DIR/out")" -eq 8192 ]
        run sbrun state "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "$(jq -r .status <<<"$output")" = stopped ]
        [ "$(jq -r .sbrun.verdict <<<"$output")" = output_limit ] || fail "$output"
        [ "$(jq -r .sbrun.stream <<<"$output")" = stdout ]
        [ "$(jq -r .sbrun.bytes <<<"$output")" = 8192 ]
        [ "$(jq -r .sbrun.exit_code <<<"$output")" = 125 ]
        # A rootless runtime (tests/rootless/with-user.sh) writes the user's
        # own trail, not audit.log (runtime/audit/audit_log.c).
        if [ -z "${SBRUN_AS_USER:-}" ]; then
                [ "$(jq -r 'select(.event == "create") | .stdout_limit' "$log")" = 8192 ] || fail "$(cat "$log")"
                [ "$(jq -r 'select(.event == "create") | .stderr_limit' "$log")" = null ]
                [ "$(jq -c 'select(.event == "verdict") | [.verdict, .stream, .bytes, .exit_code]' "$log")" = \
                        '["output_limit","stdout",8192,125]' ] || fail "$(cat "$log")"
        fi
        sbrun --policy "$policy" delete "$ID"
        assert_no_leftovers "$ID"
}

@test "output limit: with a terminal the pty's output is capped the same way, as stdout, by the smaller limit" {
        make_bundle
        edit_config '.process.terminal = true'
        # A pty is slow: 4 MiB is plenty past the cap.
        set_cmd "$(flood_cmd '' 4194304)"

        run_capped run -b "$BUNDLE" --output-limit 100k --verdict-file "$TEST_DIR/verdict.json" "$ID"

        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        # The pty turns each \n into \r\n: 100 KiB of "y\r\n" as they came.
        [ "$(bytes "$TEST_DIR/out")" -eq 102400 ] || fail "forwarded $(bytes "$TEST_DIR/out") bytes"
        [ "$(verdict_of verdict)" = output_limit ]
        [ "$(verdict_of stream)" = stdout ]
        assert_no_leftovers "$ID"

        # One pty carries both streams: the smaller limit is its limit.
        run_capped run -b "$BUNDLE" --stdout-limit 1M --stderr-limit 50k \
                --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        [ "$(bytes "$TEST_DIR/out")" -eq 51200 ] || fail "forwarded $(bytes "$TEST_DIR/out") bytes"
        [ "$(verdict_of bytes)" = 51200 ]
        assert_no_leftovers "$ID"
}

@test "output limit: run -d refuses a limit on its command line; the policy's binds only a foreground run" {
        make_bundle
        set_cmd 'yes | head -c 10000'

        run detached sbrun run -d --output-limit 1k -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" '--output-limit, --stdout-limit and --stderr-limit cannot be used with --detach'
        run detached sbrun run -d --stdout-limit 1k -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'cannot be used with --detach'

        # Detached, the container writes to the caller's stdio itself, as
        # under create and start: the operator's ceiling is not applied.
        local policy
        policy=$(output_policy 1k)
        sbrun --policy "$policy" run -d -b "$BUNDLE" "$ID" </dev/null >"$TEST_DIR/out" 2>"$TEST_DIR/err" 3>&- ||
                fail "run -d: $(cat "$TEST_DIR/err")"
        wait_for_status "$ID" stopped 10
        [ "$(bytes "$TEST_DIR/out")" -eq 10000 ] || fail "got $(bytes "$TEST_DIR/out") bytes"
        sbrun delete "$ID"
}

@test "output limit: the policy's limits.output binds a command line and an annotation asking for more" {
        make_bundle
        set_cmd 'yes | head -c 100000'
        local policy
        policy=$(output_policy 4k)

        run_capped --policy "$policy" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" --output-limit 1M \
                --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        [ "$(bytes "$TEST_DIR/out")" -eq 4096 ]
        [ "$(verdict_of bytes)" = 4096 ]
        grep -q -- '--output-limit: 1048576 bytes is above the output ceiling of 4096 bytes; clamped' \
                "$TEST_DIR/sbrun.log" || fail "no clamp warning: $(cat "$TEST_DIR/sbrun.log")"
        assert_no_leftovers "$ID"

        edit_config '.annotations["run.sbrun.output_limit"] = "1g"'
        run_capped --policy "$policy" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" --stdout-limit 2k \
                --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        [ "$(bytes "$TEST_DIR/out")" -eq 2048 ] || fail "forwarded $(bytes "$TEST_DIR/out") bytes"
        grep -q 'run.sbrun.output_limit: 1073741824 bytes is above the output ceiling of 4096 bytes' \
                "$TEST_DIR/sbrun.log" || fail "no clamp warning: $(cat "$TEST_DIR/sbrun.log")"

        # policy show and explain report it.
        run sbrun --policy "$policy" policy show
        [[ $output == *"output: 4096 bytes of each of stdout and stderr"* ]] || fail "$output"
        run sbrun --policy "$policy" policy explain -b "$BUNDLE"
        [[ $output == *"at most 4096 bytes"* ]] || fail "$output"
        assert_no_leftovers "$ID"
}

@test "output limit: strict has a default of 16 MiB, standard none; a bad value is refused by name" {
        make_bundle
        set_cmd 'head -c 17000000 /dev/zero'

        run_capped --policy "$(policy_with '{"floor": {"profile": "strict"}}' strict)" run -b "$BUNDLE" \
                --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$rc" -eq 125 ] || fail "status $rc: $(cat "$TEST_DIR/err")"
        [ "$(bytes "$TEST_DIR/out")" -eq $((16 * MiB)) ] || fail "forwarded $(bytes "$TEST_DIR/out") bytes"
        [ "$(verdict_of verdict)" = output_limit ]
        assert_no_leftovers "$ID"

        run_capped run -b "$BUNDLE" --verdict-file "$TEST_DIR/verdict.json" "$ID"
        [ "$rc" -eq 0 ] || fail "status $rc"
        [ "$(bytes "$TEST_DIR/out")" -eq 17000000 ]
        [ "$(verdict_of verdict)" = exited ]

        run sbrun run -b "$BUNDLE" --output-limit 0 "$ID"
        assert_fails_cleanly "$ID" '--output-limit: "0" is not a positive size'
        edit_config '.annotations["run.sbrun.output_limit"] = "lots"'
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'annotations.run.sbrun.output_limit: "lots" is not a positive size'
        edit_config 'del(.annotations["run.sbrun.output_limit"])'
        printf '%s\n' '{"limits": {"output": "-1"}}' >"$TEST_DIR/bad.json"
        chmod 0644 "$TEST_DIR/bad.json"
        run sbrun --policy "$TEST_DIR/bad.json" run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'limits.output: expected a positive size'
}
