#!/usr/bin/env bats
# Every runtime-spec 1.3 field has a decision (docs/policy.md, "Every
# runtime-spec field"), and the fields sbrun does not carry out are refused
# by name (spec/floor_spec_fields.c): create and run fail naming the field
# and the value and leave nothing behind, policy explain lists the refusal,
# and exec --process refuses a process field. runtime.md: a runtime MUST
# generate an error for what it cannot carry out. The process's scheduling
# (ioPriority, scheduler, execCPUAffinity, linux.personality) is carried
# out within the floor's limits, seen from inside the container.

load ../helpers

# The runtime-spec v1.3.0 config.json fields (config.md, config-linux.md,
# the platform sections) at the granularity of the table's rows: an object
# refused or carried out whole is one path, its members are named in its row.
SPEC_13_FIELDS='ociVersion root.path root.readonly mounts[].destination mounts[].type
mounts[].source mounts[].options mounts[].uidMappings mounts[].gidMappings
process.terminal process.consoleSize process.user.uid process.user.gid
process.user.umask process.user.additionalGids process.user.username process.args
process.commandLine process.env process.cwd process.capabilities process.rlimits[]
process.noNewPrivileges process.apparmorProfile process.oomScoreAdj process.scheduler
process.selinuxLabel process.ioPriority process.execCPUAffinity hostname domainname
hooks.prestart hooks.createRuntime hooks.createContainer hooks.startContainer
hooks.poststart hooks.poststop annotations linux.namespaces[] linux.uidMappings
linux.gidMappings linux.timeOffsets linux.devices[] linux.netDevices linux.cgroupsPath
linux.resources.devices[] linux.resources.memory.limit
linux.resources.memory.reservation linux.resources.memory.swap
linux.resources.memory.kernel linux.resources.memory.kernelTCP
linux.resources.memory.swappiness linux.resources.memory.disableOOMKiller
linux.resources.memory.useHierarchy linux.resources.memory.checkBeforeUpdate
linux.resources.cpu.shares linux.resources.cpu.quota linux.resources.cpu.burst
linux.resources.cpu.period linux.resources.cpu.realtimeRuntime
linux.resources.cpu.realtimePeriod linux.resources.cpu.cpus linux.resources.cpu.mems
linux.resources.cpu.idle linux.resources.pids.limit linux.resources.blockIO.weight
linux.resources.blockIO.leafWeight linux.resources.blockIO.weightDevice[]
linux.resources.blockIO.throttleReadBpsDevice linux.resources.blockIO.throttleWriteBpsDevice
linux.resources.blockIO.throttleReadIOPSDevice linux.resources.blockIO.throttleWriteIOPSDevice
linux.resources.hugepageLimits[] linux.resources.network linux.resources.rdma
linux.resources.unified linux.seccomp linux.rootfsPropagation linux.maskedPaths
linux.readonlyPaths linux.mountLabel linux.intelRdt linux.memoryPolicy linux.personality
linux.sysctl solaris windows vm zos freebsd'

# field_table: the rows of docs/policy.md's table, "FIELDS<TAB>DECISION".
field_table() {
        awk '/^## Every runtime-spec field/ { on = 1; next }
             on && /^## / { exit }
             on && /^\| `/ { split($0, c, "|"); gsub(/^ +| +$/, "", c[2]);
                             gsub(/^ +| +$/, "", c[3]); print c[2] "\t" c[3] }' \
                "$SBRUN_SRCDIR/docs/policy.md"
}

# parser_keys: every JSON key oci/config_parse*.c reads, as the string
# literal given to a json_/oci_/get_/require_/parse_ reader or to a
# { "key", &field } table.
parser_keys() {
        perl -0ne 'while (/\b(?:json_\w+|oci_\w+|get_\w+|require_\w+|parse_\w+|jpath_key)\(\s*[\w>\-.\[\]]+,\s*"(\w+)"/g) { print "$1\n" }
                   while (/\{\s*"(\w+)",\s*&/g) { print "$1\n" }' \
                "$SBRUN_SRCDIR"/oci/config_parse*.c | sort -u
}

@test "field table: every key the parser reads and every runtime-spec 1.3 field has a decision" {
        local table words key f n
        table=$(field_table)
        n=$(wc -l <<<"$table")
        [ "$n" -gt 40 ] || fail "docs/policy.md: the field table has $n rows"
        # The words of the first column: paths split at '.', '[]', '`' etc.
        words=" $(cut -f1 <<<"$table" | tr -c 'A-Za-z0-9\n' ' ' | tr -s ' \n' '  ') "
        [ "$(parser_keys | wc -l)" -gt 100 ] || fail "parser_keys found $(parser_keys | wc -l) keys"
        for key in $(parser_keys); do
                [[ $words == *" $key "* ]] ||
                        fail "oci/ parses \"$key\" but no row of docs/policy.md's field table names it"
        done
        for f in $SPEC_13_FIELDS; do
                grep -qF "\`$f\`" <<<"$(cut -f1 <<<"$table")" ||
                        fail "runtime-spec 1.3 field $f has no row in docs/policy.md's field table"
        done
        while IFS=$'\t' read -r f decision; do
                case $decision in
                "carried out" | clamped | refused | "not applicable") ;;
                *) fail "docs/policy.md: $f: decision \"$decision\"" ;;
                esac
        done <<<"$table"
}

@test "field table: each refused row is refused by sbrun" {
        # The rows say "refused"; the tests below run each. Here: the rows and
        # this file agree on which they are.
        local refused
        refused=$(field_table | awk -F'\t' '$2 == "refused" { print $1 }' |
                grep -o '^`[^`]*`' | tr -d '`' | sort | tr '\n' ' ')
        [ "$refused" = "linux.intelRdt linux.memoryPolicy linux.resources.memory.checkBeforeUpdate linux.timeOffsets " ] ||
                fail "refused rows: $refused"
}

# refused JQ FIELD VALUE [RULE]: a config edited by JQ fails `run` with
# "FIELD: VALUE refused (rule: RULE..." (RULE: "not supported by sbrun: "
# unless given) and leaves nothing behind; policy explain lists FIELD as
# refused with VALUE.
refused() {
        make_bundle
        set_cmd 'echo ran'
        edit_config "$1"
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "$2: $3 refused (rule: ${4:-not supported by sbrun: }"
        [[ $output != *ran* ]] || fail "the container ran: $output"
        run sbrun policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ] || fail "explain: $output"
        [ "$(jq -r .allowed <<<"$output")" = false ] || fail "explain allows $2: $output"
        jq -e --arg f "$2" --arg v "$3" \
                '.changes | any(.action == "refused" and .field == $f and .requested == $v)' \
                <<<"$output" >/dev/null || fail "explain does not refuse $2 with '$3': $output"
}

# runs_with JQ CMD: a fresh bundle edited by JQ runs CMD; $output is what
# it printed.
runs_with() {
        rm -rf "$BUNDLE"
        make_bundle
        set_cmd "$2"
        edit_config "$1"
        run sbrun run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run with $1: $output"
}

# The shell's nice and policy: fields 19 and 41 of /proc/PID/stat (its
# name, "sh", has no space).
SCHED_OF_SHELL='set -- $(cat /proc/$$/stat); echo "nice ${19} policy ${41}"'

@test "process.ioPriority is carried out; the real-time class is refused by name" {
        make_bundle
        runs_with '.process.ioPriority = {class: "IOPRIO_CLASS_BE", priority: 4}' 'ionice -p $$'
        [ "$output" = "best-effort: prio 4" ] || fail "BE 4: $output"
        runs_with '.process.ioPriority = {class: "IOPRIO_CLASS_IDLE", priority: 7}' 'ionice -p $$'
        [ "$output" = idle ] || fail "IDLE: $output"
        rm -rf "$BUNDLE"
        refused '.process.ioPriority = {class: "IOPRIO_CLASS_RT", priority: 0}' \
                process.ioPriority "IOPRIO_CLASS_RT 0" "would let the container starve the host: "
}

@test "process.scheduler is carried out; real-time policies and a negative nice are refused" {
        make_bundle
        # SCHED_BATCH is 3, SCHED_IDLE 5 (include/uapi/linux/sched.h).
        runs_with '.process.scheduler = {policy: "SCHED_BATCH", nice: 5}' "$SCHED_OF_SHELL"
        [ "$output" = "nice 5 policy 3" ] || fail "SCHED_BATCH nice 5: $output"
        runs_with '.process.scheduler = {policy: "SCHED_IDLE"}' "$SCHED_OF_SHELL"
        [[ $output == *"policy 5" ]] || fail "SCHED_IDLE: $output"
        local p
        for p in SCHED_FIFO SCHED_RR SCHED_DEADLINE; do
                rm -rf "$BUNDLE"
                refused ".process.scheduler = {policy: \"$p\"}" process.scheduler \
                        "$p nice 0 priority 0" "would let the container starve the host: a real-time"
        done
        rm -rf "$BUNDLE"
        refused '.process.scheduler = {policy: "SCHED_OTHER", nice: -1}' process.scheduler \
                "SCHED_OTHER nice -1 priority 0" "would let the container starve the host: a negative"
}

@test "process.execCPUAffinity is carried out; a bad list is refused by name" {
        [ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
        make_bundle
        # final is what the process runs with; initial held for the init only.
        runs_with '.process.execCPUAffinity = {initial: "1", final: "0"}' \
                'grep Cpus_allowed_list /proc/self/status'
        [ "$output" = "Cpus_allowed_list:	0" ] || fail "final 0: $output"
        runs_with '.process.execCPUAffinity = {final: "1"}' 'grep Cpus_allowed_list /proc/self/status'
        [ "$output" = "Cpus_allowed_list:	1" ] || fail "final 1: $output"
        rm -rf "$BUNDLE"
        refused '.process.execCPUAffinity = {initial: "0-x"}' process.execCPUAffinity.initial \
                '"0-x"' "a CPU list is "
}

@test "the CPU affinity sbrun inherits is reset to the container's CPUs" {
        [ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
        local all
        all=$(grep Cpus_allowed_list /proc/self/status)
        [ "$all" != "Cpus_allowed_list:	0" ] || skip "this test runs on CPU 0 only"
        make_bundle
        set_cmd 'grep Cpus_allowed_list /proc/self/status'
        run taskset -c 0 "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = "$all" ] || fail "taskset -c 0 sbrun run: $output, not $all"
}

@test "linux.personality LINUX is carried out; LINUX32 and flags are refused by name" {
        make_bundle
        set_cmd 'cat /proc/self/personality'
        # setarch -R gives sbrun ADDR_NO_RANDOMIZE (0x0040000): without the
        # field the container inherits it, LINUX sets PER_LINUX.
        run setarch "$(uname -m)" -R "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = 00040000 ] || fail "the caller's personality is not inherited: $output"
        edit_config '.linux.personality = {domain: "LINUX"}'
        run setarch "$(uname -m)" -R "${SBRUN_ARGV[@]}" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = 00000000 ] || fail "LINUX: $output"
        rm -rf "$BUNDLE"
        refused '.linux.personality = {domain: "LINUX32"}' linux.personality LINUX32 \
                "32-bit system calls are denied by the floor seccomp filter"
        rm -rf "$BUNDLE"
        refused '.linux.personality = {domain: "LINUX", flags: ["ADDR_NO_RANDOMIZE"]}' \
                linux.personality "LINUX with flags"
}

@test "linux.timeOffsets is refused by name" {
        refused '.linux.timeOffsets = {monotonic: {secs: 10}}' linux.timeOffsets "monotonic 10 0"
}

@test "linux.memoryPolicy is refused by name" {
        refused '.linux.memoryPolicy = {mode: "MPOL_BIND", nodes: "0"}' \
                linux.memoryPolicy 'MPOL_BIND nodes "0"'
}

@test "linux.netDevices is refused by name without the operator's floor.net_devices" {
        # net_devices.bats moves one, in a network namespace of its own.
        refused '.linux.netDevices = {"sbt-dummy0": {name: "eth1"}}' linux.netDevices '"sbt-dummy0"' \
                "standard: only the network devices floor.net_devices names"
}

@test "linux.intelRdt is refused by name" {
        refused '.linux.intelRdt = {closID: "sbrun-test", schemata: ["L3:0=f"]}' \
                linux.intelRdt 'closID "sbrun-test"'
}

# Carried out on binds (idmap.bats); anything else cannot be idmapped.
@test "mounts[].uidMappings and gidMappings of a mount that is no bind are refused by name" {
        local n
        make_bundle
        n=$(jq '.mounts | length' "$BUNDLE/config.json")
        rm -rf "$BUNDLE"
        refused '.mounts += [{destination: "/mapped", type: "tmpfs", source: "tmpfs",
                             uidMappings: [{containerID: 0, hostID: 100000, size: 1}]}]' \
                "mounts[$n].uidMappings" "a tmpfs mount" \
                "not supported by sbrun: only a bind mount can be idmapped"
        rm -rf "$BUNDLE"
        refused '.mounts += [{destination: "/mapped", type: "tmpfs", source: "tmpfs",
                             gidMappings: [{containerID: 0, hostID: 100000, size: 1}]}]' \
                "mounts[$n].gidMappings" "a tmpfs mount" \
                "not supported by sbrun: only a bind mount can be idmapped"
}

@test "linux.resources.memory.checkBeforeUpdate true is refused by name; false runs" {
        refused '.linux.resources.memory = {checkBeforeUpdate: true}' \
                linux.resources.memory.checkBeforeUpdate true
        edit_config '.linux.resources.memory = {checkBeforeUpdate: false}'
        run sbrun run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = ran ]
}

@test "empty netDevices, timeOffsets and mount mappings ask for nothing and run" {
        make_bundle
        set_cmd 'echo ran'
        edit_config '.linux.netDevices = {} | .linux.timeOffsets = {} |
                .mounts += [{destination: "/m", type: "tmpfs", source: "tmpfs", uidMappings: []}]'
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = ran ]
}

# exec_process JQ CMD: exec --process with podman's process document edited
# by JQ, running sh -c CMD.
exec_process() {
        jq --arg c "$2" "$1"' | .args = ["sh", "-c", $c]' \
                "$SBRUN_SRCDIR/tests/unit/data/podman-4.3.1-exec-process.json" >"$TEST_DIR/process.json"
        run sbrun exec --process "$TEST_DIR/process.json" "$ID"
}

@test "exec carries out the process's scheduling: from --process, else the config's" {
        [ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
        make_bundle
        set_args sleep 600
        edit_config '.process.scheduler = {policy: "SCHED_BATCH", nice: 7}'
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        exec_process '.ioPriority = {class: "IOPRIO_CLASS_IDLE", priority: 0}' 'ionice -p $$'
        [ "$status" -eq 0 ] && [ "$output" = idle ] || fail "ioPriority IDLE: $output"
        exec_process '.scheduler = {policy: "SCHED_IDLE"}' "$SCHED_OF_SHELL"
        [ "$status" -eq 0 ] && [[ $output == *"policy 5" ]] || fail "SCHED_IDLE: $output"
        exec_process '.execCPUAffinity = {final: "1"}' \
                "grep Cpus_allowed_list /proc/self/status; $SCHED_OF_SHELL"
        [ "$status" -eq 0 ] || fail "final 1: $output"
        [ "$(tr '\n\t' '  ' <<<"$output")" = "Cpus_allowed_list: 1 nice 7 policy 3 " ] ||
                fail "final 1, the config's scheduler: $output"
        # The command-line exec: the config's scheduler, and every CPU
        # although its caller had one.
        local all
        all=$(grep Cpus_allowed_list /proc/self/status | tr '\t' ' ')
        run taskset -c 0 "${SBRUN_ARGV[@]}" exec "$ID" sh -c \
                "grep Cpus_allowed_list /proc/self/status; $SCHED_OF_SHELL"
        [ "$status" -eq 0 ] || fail "exec: $output"
        [ "$(tr '\n\t' '  ' <<<"$output")" = "$all nice 7 policy 3 " ] || fail "exec: $output"
        [ "$(container_status "$ID")" = running ]
}

@test "exec --process is held to the floor's limits on the scheduling fields" {
        make_bundle
        set_args sleep 600
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        local p
        for p in '.ioPriority = {class: "IOPRIO_CLASS_RT", priority: 0}' \
                '.scheduler = {policy: "SCHED_FIFO", priority: 1}' '.scheduler = {policy: "SCHED_OTHER", nice: -5}'; do
                exec_process "$p" 'echo ran'
                [ "$status" -ne 0 ] || fail "exec with $p: $output"
                [[ $output == *"process.${p:1:8}"*"refused (rule: would let the container starve the host: "* ]] ||
                        fail "exec with $p: $output"
                [[ $output != *ran* ]] || fail "the process ran: $output"
        done
        exec_process '.execCPUAffinity = {final: "1,"}' 'echo ran'
        [ "$status" -ne 0 ] || fail "exec with final \"1,\": $output"
        [[ $output == *'process.execCPUAffinity.final: "1," refused (rule: a CPU list is '* ]] ||
                fail "exec with final \"1,\": $output"
        [ "$(container_status "$ID")" = running ]
}

@test "ociVersion: another major version is refused; a newer 1.x runs with a warning" {
        make_bundle
        set_cmd 'echo ran'
        edit_config '.ociVersion = "2.0.0"'
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'ociVersion: "2.0.0" refused (rule: newer than sbrun supports (1.3.0))'

        edit_config '.ociVersion = "1.9.0"'
        run sbrun --log "$TEST_DIR/v.log" run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = ran ]
        grep -q 'ociVersion: \\"1.9.0\\" is newer than sbrun supports (1.3.0)' "$TEST_DIR/v.log" ||
                fail "no warning: $(cat "$TEST_DIR/v.log")"
}

@test "the engines' configs ask for none of the refused fields (engines.bats runs them)" {
        local cfg
        for cfg in podman-4.3.1-config.json containerd-1.6.20-config.json; do
                run jq -r '[paths | map(tostring) | join(".")] | .[]' \
                        "$SBRUN_SRCDIR/tests/unit/data/$cfg"
                [ "$status" -eq 0 ]
                ! grep -E 'timeOffsets|memoryPolicy|netDevices|intelRdt|mounts\.[0-9]+\.(uid|gid)Mappings|checkBeforeUpdate' <<<"$output" ||
                        fail "$cfg asks for a refused field"
        done
}
