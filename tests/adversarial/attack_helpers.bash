# Helpers shared by the adversarial suites (load attack_helpers after
# ../helpers): static attack programs, the strict policy, and a run under
# either floor profile.

# helper_bin NAME: tests/helpers/NAME.c built static once per suite run.
helper_bin() {
        local name=$1 bin=$SBRUN_TEST_TMP/$1
        if [ ! -x "$bin" ]; then
                cc -O2 -Wall -static -o "$bin.tmp.$$" "$SBRUN_SRCDIR/tests/helpers/$name.c" -lpthread &&
                        mv "$bin.tmp.$$" "$bin" || fail "cannot build the $name helper"
        fi
        echo "$bin"
}

# strict_policy: an operator policy selecting the strict floor.
strict_policy() {
        printf '%s\n' '{"cgroups": {"enforce": false}, "floor": {"profile": "strict"}}' >"$TEST_DIR/strict.json"
        chmod 0644 "$TEST_DIR/strict.json"
        echo "$TEST_DIR/strict.json"
}

# run_under PROFILE: `sbrun run` of $BUNDLE under the standard (the suite's
# policy) or the strict floor; warnings go to the log, not the output.
run_under() {
        if [ "$1" = strict ]; then
                run sbrun --policy "$(strict_policy)" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        else
                run sbrun run -b "$BUNDLE" "$ID"
        fi
}

# policy_for PROFILE [JSON]: an operator policy for PROFILE with JSON merged
# in, keeping the suite's own policy (its cgroup opt-out) underneath.
# Prints its path.
policy_for() {
        local extra=${2:-"{}"}
        [ "$1" = strict ] && extra=$(jq -c '. * {"floor": {"profile": "strict"}}' <<<"$extra")
        policy_with "$extra" "policy-$1"
}

# runtime_argv PROFILE [JSON]: sets RUNTIME to the runtime's command line
# under PROFILE (and JSON, see policy_for), for programs that run it
# themselves (a pty, a background run).
runtime_argv() {
        RUNTIME=("$SBRUN" --root "$ROOT" --policy "$(policy_for "$@")" --log "$TEST_DIR/sbrun.log")
}
