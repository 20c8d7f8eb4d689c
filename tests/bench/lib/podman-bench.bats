#!/usr/bin/env bats
# The engine case of tests/bench/run.sh (VM lane): `podman run --rm IMAGE
# true` with sbrun and with crun (and runc, BENCH_RUNTIMES) as podman's OCI
# runtime, with podman's cgroup manager PM_CGROUP_MANAGER, on the private
# podman tree and offline image of tests/engines/lib/podman.bash. A bats file
# only to reuse that setup and teardown; it lives below tests/bench/lib so
# that tests/run-all.sh does not run it as a test.
#
# Environment: BENCH_OUT (results dir; writes raw/podman-roundN.json),
# BENCH_ROUNDS, BENCH_RUNS, BENCH_RUNTIMES (default "sbrun crun").

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

@test "podman run --rm with each runtime of BENCH_RUNTIMES" {
        local base r i names n
        read -ra names <<<"${BENCH_RUNTIMES:-sbrun crun}"
        base="podman --root $PM_DIR/root --runroot $PM_DIR/runroot run --rm --net none"
        # bench_runtime NAME: the --runtime podman gets for NAME.
        bench_runtime() {
                if [ "$1" = sbrun ]; then echo "$PM_RUNTIME"; else command -v "$1"; fi
        }
        # One try of each: a runtime that cannot run here fails the case.
        for n in "${names[@]}"; do
                podman --runtime "$(bench_runtime "$n")" run --rm --net none "$PM_IMAGE" true
        done
        for ((r = 1; r <= BENCH_ROUNDS; r++)); do
                local args=()
                for ((i = 0; i < ${#names[@]}; i++)); do
                        n=${names[$(((i + r - 1) % ${#names[@]}))]}
                        args+=(--command-name "$n" "$base --runtime $(bench_runtime "$n") $PM_IMAGE true")
                done
                hyperfine -N --style none --warmup 1 --runs "$BENCH_RUNS" \
                        --export-json "$BENCH_OUT/raw/podman-round$r.json" "${args[@]}" 3>&- >/dev/null
        done
}
