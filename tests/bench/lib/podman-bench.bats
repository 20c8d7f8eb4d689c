#!/usr/bin/env bats
# The engine case of tests/bench/run.sh (VM lane): `podman run --rm IMAGE
# true` with sbrun and with crun as podman's OCI runtime, on the private
# podman tree and offline image of tests/engines/lib/podman.bash. A bats file
# only to reuse that setup and teardown; it lives below tests/bench/lib so
# that tests/run-all.sh does not run it as a test.
#
# Environment: BENCH_OUT (results dir; writes raw/podman-roundN.json),
# BENCH_ROUNDS, BENCH_RUNS.

load ../../helpers
load ../../engines/lib/readme
load ../../engines/lib/podman

setup_file() {
        pm_setup_file
}

teardown_file() {
        pm_clean_tests
        rm -rf --one-file-system "$PM_DIR"
}

setup() {
        pm_env
}

teardown() {
        pm_clean_tests
}

@test "podman run --rm with sbrun and with crun" {
        local base r i names=(sbrun crun) args n
        base="podman --root $PM_DIR/root --runroot $PM_DIR/runroot run --rm --net none"
        # One try of each: a runtime that cannot run here fails the case.
        podman --runtime "$PM_RUNTIME" run --rm --net none "$PM_IMAGE" true
        podman --runtime "$(command -v crun)" run --rm --net none "$PM_IMAGE" true
        for ((r = 1; r <= BENCH_ROUNDS; r++)); do
                args=()
                for ((i = 0; i < 2; i++)); do
                        n=${names[$(((i + r - 1) % 2))]}
                        if [ "$n" = sbrun ]; then
                                args+=(--command-name sbrun "$base --runtime $PM_RUNTIME $PM_IMAGE true")
                        else
                                args+=(--command-name crun "$base --runtime $(command -v crun) $PM_IMAGE true")
                        fi
                done
                hyperfine -N --style none --warmup 1 --runs "$BENCH_RUNS" \
                        --export-json "$BENCH_OUT/raw/podman-round$r.json" "${args[@]}" 3>&- >/dev/null
        done
}
