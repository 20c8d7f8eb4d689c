#!/usr/bin/env bats
# tests/vm/stall_guard.bash: a test that outlives bats' own timeout (its child
# ignores the SIGTERM bats sends) is reported and killed, and the suite goes
# on to the next test.

setup() {
        SELF_DIR=$(mktemp -d "${SBRUN_TEST_TMP:-/tmp}/selftest.XXXXXX")
        # (printf: bats would take an "@test" line of this file as its own)
        {
                printf '@%s "hangs" { sh -c %s; }\n' test "'trap \"\" TERM; exec sleep 313'"
                printf '@%s "after it" { true; }\n' test
        } >"$SELF_DIR/hang.bats"
        cat >"$SELF_DIR/suite.sh" <<EOF2
. "$SBRUN_SRCDIR/tests/lib/lanes.bash"
. "$SBRUN_SRCDIR/tests/vm/stall_guard.bash"
SUITE=selftest SUITE_MODE=run SUITE_ARGS=(--tap) SUITE_RC=0
export BATS_TEST_TIMEOUT=2 STALL_POLL=1
stall_guard_start 6
suite_sel "$SELF_DIR/hang.bats"
stall_guard_stop
exit \$SUITE_RC
EOF2
}

teardown() {
        rm -rf "$SELF_DIR"
}

@test "stall guard: a test that ignores bats' timeout is reported and killed; the next test runs" {
        run timeout 60 bash "$SELF_DIR/suite.sh"
        echo "$output"
        [ "$status" -eq 1 ]
        [[ $output == *"# stall guard: no test result for "*"s (limit 6s); bats test process "* ]]
        # What hung is named in the report: its process and wait channel.
        [[ $output == *"# stall: "*"sleep 313"* ]]
        [[ $output == *"not ok 1 hangs"* ]]
        [[ $output == *"ok 2 after it"* ]]
        # Nothing of the hung test survives the guard.
        ! pgrep -f "^sleep 313$" >/dev/null
}
