#!/usr/bin/env bats
# The bwrap sbrun runs is fixed at build time (configure --with-bwrap). When
# it is missing, not executable, not an ELF program, or replaceable by
# someone other than root, `create` and `run` fail before they start any
# process or make anything, naming the path and what is wrong.
#
# The installed bwrap is never touched: tests/sbrun-bwrap-fixture is sbrun
# relinked to run $SBRUN_BUILDDIR/tests/bwrap-fixture/bwrap (Makefile.am),
# which each test puts in place or spoils.

load ../helpers

FIXTURE_SBRUN=$SBRUN_BUILDDIR/tests/sbrun-bwrap-fixture
FIXTURE_DIR=$SBRUN_BUILDDIR/tests/bwrap-fixture
FIXTURE_BWRAP=$FIXTURE_DIR/bwrap

setup() {
        sb_setup
        # `make check` builds it; a bats run by hand may come first.
        [ -x "$FIXTURE_SBRUN" ] || make -s -C "$SBRUN_BUILDDIR" tests/sbrun-bwrap-fixture ||
                fail "cannot build $FIXTURE_SBRUN"
        mkdir -p "$FIXTURE_DIR"
        chmod 0755 "$FIXTURE_DIR"
        rm -f "$FIXTURE_BWRAP"
        MARKER=$TEST_DIR/bwrap-ran
        make_bundle
}

teardown() {
        chmod 0755 "$FIXTURE_DIR" 2>/dev/null || true
        rm -f "$FIXTURE_BWRAP"
        sb_teardown
}

# A stand-in that leaves a mark if anything ever executes it.
fake_bwrap() {
        printf '#!/bin/sh\ntouch %s\nexit 1\n' "$MARKER" >"$FIXTURE_BWRAP"
        chmod "$1" "$FIXTURE_BWRAP"
}

# traced ARGS...: the fixture sbrun with this test's root and policy, under
# strace, so that the test can see which processes and directories it made.
# Output goes through files and strace has a time limit: should a broken
# sbrun make a container after all, its process must not hold the test.
traced() {
        local -a g=(--root "$ROOT")
        local rc=0
        [ -n "$SB_POLICY" ] && g+=(--policy "$SB_POLICY")
        # LeakSanitizer cannot run under ptrace (tests/asan.sh builds sbrun
        # with it): its exit-time check would fail every traced call.
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
                timeout -k 2 20 strace -f -qq -o "$TEST_DIR/trace" -e trace=process,mkdir,mkdirat \
                "$FIXTURE_SBRUN" "${g[@]}" "$@" </dev/null >"$TEST_DIR/traced.out" 2>&1 3>&- ||
                rc=$?
        cat "$TEST_DIR/traced.out"
        return $rc
}

# Nothing was started (no fork, no exec but sbrun's own), nothing was
# made (no directory, the state root is empty), nothing is left.
assert_nothing_made() {
        local forks execs
        # A process is a clone without CLONE_VM, or a vfork; a CLONE_VM clone
        # is a thread of a sanitizer's runtime, never something sbrun starts.
        forks=$(grep -E '(clone|clone3|fork|vfork)\(' "$TEST_DIR/trace" |
                grep -cvE 'CLONE_VM' || true)
        forks=$((forks + $(grep -cE 'CLONE_VFORK|vfork\(' "$TEST_DIR/trace" || true)))
        execs=$(grep -cE 'execve(at)?\(' "$TEST_DIR/trace" || true)
        [ "$forks" -eq 0 ] || fail "sbrun forked $forks time(s): $(grep -E 'clone|fork' "$TEST_DIR/trace")"
        [ "$execs" -eq 1 ] || fail "sbrun executed $execs programs: $(grep execve "$TEST_DIR/trace")"
        ! grep -E 'mkdir(at)?\(' "$TEST_DIR/trace" || fail "sbrun made a directory"
        [ -z "$(ls -A "$ROOT")" ] || fail "state root not empty: $(ls -A "$ROOT")"
        [ ! -e "$MARKER" ] || fail "the bwrap at $FIXTURE_BWRAP was executed"
        assert_no_leftovers "$ID"
}

@test "with a proper bwrap at its path the fixture sbrun runs containers" {
        cp /usr/bin/bwrap "$FIXTURE_BWRAP"
        chmod 0755 "$FIXTURE_BWRAP"
        set_args echo hello

        run traced run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *hello* ]]
}

@test "bwrap missing: create fails naming the path, and makes nothing" {
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: not found"
        [[ $output == *"--with-bwrap"* ]]
        assert_nothing_made
}

@test "bwrap missing: run fails the same way" {
        run traced run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: not found"
        assert_nothing_made
}

@test "bwrap not executable: create fails naming the mode" {
        fake_bwrap 0644
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: not executable (mode 0644)"
        assert_nothing_made
}

@test "bwrap a shell script: create fails, the script never runs" {
        fake_bwrap 0755
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: not an ELF executable"
        assert_nothing_made
}

@test "bwrap a directory: create fails, it is not a regular file" {
        mkdir "$FIXTURE_BWRAP"
        run traced create -b "$BUNDLE" "$ID"
        rmdir "$FIXTURE_BWRAP"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: not a regular file"
        assert_nothing_made
}

@test "bwrap group-writable: create fails, whoever could replace it is named" {
        cp /usr/bin/bwrap "$FIXTURE_BWRAP"
        chmod 0775 "$FIXTURE_BWRAP"
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: writable by group or others (mode 0775)"
        assert_nothing_made
}

@test "bwrap group-writable script: it fails on the mode and never runs" {
        fake_bwrap 0775
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "writable by group or others (mode 0775)"
        assert_nothing_made
}

@test "bwrap not owned by root: create fails naming the owner" {
        cp /usr/bin/bwrap "$FIXTURE_BWRAP"
        chmod 0755 "$FIXTURE_BWRAP"
        chown 65534 "$FIXTURE_BWRAP"
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "bwrap $FIXTURE_BWRAP: owned by uid 65534, not root"
        assert_nothing_made
}

@test "bwrap in a group-writable directory: create fails naming the directory" {
        cp /usr/bin/bwrap "$FIXTURE_BWRAP"
        chmod 0755 "$FIXTURE_BWRAP"
        chmod 0775 "$FIXTURE_DIR"
        run traced create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "directory $FIXTURE_DIR is writable by group or others (mode 0775)"
        assert_nothing_made
}

@test "sbrun check names the same fault on the bwrap line and exits 1" {
        fake_bwrap 0755
        # Under the suite's policy (its cgroups opt-out on this host), so that
        # bwrap is the only item that can fail the check.
        local pol=()
        [ -z "$SB_POLICY" ] || pol=(--policy "$SB_POLICY")
        run "$FIXTURE_SBRUN" "${pol[@]}" check --format json
        [ "$status" -eq 1 ]
        [ "$(jq -c '[.items[] | select(.status == "FAIL") | .item]' <<<"$output")" = '["bwrap"]' ] ||
                fail "not bwrap alone fails: $output"
        [ "$(jq -r '.items[] | select(.item == "bwrap") | .status' <<<"$output")" = FAIL ]
        [[ $(jq -r '.items[] | select(.item == "bwrap") | .detail' <<<"$output") == \
                "bwrap $FIXTURE_BWRAP: not an ELF executable"* ]]
        [ ! -e "$MARKER" ] || fail "check executed a bwrap that failed its check"
}

@test "--version says bubblewrap: not found, or why bwrap is unusable, and never runs an unfit one" {
        run "$FIXTURE_SBRUN" --version
        [ "$status" -eq 0 ]
        grep -qx 'bubblewrap: not found' <<<"$output" || fail "$output"
        grep -q '^libseccomp: ' <<<"$output" || fail "$output"

        fake_bwrap 0775
        run "$FIXTURE_SBRUN" --version
        [ "$status" -eq 0 ]
        grep -qx "bubblewrap: unusable: bwrap $FIXTURE_BWRAP: writable by group or others (mode 0775).*" \
                <<<"$output" || fail "$output"
        [ ! -e "$MARKER" ] || fail "--version ran a group-writable bwrap"
}

# version_bwrap VERSION: an ELF stand-in whose --version prints VERSION.
version_bwrap() {
        printf '#include <stdio.h>\nint main(void) { puts("%s"); return 0; }\n' "$1" |
                cc -x c -o "$FIXTURE_BWRAP" - || fail "cannot build a stand-in bwrap"
        chmod 0755 "$FIXTURE_BWRAP"
}

@test "sbrun check: a tested bwrap version (Debian 13's 0.12.0) is ok; another warns, naming the build's and the tested versions" {
        local pol=() build
        [ -z "$SB_POLICY" ] || pol=(--policy "$SB_POLICY")
        build=$(bwrap --version)
        version_bwrap "bubblewrap 0.12.0"
        run "$FIXTURE_SBRUN" "${pol[@]}" check --format json
        [ "$(jq -r '.items[] | select(.item == "bwrap") | "\(.status) \(.detail)"' <<<"$output")" = \
                "ok $FIXTURE_BWRAP: bubblewrap 0.12.0" ] || fail "0.12.0: $output"
        version_bwrap "bubblewrap 0.9.0"
        run "$FIXTURE_SBRUN" "${pol[@]}" check --format json
        [ "$(jq -r '.items[] | select(.item == "bwrap") | "\(.status) \(.detail)"' <<<"$output")" = \
                "warn $FIXTURE_BWRAP: bubblewrap 0.9.0 (sbrun was built against $build and is tested with bubblewrap 0.8.0 and 0.12.0)" ] ||
                fail "0.9.0: $output"
}
