#!/bin/bash
# tests/bench/run.sh: sbrun's start-up benchmark against crun, runc, bare
# bwrap and unshare, on one generated bundle; then the scale cases.
#
#   tests/bench/run.sh [--tiny] [--rounds N] [--runs N] [--out DIR] [--no-scale]
#                      [--bundle-in DIR]
#
# Options:
#   --tiny       one round of 3 runs, scale cases at 5 containers and 20 state
#                dirs: proves the bench works (make check runs this)
#   --rounds N   rounds (default 5); each round runs every command --runs
#                times in one hyperfine call, the order rotated per round
#   --runs N     timed runs per command and round (default 20)
#   --out DIR    where results go (default $SBRUN_BUILDDIR/tests/bench-results/LANE)
#   --no-scale   leave out the scale cases
#   --bundle-in DIR  make the bundle in DIR (default: the bench's temp dir),
#                so that its file system is the one measured (vm-bench.sh
#                --locations: tmpfs, ext4, 9p); results.json names it
# Environment: SBRUN (default $SBRUN_BUILDDIR/sbrun), SBRUN_BUILDDIR,
# SBRUN_SRCDIR. In the VM lane (SBRUN_VM=1, see vm-bench.sh) every runtime
# gets a real cgroup v2 cgroup and sbrun runs with no policy. In a guest whose
# PID 1 is systemd (tests/vm/run.sh --systemd; lane vm-systemd) every runtime
# runs with its systemd cgroup driver (--systemd-cgroup: a transient scope
# over D-Bus per container) and podman with its default, systemd, cgroup
# manager, with sbrun, crun and runc; no scale cases there.
#
# Writes DIR/results.json (medians, ratios, every raw time), DIR/table.txt
# (printed too), DIR/bench.png (distributions) and DIR/raw/ (hyperfine's
# JSON exports). Never fails on a time: the exit status says only whether
# the bench could run. tests/bench/README.md explains the numbers.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$here/../.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
lane=host
[ "${SBRUN_VM:-0}" = 1 ] && lane=vm
[ "$lane" = vm ] && [ "$(cat /proc/1/comm)" = systemd ] && lane=vm-systemd

tiny=0 rounds=5 runs=20 out="" scale=1 inner=0 bundle_in=""
args=("$@")
while [ $# -gt 0 ]; do
        case $1 in
        --tiny) tiny=1 rounds=1 runs=3 ;;
        --rounds) rounds=$2 && shift ;;
        --runs) runs=$2 && shift ;;
        --out) out=$2 && shift ;;
        --no-scale) scale=0 ;;
        --bundle-in) bundle_in=$2 && shift ;;
        --inner) inner=1 ;;
        -h | --help)
                sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0"
                exit 0
                ;;
        *)
                echo "$0: unknown option $1 (see --help)" >&2
                exit 2
                ;;
        esac
        shift
done
out=${out:-$SBRUN_BUILDDIR/tests/bench-results/$lane}
[ "$lane" = vm-systemd ] && scale=0

die() {
        echo "bench: error: $*" >&2
        exit 1
}
say() { echo "bench: $*" >&2; }

[ "$(id -u)" -eq 0 ] || die "run as root (the runtimes run rootful containers)"
for t in hyperfine jq gnuplot bwrap unshare crun runc; do
        command -v "$t" >/dev/null || die "$t not found: tests/install-deps.sh installs it"
done
[ -x "$SBRUN" ] || die "sbrun not found: SBRUN=$SBRUN"
SBRUN=$(realpath "$SBRUN")

# crun 1.8 refuses any container on a hybrid host whose cgroup2 mount has a
# controller enabled (this host's offers hugetlb), whatever its cgroup
# manager. The whole bench therefore runs in a private mount namespace in
# which an empty file hides /sys/fs/cgroup/unified/cgroup.controllers: the
# host's mounts and cgroups are untouched, and every runtime (not only crun)
# runs in that same namespace, so none pays for the workaround.
hybrid_masked=false
if [ "$lane" = host ] && [ "$inner" = 0 ] && grep -q . /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
        exec unshare --mount --propagation private "$0" --inner ${args[@]+"${args[@]}"} --out "$out"
fi
if [ "$inner" = 1 ]; then
        mkdir -p "$out"
        : >"$out/.empty-controllers"
        mount --bind -o ro "$out/.empty-controllers" /sys/fs/cgroup/unified/cgroup.controllers ||
                die "cannot hide cgroup.controllers in the bench's mount namespace"
        hybrid_masked=true
fi

mkdir -p "$out/raw"
rm -f "$out"/raw/*.json "$out"/*.dat
work=$(mktemp -d "${TMPDIR:-/tmp}/sbrun-bench.XXXXXX")
chmod 0755 "$work"
cleanup() {
        local id
        for id in $(cat "$work/ids" 2>/dev/null); do
                "$SBRUN" --root "$work/root/scale" ${policy_args[@]+"${policy_args[@]}"} \
                        delete --force "$id" >/dev/null 2>&1 || true
        done
        rm -rf --one-file-system "$work"
        [ -z "$bundle_in" ] || rm -rf "${bundle:-}"
}
trap cleanup EXIT

# ---- the bundle: the same config.json for every runtime ----------------------
bundle=$work/bundle
[ -z "$bundle_in" ] || bundle=$(mktemp -d "$bundle_in/sbrun-bench-bundle.XXXXXX")
mkdir -p "$bundle"
bundle_fs=$(findmnt -n -o FSTYPE --target "$bundle")
"$SBRUN_SRCDIR/tests/lib/make-rootfs.sh" "$work/rootfs-cache" >/dev/null
cp -a "$work/rootfs-cache" "$bundle/rootfs"
# runc's starter spec, with no terminal, /bin/true, a read-only root and a
# cgroup namespace (sbrun's floor always adds one; the others get it asked;
# runc spec has one already on a cgroup v2 host).
(cd "$bundle" && runc spec)
jq '.process.terminal = false | .process.args = ["/bin/true"] | .root.readonly = true
    | if any(.linux.namespaces[]; .type == "cgroup") then . else .linux.namespaces += [{"type": "cgroup"}] end' "$bundle/config.json" >"$bundle/c.json"
mv "$bundle/c.json" "$bundle/config.json"
# The scale cases' bundle: the same config, a long sleep.
cp -a "$bundle" "$work/sleeper"
jq '.process.args = ["/bin/sleep", "100000"]' "$bundle/config.json" >"$work/sleeper/config.json"

mkdir -p "$work/root"/{sbrun,crun,runc,scale,list1,listN}
chmod 0700 "$work/root"/*
policy_args=()
crun_args=()
runc_args=()
driver_args=()
if [ "$lane" = vm-systemd ]; then
        # Each runtime's systemd driver, with its own default unit for a
        # config without cgroupsPath (runc's spec has none).
        driver_args=(--systemd-cgroup)
        crun_args=(--systemd-cgroup)
        runc_args=(--systemd-cgroup)
fi
if [ "$lane" = host ]; then
        # A hybrid host: sbrun fails closed unless the operator opts out, and
        # then makes no cgroup; crun gets none either (manager disabled);
        # runc cannot be told so and makes its v1 cgroups (it removes them).
        printf '%s\n' '{"cgroups": {"enforce": false}}' >"$work/policy.json"
        chmod 0644 "$work/policy.json"
        policy_args=(--policy "$work/policy.json")
        crun_args=(--cgroup-manager=disabled)
fi
sb=("$SBRUN" --log "$work/sbrun.log" ${policy_args[@]+"${policy_args[@]}"} ${driver_args[@]+"${driver_args[@]}"})
ns_flags=(--unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup)

# One try of each before timing: a runtime that cannot run here fails the
# bench with its own message.
check() {
        local name=$1
        shift
        if ! "$@" </dev/null >"$work/check.out" 2>&1; then
                cat "$work/check.out" >&2
                die "$name cannot run the bundle here: $*"
        fi
}

# ---- the cases --------------------------------------------------------------
# Each case: NAME=COMMAND lines; commands run with hyperfine -N (no shell) or,
# for the cycle, through sh -c (hyperfine subtracts the shell's own time).
declare -A cmd_run cmd_cycle
cmd_run[sbrun]="${sb[*]} --root $work/root/sbrun run -b $bundle bench-sbrun"
cmd_run[crun]="crun ${crun_args[*]} --root $work/root/crun run -b $bundle bench-crun"
cmd_run[runc]="runc ${runc_args[*]} --root $work/root/runc run -b $bundle bench-runc"
cmd_run[bwrap]="bwrap ${ns_flags[*]} --die-with-parent --ro-bind $bundle/rootfs / --proc /proc --dev /dev /bin/true"
cmd_run[unshare]="unshare --pid --net --ipc --uts --cgroup --mount --fork --root $bundle/rootfs /bin/true"
order_run=(sbrun crun runc bwrap unshare)

cycle() { # RUNTIME-ARGV: create, start, delete as an engine drives it
        local id=$1
        shift
        echo "$* create -b $bundle $id </dev/null >/dev/null 2>&1 && $* start $id && $* delete --force $id"
}
cmd_cycle[sbrun]=$(cycle cyc-sbrun "${sb[@]}" --root "$work/root/sbrun")
cmd_cycle[crun]=$(cycle cyc-crun crun ${crun_args[@]+"${crun_args[@]}"} --root "$work/root/crun")
cmd_cycle[runc]=$(cycle cyc-runc runc ${runc_args[@]+"${runc_args[@]}"} --root "$work/root/runc")
order_cycle=(sbrun crun runc)

for n in "${order_run[@]}"; do
        # shellcheck disable=SC2086 # the commands are word lists
        check "$n" ${cmd_run[$n]}
done
for n in "${order_cycle[@]}"; do
        check "$n (create/start/delete)" sh -c "${cmd_cycle[$n]}"
done

# bench_case CASE SHELL ORDER...: ROUNDS hyperfine calls, the command order
# rotated each round so that no runtime always runs first or last.
bench_case() {
        local case=$1 r i n
        local -a shell=()
        [ "$2" = none ] && shell=(-N)
        shift 2
        local -n cmds=cmd_$case
        local names=("$@")
        for ((r = 1; r <= rounds; r++)); do
                local args=()
                for ((i = 0; i < ${#names[@]}; i++)); do
                        n=${names[$(((i + r - 1) % ${#names[@]}))]}
                        args+=(--command-name "$n" "${cmds[$n]}")
                done
                say "$case: round $r of $rounds"
                hyperfine ${shell[@]+"${shell[@]}"} --style none --warmup 2 \
                        --runs "$runs" --export-json "$out/raw/$case-round$r.json" \
                        "${args[@]}" 2>&1 >/dev/null | grep -v -e '^ *$' -e 'Statistical outliers' >&2 || true
        done
}

bench_case run none "${order_run[@]}"
bench_case cycle sh "${order_cycle[@]}"

# ---- scale cases ------------------------------------------------------------
scale_json='{}'
if [ "$scale" = 1 ]; then
        if [ "$tiny" = 1 ]; then n_run=5 n_dirs=20 reps=3; else n_run=100 n_dirs=1000 reps=9; fi
        sc=("${sb[@]}" --root "$work/root/scale")
        ns_now() { date +%s%N; }
        # create_times ID-PREFIX: REPS timed creates (each deleted after, untimed)
        create_times() {
                local k t0 t1
                for ((k = 1; k <= reps; k++)); do
                        t0=$(ns_now)
                        "${sc[@]}" create -b "$work/sleeper" "$1-$k" </dev/null >/dev/null 2>&1 ||
                                die "sbrun create $1-$k failed (see $work/sbrun.log)"
                        t1=$(ns_now)
                        "${sc[@]}" delete --force "$1-$k" >/dev/null 2>&1
                        echo $(((t1 - t0) / 1000))
                done | jq -s 'map(. / 1000)'
        }
        # The same moments, bare: bwrap making the same namespaces. A
        # kernel that slows down with many namespaces alive slows this too.
        bwrap_times() {
                local k t0 t1
                for ((k = 1; k <= reps; k++)); do
                        t0=$(ns_now)
                        # shellcheck disable=SC2086 # a word list
                        ${cmd_run[bwrap]} </dev/null >/dev/null 2>&1
                        t1=$(ns_now)
                        echo $(((t1 - t0) / 1000))
                done | jq -s 'map(. / 1000)'
        }
        # Warm what the first create of a root caches (the seccomp filter).
        "${sc[@]}" create -b "$work/sleeper" warm </dev/null >/dev/null 2>&1
        "${sc[@]}" delete --force warm >/dev/null 2>&1
        first=$(create_times first)
        bwrap_first=$(bwrap_times)
        say "scale: starting $n_run containers"
        for ((k = 1; k <= n_run; k++)); do
                echo "s$k" >>"$work/ids"
                if ! "${sc[@]}" create -b "$work/sleeper" "s$k" </dev/null >/dev/null 2>&1 ||
                        ! "${sc[@]}" start "s$k"; then
                        die "container s$k did not start (see $work/sbrun.log)"
                fi
        done
        # A process whose executable is sbrun, while the containers run.
        stayed=0
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/exe" 2>/dev/null)" = "$SBRUN" ] && stayed=$((stayed + 1))
        done
        running=$("${sc[@]}" list --format json | jq '[.[] | select(.status == "running")] | length')
        next=$(create_times next)
        bwrap_next=$(bwrap_times)
        for id in $(cat "$work/ids"); do "${sc[@]}" delete --force "$id" >/dev/null 2>&1; done
        rm -f "$work/ids"

        # list: 1 and N_DIRS state directories, copies of one stopped record.
        "${sc[@]}" create -b "$work/sleeper" proto </dev/null >/dev/null 2>&1
        "${sc[@]}" kill proto KILL
        for ((k = 0; k < 50; k++)); do
                [ "$("${sc[@]}" state proto | jq -r .status)" = stopped ] && break
                sleep 0.1
        done
        make_dirs() { # ROOT COUNT
                local k d
                for ((k = 1; k <= $2; k++)); do
                        d=$(printf 'c%05d' "$k")
                        cp -a "$work/root/scale/proto" "$1/$d"
                        sed "s/\"id\":\"proto\"/\"id\":\"$d\"/" "$work/root/scale/proto/state.json" \
                                >"$1/$d/state.json"
                done
        }
        make_dirs "$work/root/list1" 1
        make_dirs "$work/root/listN" "$n_dirs"
        "${sc[@]}" delete --force proto >/dev/null 2>&1
        listed=$("$SBRUN" --root "$work/root/listN" list -q | wc -l)
        say "scale: list of 1 and of $n_dirs state directories"
        hyperfine -N --style none --warmup 3 --runs $((tiny ? 5 : 40)) \
                --export-json "$out/raw/list.json" \
                --command-name "list-1" "$SBRUN --root $work/root/list1 list" \
                --command-name "list-$n_dirs" "$SBRUN --root $work/root/listN list" >/dev/null
        scale_json=$(jq -n --argjson first "$first" --argjson next "$next" \
                --argjson bwrap_first "$bwrap_first" --argjson bwrap_next "$bwrap_next" \
                --argjson stayed "$stayed" --argjson running "$running" \
                --argjson n_run "$n_run" --argjson n_dirs "$n_dirs" --argjson listed "$listed" \
                --slurpfile list "$out/raw/list.json" '
                def median: sort | if length == 0 then null
                        elif length % 2 == 1 then .[length / 2 | floor]
                        else (.[length / 2 - 1] + .[length / 2]) / 2 end;
                {
                  containers_running: $running, n_running_wanted: $n_run,
                  sbrun_processes_while_running: $stayed,
                  create_first_ms: ($first | median), create_next_ms: ($next | median),
                  create_first_times_ms: $first, create_next_times_ms: $next,
                  create_next_over_first: (($next | median) / ($first | median)),
                  bwrap_first_ms: ($bwrap_first | median), bwrap_next_ms: ($bwrap_next | median),
                  bwrap_next_over_first: (($bwrap_next | median) / ($bwrap_first | median)),
                  list_dirs: $n_dirs, list_listed: $listed,
                  list_1_ms: ($list[0].results[0].times | map(. * 1000) | median),
                  list_n_ms: ($list[0].results[1].times | map(. * 1000) | median),
                  list_1_times_ms: ($list[0].results[0].times | map(. * 1000)),
                  list_n_times_ms: ($list[0].results[1].times | map(. * 1000))
                } | .list_n_over_1 = (.list_n_ms / .list_1_ms)')
fi

# ---- the engine case: podman run, sbrun against crun (VM lanes) --------------
# Only where crun can make the container's cgroup: a podman on the hybrid
# host would make cgroups in every v1 hierarchy (tests/engines/lib/podman.bash).
if [ "$lane" != host ] && [ "${SBRUN_BENCH_PODMAN:-1}" = 1 ]; then
        pm_runtimes="sbrun crun" pm_manager=cgroupfs
        if [ "$lane" = vm-systemd ]; then
                pm_runtimes="sbrun crun runc" pm_manager=default
        fi
        say "podman: run --rm IMAGE true with $pm_runtimes ($pm_manager cgroup manager)"
        # podman refuses a --runroot longer than 50 characters: a short dir.
        pm_tmp=$(mktemp -d /tmp/sbpm.XXXXXX)
        chmod 0755 "$pm_tmp"
        BENCH_OUT=$out BENCH_RUNS=$((tiny ? 3 : runs)) BENCH_ROUNDS=$((tiny ? 1 : rounds)) \
                BENCH_RUNTIMES=$pm_runtimes PM_CGROUP_MANAGER=$pm_manager \
                BATS_TEST_TIMEOUT=${SBRUN_BENCH_PODMAN_TIMEOUT:-3600} \
                SBRUN_TEST_TMP=$pm_tmp SBRUN_ROOTFS=$work/rootfs-cache \
                bats --tap "$here/lib/podman-bench.bats" </dev/null >"$out/podman.tap" 2>&1 ||
                say "podman case failed (see $out/podman.tap): left out"
        rm -rf --one-file-system "$pm_tmp"
fi

# ---- results.json -----------------------------------------------------------
versions=$(jq -n --arg sbrun "$("$SBRUN" --version 2>&1 | head -n 1)" \
        --arg crun "$(crun --version | head -n 1)" --arg runc "$(runc --version | head -n 1)" \
        --arg bwrap "$(bwrap --version)" --arg hyperfine "$(hyperfine --version)" \
        --arg kernel "$(uname -r)" '$ARGS.named')
jq -n --arg lane "$lane" --argjson rounds "$rounds" --argjson runs "$runs" \
        --argjson tiny "$tiny" --argjson masked "$hybrid_masked" \
        --argjson versions "$versions" --argjson scale "$scale_json" \
        --arg date "$(date -u +%FT%TZ)" --arg cpus "$(nproc)" --arg bundle_fs "$bundle_fs" '
        def median: sort | if length == 0 then null
                elif length % 2 == 1 then .[length / 2 | floor]
                else (.[length / 2 - 1] + .[length / 2]) / 2 end;
        # per case: the rounds, each {name: [times in ms]}
        def rounds_of(c): [inputs | select(.case == c) | .r];
        {lane: $lane, date: $date, cpus: ($cpus | tonumber), rounds: $rounds,
         runs: $runs, tiny: ($tiny == 1), hybrid_controllers_masked: $masked,
         bundle_fs: $bundle_fs, versions: $versions, scale: $scale}' >"$out/head.json"
for f in "$out"/raw/*-round*.json; do
        c=$(basename "$f" | sed 's/-round.*//')
        jq -c --arg c "$c" '{case: $c, r: (.results | map({key: .command, value: (.times | map(. * 1000))}) | from_entries)}' "$f"
done >"$out/rounds.jsonl"
# The summary, in plain jq: medians per round, the median of those, and
# ratios per round (sbrun over each other command) with their median.
jq -n --slurpfile head "$out/head.json" '
        def median: sort | if length == 0 then null
                elif length % 2 == 1 then .[length / 2 | floor]
                else (.[length / 2 - 1] + .[length / 2]) / 2 end;
        [inputs] as $all
        | def summary(c):
            ($all | map(select(.case == c) | .r)) as $rs
            | ($rs | map(map_values(median))) as $meds
            | ($rs[0] | keys) as $names
            | {commands: ($names | map(. as $n | {key: $n, value: {
                    median_ms: ($meds | map(.[$n]) | median),
                    round_medians_ms: ($meds | map(.[$n])),
                    times_ms: ($rs | map(.[$n]) | add)}}) | from_entries),
               ratios: ($names | map(select(. != "sbrun")) | map(. as $n | {
                    key: ("sbrun/" + $n),
                    value: ($meds | map(.sbrun / .[$n]) | median)}) | from_entries)};
        $head[0] + {cases: ($all | map(.case) | unique | map(. as $c | {key: $c, value: summary($c)})
                | from_entries)}' \
        "$out/rounds.jsonl" >"$out/results.json"
rm -f "$out/head.json" "$out/rounds.jsonl"

# ---- the table --------------------------------------------------------------
jq -r '
        def f: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
        "sbrun bench, \(.lane) lane, \(.rounds) round(s) x \(.runs) runs, \(.date), \(.cpus) CPUs, bundle on \(.bundle_fs)",
        "",
        (.cases | to_entries | sort_by({run: 0, cycle: 1, podman: 2}[.key] // 9)[]
          | .key as $c | .value as $v |
          "\($c): median ms (median of the round medians)",
          ($v.commands | to_entries | sort_by(.value.median_ms)[] |
            "  \(.key | . + "          " | .[0:10]) \(.value.median_ms | f)"),
          "  ratios: " + ([$v.ratios | to_entries[] | "\(.key) \(.value | f)"] | join(", ")),
          ""),
        (if .scale == {} then empty else .scale |
          "scale: \(.containers_running) of \(.n_running_wanted) containers running",
          "  create, first: \(.create_first_ms | f) ms; with them running: \(.create_next_ms | f) ms; next/first \(.create_next_over_first | f) (want <= 1.2)",
          "  bare bwrap at the same moments: \(.bwrap_first_ms | f) ms, then \(.bwrap_next_ms | f) ms; next/first \(.bwrap_next_over_first | f)",
          "  sbrun processes while they run: \(.sbrun_processes_while_running) (want 0)",
          "  list, 1 dir: \(.list_1_ms | f) ms; \(.list_dirs) dirs: \(.list_n_ms | f) ms (\(.list_listed) listed); ratio \(.list_n_over_1 | f) (want < 5)"
        end)' "$out/results.json" | tee "$out/table.txt"

# ---- the plot ---------------------------------------------------------------
case_order='.cases | keys | sort_by({run: 0, cycle: 1, podman: 2}[.] // 9)[]'

plot_cols() { # CASE: one data file per command, times in ms
        jq -r --arg c "$1" '.cases[$c].commands | to_entries | sort_by(.value.median_ms)[] | .key' \
                "$out/results.json"
}
gp=$out/bench.gp
{
        echo "set terminal pngcairo size 1200,520 font ',10'"
        echo "set output '$out/bench.png'"
        echo "set multiplot layout 1,$(jq '.cases | length' "$out/results.json") title 'sbrun bench, $lane lane: every timed run (ms, log scale); box = quartiles, line = median'"
        echo "set style data boxplot; set style boxplot outliers pointtype 7; set style fill solid 0.3"
        echo "set logscale y; set grid ytics; set ylabel 'ms'; unset key; set xtics nomirror"
        echo "set boxwidth 0.5; set pointsize 0.4"
        for c in $(jq -r "$case_order" "$out/results.json"); do
                i=0 plots=() labels=()
                for n in $(plot_cols "$c"); do
                        i=$((i + 1))
                        jq -r --arg c "$c" --arg n "$n" '.cases[$c].commands[$n].times_ms[]' \
                                "$out/results.json" >"$out/$c-$n.dat"
                        plots+=("'$out/$c-$n.dat' using ($i):1 lc $i")
                        labels+=("\"$n\" $i")
                done
                [ "$c" = run ] && echo "set title '$c: RUNTIME run /bin/true'"
                [ "$c" = cycle ] && echo "set title '$c: create, start, delete --force'"
                [ "$c" = podman ] && echo "set title '$c: podman run --rm IMAGE true'"
                echo "set xtics ($(
                        IFS=,
                        echo "${labels[*]}"
                )); set xrange [0.5:$i.5]"
                echo "plot $(
                        IFS=,
                        echo "${plots[*]}"
                )"
        done
        echo "unset multiplot"
} >"$gp"
gnuplot "$gp" || die "gnuplot failed on $gp"
[ -s "$out/bench.png" ] || die "no plot was drawn"
say "results: $out/results.json, $out/table.txt, $out/bench.png"
