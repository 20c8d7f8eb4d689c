#!/usr/bin/env bats
# The policy floor: effective spec = requested ∧ floor. What a config asks
# for beyond the floor is dropped or clamped with a warning, or refused
# with an error naming the field and the rule, leaving nothing behind.

load ../helpers

# policy_file JSON: an operator policy for this test over the suite's own.
policy_file() {
        policy_with "$1" floor-policy
}

# explain_json [GLOBAL-OPTIONS...]: `policy explain --format json` of $BUNDLE.
explain_json() {
        sbrun "$@" policy explain --bundle "$BUNDLE" --format json
}

# --- capabilities -----------------------------------------------------------

@test "floor: CAP_SYS_ADMIN is dropped from every set, visible in CapBnd inside" {
        make_bundle
        set_cmd 'grep CapBnd /proc/self/status'
        edit_config '.process.capabilities |= with_entries(.value += ["CAP_SYS_ADMIN", "CAP_NET_RAW"])'

        run sbrun --log "$TEST_DIR/floor.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        bnd=$(awk '{print $2}' <<<"$output")
        # CAP_SYS_ADMIN is bit 21, CAP_NET_RAW bit 13: both cleared.
        [ $(( 0x$bnd & (1 << 21) )) -eq 0 ]
        [ $(( 0x$bnd & (1 << 13) )) -eq 0 ]
        # KILL (5) and NET_BIND_SERVICE (10), inside the ceiling, are kept.
        [ $(( 0x$bnd & (1 << 5) )) -ne 0 ]
        grep -q 'process.capabilities.bounding: CAP_SYS_ADMIN dropped (rule: standard caps ceiling)' \
                "$TEST_DIR/floor.log"
}

@test "floor: exec --cap CAP_SYS_ADMIN is dropped too" {
        make_bundle
        set_args sleep 600
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]

        run sbrun --log "$TEST_DIR/floor.log" exec --cap CAP_SYS_ADMIN "$ID" grep CapBnd /proc/self/status
        [ "$status" -eq 0 ]
        bnd=$(awk '{print $2}' <<<"$output")
        [ $(( 0x$bnd & (1 << 21) )) -eq 0 ]
        grep -q 'process.capabilities.bounding: CAP_SYS_ADMIN dropped' "$TEST_DIR/floor.log"
}

@test "floor: exec keeps the policy the container was created under" {
        make_bundle
        set_args sleep 600
        pol=$(policy_file '{"floor": {"profile": "strict"}}')
        run detached sbrun --policy "$pol" --log "$TEST_DIR/sbrun.log" run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        # The operator's file turns looser after create; exec is asked under
        # the suite's standard policy: neither reaches the container.
        printf '%s\n' '{"cgroups": {"enforce": false}}' >"$pol"

        run sbrun exec --cap CAP_KILL "$ID" grep CapBnd /proc/self/status
        [ "$status" -eq 0 ]
        [ "$(awk '{print $2}' <<<"$output")" = 0000000000000000 ]
        # Standard keeps CAP_KILL: the check above can fail.
        make_bundle "$TEST_DIR/b2"
        BUNDLE=$TEST_DIR/b2 set_args grep CapBnd /proc/self/status
        run sbrun run -b "$TEST_DIR/b2" "$ID-2"
        [ "$status" -eq 0 ]
        [ $(( 0x$(awk '{print $2}' <<<"$output") & (1 << 5) )) -ne 0 ]
}

# --- namespaces -------------------------------------------------------------

@test "floor: the host network namespace is refused and nothing is left behind" {
        make_bundle
        edit_config '.linux.namespaces |= map(select(.type != "network"))'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "rule: standard: no host network namespace"
        [[ $output == *"linux.namespaces"* ]]
        [ ! -e "$ROOT/$ID" ]
}

@test "floor: joining the host's own namespace by path is refused" {
        make_bundle
        # The test's own shell is in the host's namespaces.
        edit_config '.linux.namespaces |= map(if .type == "ipc" then .path = $p else . end)' \
                --arg p "/proc/$$/ns/ipc"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "never the host's own namespace"
        [[ $output == *"linux.namespaces["*"].path"* ]]
}

@test "floor: missing uts, mount and cgroup namespaces are added" {
        make_bundle
        set_cmd 'for t in uts cgroup mnt; do readlink /proc/self/ns/$t; done'
        edit_config '.linux.namespaces |= map(select(.type == "network" or .type == "pid" or .type == "ipc"))'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${#lines[@]}" -eq 3 ]
        for t in uts cgroup mnt; do
                [[ $output == *"$t:["* ]]
                [[ $output != *"$(readlink /proc/self/ns/$t)"* ]]
        done
}

@test "floor: no pid or no ipc namespace (the host's: podman --pid=host, --ipc=host) is refused, under both profiles, leaving nothing" {
        for profile in standard strict; do
                for t in pid ipc; do
                        make_bundle "$TEST_DIR/b-$profile-$t"
                        BUNDLE=$TEST_DIR/b-$profile-$t edit_config \
                                '.linux.namespaces |= map(select(.type != $t))' --arg t "$t"
                        opts=()
                        [ "$profile" = strict ] && opts=(--policy "$(policy_file '{"floor": {"profile": "strict"}}')")
                        run detached sbrun "${opts[@]}" create -b "$TEST_DIR/b-$profile-$t" "$ID-$t"
                        assert_fails_cleanly "$ID-$t" \
                                "linux.namespaces: the host $t namespace refused (rule: standard: no host $t namespace)"
                        [ ! -e "$ROOT/$ID-$t" ]
                        run sbrun "${opts[@]}" policy explain --bundle "$TEST_DIR/b-$profile-$t" --format json
                        [ "$status" -eq 0 ]
                        [ "$(jq -r .allowed <<<"$output")" = false ]
                        [ "$(jq -r .profile <<<"$output")" = "$profile" ]
                        [ "$(jq -r --arg v "the host $t namespace" \
                                '.changes[] | select(.field == "linux.namespaces" and .requested == $v) | .action' \
                                <<<"$output")" = refused ]
                done
        done
}

# --- mounts -----------------------------------------------------------------

@test "floor: binds of /, /etc, the state root and an ancestor of it are refused" {
        make_bundle
        for src in / /etc /etc/../etc "$ROOT" "$TEST_DIR" /var/run; do
                edit_config '.mounts += [{"destination": "/host", "type": "bind", "source": $s,
                                         "options": ["rbind", "ro"]}]' --arg s "$src"
                run detached sbrun create -b "$BUNDLE" "$ID"
                assert_fails_cleanly "$ID" "rule: standard: no root or bind of"
                [[ $output == *"mounts["*"].source"* ]]
                edit_config 'del(.mounts[-1])'
        done
}

@test "floor: a mount without a type is a bind, and held to the same rules" {
        make_bundle
        # runc and crun bind a mount that names no type; so does sbrun, so
        # the floor must see it as one.
        edit_config '.mounts += [{"destination": "/host", "source": "/"}]'
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[7].source: \"/\" (/ is a host system directory /) refused (rule: standard: no root or bind of a host system directory or its ancestor)"
}

@test "floor: a bind of a container engine socket is refused" {
        make_bundle
        touch "$TEST_DIR/docker.sock"
        edit_config '.mounts += [{"destination": "/var/run/docker.sock", "type": "bind",
                                 "source": $s, "options": ["bind"]}]' --arg s "$TEST_DIR/docker.sock"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "rule: standard: no container engine socket"
}

@test "floor: a bind below /etc (a file the engine prepared) is still allowed" {
        make_bundle
        set_cmd 'cat /etc/hosts-copy >/dev/null && echo fine'
        edit_config '.mounts += [{"destination": "/etc/hosts-copy", "type": "bind",
                                 "source": "/etc/hosts", "options": ["bind", "ro"]}]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = fine ]
}

# --- devices and sysctls ----------------------------------------------------

@test "floor: a device node outside the standard set is refused" {
        make_bundle
        # 8:0 is the first SCSI disk: raw access to the host's storage.
        edit_config '.linux.devices = [{"path": "/dev/sda", "type": "b", "major": 8, "minor": 0}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "rule: standard: only standard or operator-allowed devices"
        [[ $output == *"linux.devices[0]"* ]]
}

@test "floor: a bind of a host device node is held to the same rule" {
        make_bundle
        mknod "$TEST_DIR/disk" b 8 0
        edit_config '.mounts += [{"destination": "/dev/disk0", "type": "bind", "source": $s, "options": ["bind"]}]' \
                --arg s "$TEST_DIR/disk"
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "rule: standard: only standard or operator-allowed devices"
        [[ $output == *"mounts[7].source: $TEST_DIR/disk refused"* ]]

        # A standard node may be bound.
        make_bundle "$TEST_DIR/b2"
        BUNDLE=$TEST_DIR/b2 edit_config '.mounts += [{"destination": "/null2", "type": "bind", "source": "/dev/null", "options": ["bind"]}] |
                .process.args = ["sh", "-c", "echo x >/null2 && echo ok"]'
        run sbrun run -b "$TEST_DIR/b2" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = ok ]
}

@test "floor: the operator may allow-list a device path" {
        make_bundle
        set_cmd 'test -c /dev/extra-zero && echo there'
        edit_config '.linux.devices = [{"path": "/dev/extra-zero", "type": "c", "major": 1, "minor": 5}]'
        pol=$(policy_file '{"floor": {"devices": ["/dev/extra-zero"]}}')
        run sbrun --policy "$pol" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = there ]
}

@test "floor: an unnamespaced sysctl is refused" {
        make_bundle
        before=$(cat /proc/sys/kernel/panic)
        edit_config '.linux.sysctl = {"kernel.panic": "17"}'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'linux.sysctl["kernel.panic"]: "17" refused (rule: standard: only namespaced sysctls)'
        [ "$(cat /proc/sys/kernel/panic)" = "$before" ]

        # explain lists it beside a namespaced one that is kept.
        edit_config '.linux.sysctl = {"kernel.panic": "17", "net.ipv4.ip_forward": "1"}'
        run explain_json
        [ "$status" -eq 0 ]
        [ "$(jq -r '.changes[] | select(.field == "linux.sysctl[\"kernel.panic\"]") | "\(.action) \(.rule)"' <<<"$output")" = "refused standard: only namespaced sysctls" ]
        [ "$(jq '[.changes[] | select(.field | contains("ip_forward"))] | length' <<<"$output")" -eq 0 ]
}

# --- limits -----------------------------------------------------------------

@test "floor: higher pids and memory requests are clamped to the operator's ceilings" {
        make_bundle
        edit_config '.linux.resources.pids.limit = 100000 | .linux.resources.memory.limit = 1099511627776'
        pol=$(policy_file '{"floor": {"ceilings": {"pids": 1024, "memory": "512M"}}}')

        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        pids=$(jq -c '.changes[] | select(.field == "linux.resources.pids.limit")' <<<"$output")
        [ "$(jq -r .effective <<<"$pids")" = 1024 ]
        [ "$(jq -r .requested <<<"$pids")" = 100000 ]
        [ "$(jq -r .action <<<"$pids")" = clamped ]
        mem=$(jq -c '.changes[] | select(.field == "linux.resources.memory.limit")' <<<"$output")
        [ "$(jq -r .effective <<<"$mem")" = $((512 * 1024 * 1024)) ]
}

@test "floor: an operator's ceilings bind a spec that asks for no limit at all" {
        make_bundle
        edit_config 'del(.linux.resources) | del(.process.rlimits)'
        pol=$(policy_file '{"floor": {"ceilings": {"memory": "256M", "cpu": "0.5", "fsize": "1M", "nofile": 64}}}')

        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        sel() { jq -r ".changes[] | select(.field == \"$1\") | \"\(.action) \(.effective) \(.rule)\"" <<<"$output"; }
        [ "$(sel linux.resources.memory.limit)" = "added $((256 << 20)) standard memory ceiling" ]
        [ "$(sel linux.resources.cpu)" = "added 50000/100000 standard cpu ceiling" ]
        [ "$(sel process.rlimits.RLIMIT_FSIZE)" = "added 1048576 standard fsize ceiling" ]
        [ "$(sel process.rlimits.RLIMIT_NOFILE)" = "added 64 standard nofile ceiling" ]

        # The rlimits are what the process has.
        set_cmd 'ulimit -f; ulimit -n'
        run sbrun --policy "$pol" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = $'2048\n64' ]
}

@test "floor: every tmpfs is held to the tmp ceiling; filling it stops there" {
        make_bundle
        edit_config '.mounts += [{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "size=1g"]},
                                 {"destination": "/blocks", "type": "tmpfs", "source": "tmpfs", "options": ["nr_blocks=1000000"]},
                                 {"destination": "/small", "type": "tmpfs", "source": "tmpfs", "options": ["size=1m"]}]'
        pol=$(policy_file '{"floor": {"ceilings": {"tmp": "8M"}}}')

        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        [ "$(jq -r '[.changes[] | select(.rule == "standard tmpfs size ceiling") | .requested] | join(",")' <<<"$output")" = "size=65536k,size=65536k,size=1g,nr_blocks=1000000" ]

        set_cmd 'for d in /scratch /blocks /small /dev; do
                        dd if=/dev/zero of=$d/fill bs=1M count=64 2>/dev/null; echo "$d $?"
                        du -k $d/fill | cut -f1
                done'
        run sbrun --policy "$pol" --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        # dd fails with ENOSPC at 8 MiB; the small one keeps its 1 MiB.
        [ "$output" = $'/scratch 1\n8192\n/blocks 1\n8192\n/small 1\n1024\n/dev 1\n8192' ]
        assert_no_leftovers "$ID"
}

@test "floor: no pids limit gets the ceiling; RLIMIT_CORE is 0 inside" {
        make_bundle
        set_cmd 'ulimit -c'
        edit_config 'del(.linux.resources.pids)'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = 0 ]
        run explain_json
        [ "$(jq -r '.changes[] | select(.field == "linux.resources.pids.limit") | .action' <<<"$output")" = added ]
}

# --- explain and show ---------------------------------------------------------

# create_and_explain_refuse FIELD WORDS: create fails cleanly with FIELD:
# WORDS; policy explain of the same bundle is not allowed, refusing FIELD
# with the same words.
create_and_explain_refuse() {
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "$1: $2"
        run explain_json
        [ "$status" -eq 0 ] || fail "explain: $output"
        [ "$(jq -r .allowed <<<"$output")" = false ] || fail "explain allows $1: $output"
        jq -e --arg f "$1" --arg w "$2" \
                '.changes | any(.action == "refused" and .field == $f and .requested == $w)' \
                <<<"$output" >/dev/null || fail "explain does not refuse $1 with '$2': $output"
}

@test "policy explain refuses what create refuses as it carries the config and the rootfs out" {
        local n i
        make_bundle
        cp "$BUNDLE/config.json" "$TEST_DIR/config.orig"
        fresh() { cp "$TEST_DIR/config.orig" "$BUNDLE/config.json"; }
        n=$(jq '.mounts | length' "$BUNDLE/config.json")
        edit_config '.mounts += [{"destination": "/a/../b", "type": "tmpfs", "source": "tmpfs"}]'
        create_and_explain_refuse "mounts[$n].destination" '"/a/../b" contains ".."'

        fresh
        edit_config '.mounts += [{"destination": "/data", "type": "nfs", "source": "srv:/x"}]'
        create_and_explain_refuse "mounts[$n].type" '"nfs" is not supported by sbrun'

        fresh
        edit_config '.linux.namespaces |= map(if .type == "mount" then .path = "/nonexistent/ns/mnt" else . end)'
        i=$(jq '.linux.namespaces | map(.type) | index("mount")' "$BUNDLE/config.json")
        create_and_explain_refuse "linux.namespaces[$i].path" "joining a mount namespace is not supported"

        fresh
        edit_config '.linux.cgroupsPath = "/sbrun/../escape"'
        create_and_explain_refuse linux.cgroupsPath '"/sbrun/../escape": ".." is not allowed'

        # What only compiling the spec's seccomp profile tells (nothing is
        # cached by explain: the state root stays empty).
        fresh
        edit_config '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_FOO"]}'
        create_and_explain_refuse "linux.seccomp.flags[0]" 'unknown flag "SECCOMP_FILTER_FLAG_FOO"'
        fresh
        edit_config '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
                "syscalls": [{"names": ["getpid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 70000}]}'
        create_and_explain_refuse "linux.seccomp.syscalls[0].action" '70000 is out of range for SCMP_ACT_ERRNO (0..4095)'
        [ -z "$(ls -A "$ROOT" | grep -v '^\.seccomp-cache$')" ] &&
                [ -z "$(ls -A "$ROOT/.seccomp-cache" 2>/dev/null)" ] ||
                fail "explain left $(ls -AR "$ROOT")"

        # What only the rootfs can tell: a cwd that is a file, and a mount
        # destination or a cwd that a symlink of the image leads out of it.
        fresh
        edit_config '.process.cwd = "/etc/passwd"'
        create_and_explain_refuse process.cwd '"/etc/passwd": not a directory'

        ln -s ../../../.. "$BUNDLE/rootfs/esc"
        fresh
        edit_config '.mounts += [{"destination": "/esc/x", "type": "tmpfs", "source": "tmpfs"}]'
        create_and_explain_refuse "mounts[$n].destination" \
                '"/esc/x": escapes the rootfs through symlink "/esc" -> "../../../.."'

        fresh
        edit_config '.process.cwd = "/esc/y"'
        create_and_explain_refuse process.cwd \
                '"/esc/y": escapes the rootfs through symlink "/esc" -> "../../../.."'

        # The control: the bundle as made is allowed by both; a missing cwd
        # and mount destination, which create would make, are allowed, and
        # explain makes neither.
        fresh
        rm "$BUNDLE/rootfs/esc"
        edit_config '.process.cwd = "/newdir/sub" |
                .mounts += [{"destination": "/newmnt/x", "type": "tmpfs", "source": "tmpfs"}]'
        run explain_json
        [ "$(jq -r .allowed <<<"$output")" = true ] || fail "explain refuses: $output"
        [ ! -e "$BUNDLE/rootfs/newdir" ] && [ ! -e "$BUNDLE/rootfs/newmnt" ] ||
                fail "explain made $(ls -d "$BUNDLE"/rootfs/new*)"
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ -d "$BUNDLE/rootfs/newdir/sub" ] && [ -d "$BUNDLE/rootfs/newmnt/x" ]
}

@test "policy explain lists each change with its rule and creates nothing" {
        make_bundle
        edit_config '.process.capabilities.bounding += ["CAP_SYS_ADMIN"] | del(.linux.seccomp) |
                .linux.namespaces |= map(select(.type != "network")) |
                .linux.resources.memory.limit = 1099511627776'

        run sbrun policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ]
        j=$output
        [ "$(jq -r .profile <<<"$j")" = standard ]
        [ "$(jq -r .allowed <<<"$j")" = false ]
        sel() { jq -r ".changes[] | select(.field == \"$1\") | \"\(.action) \(.requested) \(.rule)\"" <<<"$j"; }
        [[ $(sel process.capabilities.bounding) == *"dropped CAP_SYS_ADMIN standard caps ceiling"* ]]
        [[ $(sel linux.seccomp) == "added (none) standard: floor seccomp filter"* ]]
        [[ $(sel linux.namespaces) == "refused the host network namespace standard: no host network namespace" ]]
        [[ $(sel linux.resources.memory.limit) == "clamped 1099511627776 "* ]]
        # Every change names a rule.
        [ "$(jq '[.changes[] | select(.rule == "")] | length' <<<"$j")" -eq 0 ]
        # Nothing was created.
        [ -z "$(ls -A "$ROOT")" ]

        run sbrun policy explain --bundle "$BUNDLE"
        [ "$status" -eq 0 ]
        [[ $output == *"dropped  process.capabilities.bounding: requested CAP_SYS_ADMIN"* ]]
        [[ $output == *"refused  linux.namespaces"* ]]
}

@test "policy show prints the profile, the ceilings and the operator file" {
        pol=$(policy_file '{"floor": {"profile": "strict", "ceilings": {"pids": 64}}}')
        run sbrun --policy "$pol" policy show
        [ "$status" -eq 0 ]
        [[ $output == *"profile: strict"* ]]
        [[ $output == *"policy: $pol"* ]]
        [[ $output == *"pids: 64"* ]]
}

@test "policy show prints the wall-clock limit and the cgroups enforcement setting" {
        pol=$(policy_file '{"timeout": {"max_seconds": 3600}, "cgroups": {"enforce": false}}')
        run sbrun --policy "$pol" policy show
        [ "$status" -eq 0 ]
        [[ $output == *"wall-clock: 3600 s"* ]]
        [[ $output == *"cgroups.enforce: false"* ]]

        pol=$(policy_with '{"cgroups": {"enforce": true}}' enforcing)
        jq 'del(.timeout)' "$pol" >"$pol.new" && mv "$pol.new" "$pol"
        run sbrun --policy "$pol" policy show
        [ "$status" -eq 0 ]
        [[ $output == *"wall-clock: none"* ]]
        [[ $output == *"cgroups.enforce: true"* ]]
        # What the setting means on this host.
        if host_has_v2_controllers; then
                [[ $output == *"limits are enforced in /sys/fs/cgroup"* ]]
        else
                [[ $output == *"containers are refused"* ]]
        fi
}

@test "policy explain reports a run.sbrun.timeout above the operator's maximum as clamped" {
        make_bundle
        edit_config '.annotations["run.sbrun.timeout"] = "36000"'
        pol=$(policy_file '{"timeout": {"max_seconds": 3600}}')

        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        c=$(jq -c '.changes[] | select(.field == "annotations.run.sbrun.timeout")' <<<"$output")
        [ "$(jq -r .action <<<"$c")" = clamped ]
        [ "$(jq -r .requested <<<"$c")" = "36000 s" ]
        [ "$(jq -r .effective <<<"$c")" = "3600 s" ]
        [[ $(jq -r .rule <<<"$c") == "timeout.max_seconds in $pol may only be lowered" ]]
        [ -z "$(ls -A "$ROOT")" ]

        # Within the maximum: no change to report.
        edit_config '.annotations["run.sbrun.timeout"] = "60"'
        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        [ "$(jq '[.changes[] | select(.field == "annotations.run.sbrun.timeout")] | length' <<<"$output")" -eq 0 ]
}

@test "policy explain reports whether this host's missing cgroup v2 refuses the container" {
        make_bundle
        sel='.changes[] | select(.field == "linux.resources") | "\(.action) \(.rule)"'

        pol=$(policy_file '{"cgroups": {"enforce": true}}')
        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        if host_has_v2_controllers; then
                # Limits are enforced here: nothing to report.
                [ -z "$(jq -r "$sel" <<<"$output")" ]
                return 0
        fi
        [ "$(jq -r .allowed <<<"$output")" = false ]
        [[ $(jq -r "$sel" <<<"$output") == "refused cgroups.enforce true in $pol: cgroup v2: "* ]]

        pol=$(policy_file '{"cgroups": {"enforce": false}}')
        run explain_json --policy "$pol"
        [ "$status" -eq 0 ]
        [ "$(jq -r .allowed <<<"$output")" = true ]
        [[ $(jq -r "$sel" <<<"$output") == "dropped cgroups.enforce false in $pol: cgroup v2: "* ]]
}

@test "policy: a bad floor setting in the operator file is an error naming it" {
        pol=$(policy_file '{"floor": {"profile": "lax"}}')
        run sbrun --policy "$pol" policy show
        [ "$status" -eq 1 ]
        [[ $output == *"floor.profile"* ]]
}

# --- profiles -----------------------------------------------------------------

@test "floor: the annotation may select strict; strict drops every capability, no network, read-only root" {
        make_bundle
        set_cmd 'grep CapBnd /proc/self/status; ls /sys/class/net; touch /x 2>/dev/null || echo ro; ulimit -n; df -k /tmp | tail -1'
        edit_config '.annotations["run.sbrun.policy"] = "strict"'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ ${lines[0]} == *"0000000000000000" ]]
        [ "${lines[1]}" = lo ]
        [ "${lines[2]}" = ro ]
        [ "${lines[3]}" = 1024 ]
        [ "$(awk '{print $2}' <<<"${lines[4]}")" -eq 65536 ]

        run explain_json
        [ "$(jq -r .profile <<<"$output")" = strict ]
        [ "$(jq -r '.changes[] | select(.field == "linux.resources.memory.swap") | .effective' <<<"$output")" = $((512 * 1024 * 1024)) ]
}

@test "floor: an annotation may not select a looser profile than the operator's" {
        make_bundle
        edit_config '.annotations["run.sbrun.policy"] = "standard"'
        pol=$(policy_file '{"floor": {"profile": "strict"}}')

        run detached sbrun --policy "$pol" create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "only a stricter profile may be selected"
}

@test "floor: strict refuses joining a network namespace" {
        make_bundle
        start_helper unshare --net sleep 600
        sleep 0.3
        edit_config '.annotations["run.sbrun.policy"] = "strict" |
                .linux.namespaces |= map(if .type == "network" then .path = $p else . end)' \
                --arg p "/proc/$HELPER_PID/ns/net"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "strict: no network"
}

# --- engines' configs -----------------------------------------------------------

# engine_bundle FILE: $BUNDLE from an engine's config.json with this test's
# rootfs, its host files under the bundle and a network namespace of its own.
engine_bundle() {
        make_bundle
        mkdir -p "$BUNDLE/userdata"
        for f in resolv.conf hosts hostname .containerenv; do
                echo "# $f" >"$BUNDLE/userdata/$f"
        done
        mkdir -p "$BUNDLE/userdata/shm"
        jq --arg u "$BUNDLE/userdata" --arg cg "/sbt-$ID" '
                .root = {"path": "rootfs"} | .process.terminal = false |
                .process.args = ["sh", "-c", "echo hello; id -u; ls /"] |
                .linux.cgroupsPath = $cg |
                .linux.namespaces |= map(if .type == "network" then del(.path) else . end) |
                .mounts |= map(if .type == "bind" then .source = ($u + "/" + (.source | split("/") | last)) else . end)' \
                "$1" >"$BUNDLE/config.json"
}

@test "floor: a podman-style config runs unchanged under standard" {
        engine_bundle "$SBRUN_SRCDIR/tests/unit/data/podman-4.3.1-config.json"
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = hello ]
        [ "${lines[1]}" = 0 ]
}

@test "floor: a containerd-style config runs unchanged under standard" {
        engine_bundle "$SBRUN_SRCDIR/tests/unit/data/containerd-1.6.20-config.json"
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = hello ]
        [ "${lines[1]}" = 0 ]
}

@test "floor: podman's privileged mode is refused by name before anything else" {
        make_bundle
        # What podman --privileged sends: its annotation, a host device.
        edit_config '.annotations["io.podman.annotations.privileged"] = "TRUE" |
                .linux.devices = [{"path": "/dev/loop-control", "type": "c", "major": 10, "minor": 237}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'annotations["io.podman.annotations.privileged"]: TRUE (podman --privileged) refused (rule: standard: no privileged container)'

        edit_config '.annotations["io.podman.annotations.privileged"] = "FALSE" | .linux.devices = []'
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "FALSE refused: $output"
}
