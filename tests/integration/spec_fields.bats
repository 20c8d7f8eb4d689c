#!/usr/bin/env bats
# Every runtime-spec 1.3 field has a decision (docs/policy.md, "Every
# runtime-spec field"), and the fields sbrun does not carry out are refused
# by name (spec/floor_spec_fields.c): create and run fail naming the field
# and the value and leave nothing behind, policy explain lists the refusal,
# and exec --process refuses a process field. runtime.md: a runtime MUST
# generate an error for what it cannot carry out.

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
        [ "$refused" = "linux.intelRdt linux.memoryPolicy linux.netDevices linux.personality linux.resources.memory.checkBeforeUpdate linux.timeOffsets mounts[].uidMappings process.execCPUAffinity process.ioPriority process.scheduler " ] ||
                fail "refused rows: $refused"
}

# refused JQ FIELD VALUE: a config edited by JQ fails `run` with
# "FIELD: VALUE refused (rule: not supported by sbrun: ..." and leaves
# nothing behind; policy explain lists FIELD as refused with VALUE.
refused() {
        make_bundle
        set_cmd 'echo ran'
        edit_config "$1"
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "$2: $3 refused (rule: not supported by sbrun: "
        [[ $output != *ran* ]] || fail "the container ran: $output"
        run sbrun policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ] || fail "explain: $output"
        [ "$(jq -r .allowed <<<"$output")" = false ] || fail "explain allows $2: $output"
        jq -e --arg f "$2" --arg v "$3" \
                '.changes | any(.action == "refused" and .field == $f and .requested == $v)' \
                <<<"$output" >/dev/null || fail "explain does not refuse $2 with '$3': $output"
}

@test "process.ioPriority is refused by name" {
        refused '.process.ioPriority = {class: "IOPRIO_CLASS_BE", priority: 4}' \
                process.ioPriority "IOPRIO_CLASS_BE 4"
}

@test "process.scheduler is refused by name" {
        refused '.process.scheduler = {policy: "SCHED_BATCH", nice: 5}' process.scheduler SCHED_BATCH
}

@test "process.execCPUAffinity is refused by name" {
        refused '.process.execCPUAffinity = {initial: "0", final: "0"}' \
                process.execCPUAffinity 'initial "0" final "0"'
}

@test "linux.personality is refused by name" {
        refused '.linux.personality = {domain: "LINUX32"}' linux.personality LINUX32
}

@test "linux.timeOffsets is refused by name" {
        refused '.linux.timeOffsets = {monotonic: {secs: 10}}' linux.timeOffsets "monotonic 10 0"
}

@test "linux.memoryPolicy is refused by name" {
        refused '.linux.memoryPolicy = {mode: "MPOL_BIND", nodes: "0"}' \
                linux.memoryPolicy 'MPOL_BIND nodes "0"'
}

@test "linux.netDevices is refused by name" {
        refused '.linux.netDevices = {"sbt-dummy0": {name: "eth1"}}' linux.netDevices '"sbt-dummy0"'
}

@test "linux.intelRdt is refused by name" {
        refused '.linux.intelRdt = {closID: "sbrun-test", schemata: ["L3:0=f"]}' \
                linux.intelRdt 'closID "sbrun-test"'
}

@test "mounts[].uidMappings and gidMappings are refused by name" {
        local n
        make_bundle
        n=$(jq '.mounts | length' "$BUNDLE/config.json")
        rm -rf "$BUNDLE"
        refused '.mounts += [{destination: "/mapped", type: "tmpfs", source: "tmpfs",
                             uidMappings: [{containerID: 0, hostID: 100000, size: 1}]}]' \
                "mounts[$n].uidMappings" "containerID 0 hostID 100000 size 1"
        rm -rf "$BUNDLE"
        refused '.mounts += [{destination: "/mapped", type: "tmpfs", source: "tmpfs",
                             gidMappings: [{containerID: 0, hostID: 100000, size: 1}]}]' \
                "mounts[$n].gidMappings" "containerID 0 hostID 100000 size 1"
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

@test "exec --process refuses the process fields sbrun does not carry out" {
        make_bundle
        set_args sleep 600
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        local p
        for p in '.ioPriority = {class: "IOPRIO_CLASS_IDLE", priority: 0}' \
                '.scheduler = {policy: "SCHED_IDLE"}' '.execCPUAffinity = {final: "0"}'; do
                jq "$p | .args = [\"sh\", \"-c\", \"echo ran\"]" \
                        "$SBRUN_SRCDIR/tests/unit/data/podman-4.3.1-exec-process.json" \
                        >"$TEST_DIR/process.json"
                run sbrun exec --process "$TEST_DIR/process.json" "$ID"
                [ "$status" -ne 0 ] || fail "exec with $p: $output"
                [[ $output == *"process.${p:1:8}"*"refused (rule: not supported by sbrun: "* ]] ||
                        fail "exec with $p: $output"
                [[ $output != *ran* ]] || fail "the process ran: $output"
        done
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
                ! grep -E 'ioPriority|scheduler|execCPUAffinity|personality|timeOffsets|memoryPolicy|netDevices|intelRdt|mounts\.[0-9]+\.(uid|gid)Mappings|checkBeforeUpdate' <<<"$output" ||
                        fail "$cfg asks for a refused field"
        done
}
