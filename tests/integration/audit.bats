#!/usr/bin/env bats
# The audit trail (runtime/audit/, spec/audit_policy.h, docs/policy.md#the-audit-trail):
# one JSON line per create, exec, kill, delete and verdict, each whole
# however many sbrun processes append at once, read back by `sbrun audit`
# (its table escaped, a line it cannot parse named and failing it); a log
# that cannot be written fails a strict create and warns under standard;
# no container can bind the log's directory writable.

load ../helpers

setup() {
        sb_setup
        LOG=$TEST_DIR/logs/audit/audit.jsonl
}

# The read-only and full logs are tmpfs mounts of the test's own, outside
# $TEST_DIR (where a mount is a leftover); an immutable log is made
# mutable again.
teardown() {
        # Tests that make the log immutable undo it even when they fail.
        [ ! -e "${LOG:-}" ] || chattr -i "$LOG" 2>/dev/null || true
        if [ -n "${LOG_MNT:-}" ]; then
                ! mountpoint -q "$LOG_MNT" || umount "$LOG_MNT"
                rmdir "$LOG_MNT" "${LOG_MNT%/*}"
        fi
        sb_teardown
}

# audit_policy [JSON]: a policy whose trail is $LOG, JSON merged over it;
# prints its path.
audit_policy() {
        policy_with "$(jq -n --arg l "$LOG" '{audit: {log: $l}}' | jq -s '.[0] * .[1]' - <(echo "${1:-{\}}"))" audit
}

# events: the trail's "event id" pairs, one per line.
events() {
        jq -r '"\(.event) \(.id)"' "$LOG"
}

@test "audit: a lifecycle writes exactly one line per create, exec, kill and delete" {
        make_bundle
        set_args sleep 1000
        local p
        p=$(audit_policy)
        sbrun --policy "$p" create -b "$BUNDLE" "$ID" || fail "create failed"
        sbrun --policy "$p" start "$ID" || fail "start failed"
        [ "$(sbrun --policy "$p" exec "$ID" echo inside)" = inside ] || fail "exec failed"
        sbrun --policy "$p" kill "$ID" KILL || fail "kill failed"
        wait_for_status "$ID" stopped
        sbrun --policy "$p" delete "$ID" || fail "delete failed"

        [ "$(events)" = "$(printf '%s\n' "create $ID" "exec $ID" "kill $ID" "delete $ID")" ] ||
                fail "events: $(events)"
        # create: the policy file and its digest, the profile, the floor's
        # changes, the digests of the confinement, and who asked.
        run jq -r 'select(.event == "create") |
                [.ok, .bundle, .policy.file, .policy.sha256, .profile, (.changes | length > 0),
                 (.digests.seccomp | test("^[0-9a-f]{64}$")), (.digests.capabilities | length),
                 (.digests.namespaces | length), .caller.uid, (.caller.pid > 0), .pid > 0] | @tsv' "$LOG"
        [ "$output" = "$(printf 'true\t%s\t%s\t%s\tstandard\ttrue\ttrue\t64\t64\t0\ttrue\ttrue' \
                "$BUNDLE" "$p" "$(sha256sum <"$p" | cut -d' ' -f1)")" ] || fail "create line: $output"
        run jq -r 'select(.event == "exec") | [(.args | join(" ")), .uid, .policy.sha256] | @tsv' "$LOG"
        [ "$output" = "$(printf 'echo inside\t0\t%s' "$(sha256sum <"$p" | cut -d' ' -f1)")" ] ||
                fail "exec line: $output"
        run jq -r 'select(.event == "kill") | [.signal, .all, .ok] | @tsv' "$LOG"
        [ "$output" = "$(printf '9\tfalse\ttrue')" ] || fail "kill line: $output"
        run jq -r 'select(.event == "delete") | [.status, .ok, .force] | @tsv' "$LOG"
        [ "$output" = "$(printf 'stopped\ttrue\tfalse')" ] || fail "delete line: $output"
        # The caller: this shell's sbrun, whose parent is bats' bash.
        [ "$(jq -r '.caller.parent' "$LOG" | sort -u)" = "$(cat /proc/$BASHPID/comm)" ] ||
                fail "caller.parent: $(jq -r '.caller.parent' "$LOG" | sort -u)"
}

@test "audit: run writes the verdict with its exit status; a refused create is a line with its error" {
        make_bundle
        set_cmd 'exit 3'
        local p
        p=$(audit_policy)
        run sbrun --policy "$p" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 3 ] || fail "run: $status $output"
        [ "$(events)" = "$(printf '%s\n' "create $ID" "verdict $ID" "delete $ID")" ] || fail "$(events)"
        run jq -r 'select(.event == "verdict") | [.verdict, .exit_code, .signal] | @tsv' "$LOG"
        [ "$output" = "$(printf 'exited\t3\t0')" ] || fail "verdict line: $output"

        edit_config '.mounts += [{destination: "/h", type: "bind", source: "/etc", options: ["rbind"]}]'
        run detached sbrun --policy "$p" create -b "$BUNDLE" "$ID-refused"
        assert_fails_cleanly "$ID-refused" "mounts["
        run jq -r 'select(.id == $id) | [.event, .ok, (.error | test("no root or bind of a host system directory"))] | @tsv' \
                --arg id "$ID-refused" "$LOG"
        [ "$output" = "$(printf 'create\tfalse\ttrue')" ] || fail "refused create line: $output"
}

@test "audit: sbrun audit reads the trail back by id, time and as a table" {
        make_bundle
        local p
        p=$(audit_policy)
        sbrun --policy "$p" run -b "$BUNDLE" "$ID-a" || fail "run a failed"
        sbrun --policy "$p" run -b "$BUNDLE" "$ID-b" || fail "run b failed"

        run sbrun --policy "$p" audit --id "$ID-b"
        [ "$status" -eq 0 ] || fail "$output"
        [ "$(jq -r .event <<<"$output" | tr '\n' ' ')" = "create verdict delete " ] || fail "$output"
        run sbrun --policy "$p" audit --since 1h
        [ "${#lines[@]}" -eq 6 ] || fail "--since 1h: $output"
        run sbrun --policy "$p" audit --since "$(date -u -d tomorrow +%Y-%m-%d)"
        [ "$status" -eq 0 ] && [ -z "$output" ] || fail "--since tomorrow: $output"
        run sbrun --policy "$p" audit --id "$ID-a" --format table
        [ "${lines[0]}" = "$(printf '%-19s  %-7s  %-20s  %-6s %-16s  %s' 'TIME (UTC)' EVENT ID UID CALLER DETAIL)" ] ||
                fail "header: ${lines[0]}"
        [[ ${lines[2]} == *" verdict  $ID-a "*"exited exit_code=0"* ]] || fail "table: $output"
        run sbrun --policy "$p" audit --since yesterday
        [ "$status" -eq 1 ] && [[ $output == *'--since: "yesterday" is neither'* ]] || fail "$output"
}

@test "audit: the table shows an exec argument with a newline, an escape or a byte 0xff as one escaped row" {
        make_bundle
        set_args sleep 1000
        local p forged
        p=$(audit_policy)
        # A row of its own, if the newline reached the terminal; ESC [2J
        # would clear it.
        forged=$'x\n2026-01-01T00:00:00  exec     forged                0      bash              rm -rf /\e[2J'
        detached sbrun --policy "$p" run -d -b "$BUNDLE" "$ID" || fail "run -d failed"
        sbrun --policy "$p" exec "$ID" echo "$forged" >/dev/null || fail "exec with a newline failed"
        sbrun --policy "$p" exec "$ID" echo $'a\xffb' >/dev/null || fail "exec with 0xff failed"
        sbrun --policy "$p" delete --force "$ID" || fail "delete failed"

        # The writer keeps every line JSON: 0xff is the text \xff.
        jq -e . "$LOG" >/dev/null || fail "the trail is no JSON: $(cat -v "$LOG")"
        [ "$(jq -r 'select(.event == "exec") | .args[1]' "$LOG" | tail -n 1)" = 'a\xffb' ] ||
                fail "exec line: $(grep exec "$LOG" | cat -v)"
        run --separate-stderr sbrun --policy "$p" audit --id "$ID" --format table
        [ "$status" -eq 0 ] || fail "audit: $status $output $stderr"
        # Header, create, two execs, delete: one row each.
        [ "${#lines[@]}" -eq 5 ] || fail "rows: $output"
        [[ $output != *$'\e'* ]] || fail "an escape reached the terminal: $(cat -v <<<"$output")"
        [[ ${lines[2]} == *" exec "*'echo x\n2026-01-01T00:00:00  exec     forged'*'rm -rf /\x1b[2J' ]] ||
                fail "the newline's row: ${lines[2]}"
        [[ ${lines[3]} == *" exec "*'echo a\xffb' ]] || fail "the 0xff's row: ${lines[3]}"
}

@test "audit: a line that cannot be parsed is named on stderr and fails sbrun audit, after the others" {
        make_bundle
        local p n
        p=$(audit_policy)
        sbrun --policy "$p" run -b "$BUNDLE" "$ID" || fail "run failed"
        n=$(wc -l <"$LOG")
        # What a crash leaves, and what an older sbrun wrote for an
        # argument that was no UTF-8.
        echo '{"time": "2026-01-01T00:00:00Z", "event": "exec", "id": "' >>"$LOG"
        printf '{"event":"exec","id":"%s","args":["\xff"]}\n' "$ID" >>"$LOG"

        run --separate-stderr sbrun --policy "$p" audit
        [ "$status" -eq 1 ] || fail "status $status: $output $stderr"
        [ "${#lines[@]}" -eq "$n" ] || fail "the readable lines: $output"
        [[ $stderr == *"audit: line $((n + 1)) of $LOG cannot be parsed"* ]] || fail "stderr: $stderr"
        [[ $stderr == *"audit: line $((n + 2)) of $LOG cannot be parsed"* ]] || fail "stderr: $stderr"
        [[ $stderr == *"audit: 2 lines of the trail cannot be parsed"* ]] || fail "stderr: $stderr"
        # The table, and a filter the lines cannot be matched against, say so too.
        run --separate-stderr sbrun --policy "$p" audit --id "$ID" --format table
        [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq $((n + 1)) ] || fail "table: $status $output"
        [[ $stderr == *"line $((n + 2)) of $LOG cannot be parsed"* ]] || fail "stderr: $stderr"
}

@test "audit: 200 concurrent creates leave 200 whole lines, across rotations" {
        make_bundle
        set_args sleep 1000
        local p i
        # A tiny size: the log rotates every few lines while 200 sbrun
        # processes append, and every line must still be whole and in one
        # of the files `sbrun audit` reads.
        p=$(audit_policy '{"audit": {"max_size": 4096, "keep": 100}}')
        seq 200 | xargs -P 40 -I{} "$SBRUN" --root "$ROOT" --policy "$p" --log "$TEST_DIR/sbrun.log" \
                create -b "$BUNDLE" "$ID-{}" 3>&- || fail "a create failed: $(tail -3 "$TEST_DIR/sbrun.log")"
        run sbrun --policy "$p" audit
        [ "$status" -eq 0 ] || fail "$output"
        # Each line is one JSON object: jq fails on a torn or merged one.
        [ "$(jq -c 'select(.event == "create" and .ok) | .id' <<<"$output" | sort -u | wc -l)" = 200 ] ||
                fail "$(jq -c . <<<"$output" 2>&1 | tail -3)"
        [ "${#lines[@]}" = 200 ] || fail "${#lines[@]} lines"
        ls "$LOG.1" >/dev/null || fail "the log never rotated"
        seq 200 | xargs -P 40 -I{} "$SBRUN" --root "$ROOT" --policy "$p" --log "$TEST_DIR/sbrun.log" \
                delete --force "$ID-{}" 3>&- || fail "a delete failed"
        run sbrun --policy "$p" audit
        [ "$(jq -r .event <<<"$output" | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" = "create=200 delete=200 " ] ||
                fail "$(jq -r .event <<<"$output" | sort | uniq -c)"
}

@test "audit: a read-only or full log fails a strict create by name, leaving nothing; standard warns" {
        make_bundle
        local p kind want
        LOG_MNT=$(mktemp -d "$SBRUN_TEST_TMP/audit-log.XXXXXX")/audit
        LOG=$LOG_MNT/audit.jsonl
        mkdir "$LOG_MNT"
        for kind in ro full; do
                if [ $kind = ro ]; then
                        mount -t tmpfs -o ro,size=64k sbrun-audit-test "$LOG_MNT"
                else
                        mount -t tmpfs -o size=16k sbrun-audit-test "$LOG_MNT"
                        dd if=/dev/zero of="$LOG_MNT/filler" bs=4k 2>/dev/null || true
                fi
                p=$(audit_policy '{"floor": {"profile": "strict"}}')
                run detached sbrun --policy "$p" create -b "$BUNDLE" "$ID-$kind"
                if [ $kind = ro ]; then
                        want="read-only file system"
                else
                        want="no space left on device"
                fi
                [[ $output == *"audit trail: "*"$LOG"*"$want"*"strict runs no create it cannot record"* ]] ||
                        fail "$kind strict: $output"
                [ "$status" -eq 1 ] || fail "status $status"
                assert_no_leftovers "$ID-$kind"

                p=$(audit_policy)
                run sbrun --policy "$p" --log "$TEST_DIR/$kind.log" run -b "$BUNDLE" "$ID-$kind-standard"
                [ "$status" -eq 0 ] || fail "$kind standard: $output $(cat "$TEST_DIR/$kind.log")"
                output=$(cat "$TEST_DIR/$kind.log")
                [[ $output == *"audit trail: "*"$want"*"the create of $ID-$kind-standard is not recorded"* ]] ||
                        fail "$kind standard: $output"
                # No partial line was left in a full log.
                [ ! -s "$LOG" ] || fail "log: $(cat "$LOG")"
                umount "$LOG_MNT"
        done
}

@test "audit: no container may bind the log's directory, or its ancestor writable; read-only it cannot write" {
        make_bundle
        local p
        p=$(audit_policy)
        mkdir -p "${LOG%/*}" && : >"$LOG"
        edit_config '.mounts += [{destination: "/a", type: "bind", source: $s, options: ["rbind"]}]' \
                --arg s "${LOG%/*}"
        run detached sbrun --policy "$p" create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "no bind of sbrun's audit trail directory or anything in it"

        edit_config '.mounts[-1].source = $s' --arg s "$TEST_DIR/logs"
        run detached sbrun --policy "$p" create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "no writable bind of its ancestor"

        edit_config '.mounts[-1].options = ["rbind", "ro"]'
        set_cmd 'if echo forged >>/a/audit/audit.jsonl; then echo wrote; fi; cat /a/audit/audit.jsonl | wc -l'
        run sbrun --policy "$p" run -b "$BUNDLE" "$ID"
        [[ $output != *wrote* ]] || fail "the container wrote the trail: $output"
        ! grep -q forged "$LOG" || fail "forged line in $LOG"
}

@test "audit: policy show, explain and check report the trail and what a failed line means" {
        make_bundle
        local p
        p=$(audit_policy '{"audit": {"fsync": true, "max_size": "1M", "keep": 2}}')
        run sbrun --policy "$p" policy show
        [[ $output == *"audit: $LOG (fsync on, rotated past 1048576 bytes, 2 kept); a line not written fails a strict create or exec, warns otherwise"* ]] ||
                fail "show: $output"
        run sbrun --policy "$p" policy explain --bundle "$BUNDLE"
        [[ $output == *"audit: requested (none), effective $LOG (rule: standard: a create the audit trail cannot record warns)"* ]] ||
                fail "explain: $output"
        run sbrun --policy "$p" check --format json
        [ "$(jq -r '.items[] | select(.item == "audit") | "\(.status) \(.detail)"' <<<"$output")" = "ok $LOG: writable" ] ||
                fail "check: $output"

        # A log that cannot be written: a warning under standard, FAIL where
        # the default profile is strict, whose creates it would refuse.
        mkdir -p "${LOG%/*}" && : >"$LOG" && chattr +i "$LOG" || skip "chattr +i: not on this file system"
        run sbrun --policy "$p" check --format json
        local standard strict
        standard=$(jq -r '.items[] | select(.item == "audit") | "\(.status) \(.detail)"' <<<"$output")
        p=$(audit_policy '{"floor": {"profile": "strict"}}')
        run sbrun --policy "$p" check --format json
        strict=$(jq -r '.items[] | select(.item == "audit") | .status' <<<"$output")
        chattr -i "$LOG"
        [ "$standard" = "warn $LOG: $LOG cannot be written: Operation not permitted" ] || fail "standard: $standard"
        [ "$strict" = FAIL ] || fail "strict: $strict"
}

@test "audit: the trail in journald's form; a bad setting is refused by name" {
        local p
        p=$(policy_with '{"audit": {"log": "relative/audit.jsonl"}}' bad)
        run sbrun --policy "$p" policy show
        [ "$status" -eq 1 ] && [[ $output == *"audit.log: \"relative/audit.jsonl\" is not a clean absolute path of a file"* ]] ||
                fail "$output"
        p=$(policy_with '{"audit": {"keep": 0}}' bad)
        run sbrun --policy "$p" policy show
        [ "$status" -eq 1 ] && [[ $output == *"audit.keep: expected a number of files from 1 to 100"* ]] || fail "$output"
        p=$(policy_with '{"audit": {"rotate": true}}' bad)
        run sbrun --policy "$p" policy show
        [ "$status" -eq 1 ] && [[ $output == *"audit.rotate: unknown setting"* ]] || fail "$output"
        p=$(policy_with '{"audit": {"log": "journald"}}' journald)
        run sbrun --policy "$p" policy show
        [[ $output == *"audit: journald (SYSLOG_IDENTIFIER=sbrun-audit)"* ]] || fail "$output"
}

@test "audit: under strict an exec the trail cannot record is refused; kill and delete still work, with warnings" {
        make_bundle
        set_args sleep 1000
        local p
        p=$(audit_policy '{"floor": {"profile": "strict"}}')
        sbrun --policy "$p" create -b "$BUNDLE" "$ID" || fail "create failed"
        sbrun --policy "$p" start "$ID" || fail "start failed"
        chattr +i "$LOG" || skip "chattr +i: not on this file system"
        run sbrun --policy "$p" --log "$TEST_DIR/exec.log" exec "$ID" touch /tmp/ran
        local exec_status=$status exec_output
        exec_output=$(cat "$TEST_DIR/exec.log")
        run sbrun --policy "$p" --log "$TEST_DIR/kill.log" kill "$ID" KILL
        local kill_status=$status kill_output
        kill_output=$(cat "$TEST_DIR/kill.log")
        wait_for_status "$ID" stopped
        run sbrun --policy "$p" --log "$TEST_DIR/delete.log" delete "$ID"
        output=$(cat "$TEST_DIR/delete.log")
        chattr -i "$LOG"
        [ "$exec_status" -eq 1 ] || fail "exec: $exec_status $exec_output"
        [[ $exec_output == *"audit trail: open $LOG: operation not permitted: strict runs no exec it cannot record"* ]] ||
                fail "exec: $exec_output"
        [ "$kill_status" -eq 0 ] && [[ $kill_output == *"the kill of $ID is not recorded"* ]] ||
                fail "kill: $kill_status $kill_output"
        [ "$status" -eq 0 ] && [[ $output == *"the delete of $ID is not recorded"* ]] || fail "delete: $output"
        [ "$(events)" = "create $ID" ] || fail "$(events)"
}

@test "audit: on cgroup v2 the verdict and delete lines carry the cgroup's peaks" {
        host_has_v2_controllers || skip "no cgroup v2 controllers on this host (the VM lane runs this test)"
        make_bundle
        # 16 MiB in /dev/shm: tmpfs pages are charged to the container's
        # memory, so memory.peak is past them whatever else it counts.
        set_cmd 'dd if=/dev/zero of=/dev/shm/fill bs=1M count=16 2>/dev/null; exit 0'
        local p
        p=$(audit_policy)
        sbrun --policy "$p" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID" >/dev/null ||
                fail "run failed: $(cat "$TEST_DIR/sbrun.log")"
        run jq -c 'select(.event == "verdict") | [(.peaks.memory_peak > 16000000), (.peaks.cpu_usec > 0), .peaks.oom_kills]' "$LOG"
        [ "$output" = '[true,true,0]' ] || fail "verdict: $(grep '"verdict"' "$LOG")"
        # io.stat's totals, in the peaks and in the verdict itself, where
        # the cgroup has the io controller.
        if grep -qw io /sys/fs/cgroup/cgroup.controllers; then
                run jq -c 'select(.event == "verdict") | [(.peaks.io.wbytes | type), (.io.rbytes | type)]' "$LOG"
                [ "$output" = '["number","number"]' ] || fail "verdict io: $(grep '"verdict"' "$LOG")"
        fi
        run jq -c 'select(.event == "delete") | (.peaks | has("memory_peak"))' "$LOG"
        [ "$output" = true ] || fail "delete: $(grep '"delete"' "$LOG")"
}
