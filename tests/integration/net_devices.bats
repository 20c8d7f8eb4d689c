#!/usr/bin/env bats
# linux.netDevices (runtime-spec 1.3, config-linux.md "Network Devices"):
# a device of sbrun's network namespace moved into the container's, renamed
# as asked, with its permanent global addresses, up. Only the devices the
# operator's floor.net_devices names; strict none (spec/floor_net_devices.c,
# runtime/host/net_devices.c). Every test makes its own network namespace
# and runs sbrun inside it (nsenter --net): no test touches the host's
# interfaces. A create that fails after the move moves the device back.

load ../helpers

setup() {
        sb_setup
        command -v ip >/dev/null || fail "ip not found: apt-get install iproute2"
        NETNS=sbt-nd-$$-$RANDOM
        ip netns add "$NETNS" || fail "ip netns add $NETNS"
        # A veth pair: the dummy driver may be missing (a kernel without
        # modules); one end is moved, its peer stays.
        ip -n "$NETNS" link add sbt-veth0 type veth peer name sbt-peer0
        ip -n "$NETNS" addr add 192.0.2.7/24 dev sbt-veth0
        ip -n "$NETNS" addr add 2001:db8::7/64 dev sbt-veth0 nodad
        ip -n "$NETNS" link set sbt-veth0 up
        NDPOL=$(policy_with '{"floor": {"net_devices": ["sbt-veth0", "sbt-missing0"]}}' netdev)
}

teardown() {
        [ -z "${NETNS:-}" ] || ip netns del "$NETNS" 2>/dev/null || true
        [ -z "${NETNS2:-}" ] || ip netns del "$NETNS2" 2>/dev/null || true
        sb_teardown
}

# in_netns ARGS...: sbrun ARGS in the test's network namespace, under the
# policy that allows sbt-veth0 (or $POL).
in_netns() {
        nsenter --net="/run/netns/$NETNS" "$SBRUN" --root "$ROOT" --policy "${POL:-$NDPOL}" \
                --log "$TEST_DIR/sbrun.log" "$@" 3>&-
}

# veth_untouched: sbt-veth0 is in the test's namespace as it was made, its
# peer beside it.
veth_untouched() {
        local link addr
        link=$(ip -n "$NETNS" -o link show sbt-veth0) || fail "sbt-veth0 is gone from $NETNS"
        [[ $link == *"<"*UP*">"* ]] || fail "sbt-veth0 is no longer up: $link"
        addr=$(ip -n "$NETNS" -o addr show dev sbt-veth0)
        [[ $addr == *"192.0.2.7/24"* ]] || fail "sbt-veth0 lost its address: $addr"
        [[ $addr == *"2001:db8::7/64"* ]] || fail "sbt-veth0 lost its IPv6 address: $addr"
        ip -n "$NETNS" link show sbt-peer0 >/dev/null || fail "sbt-peer0 is gone from $NETNS"
}

# wait_pair_gone: the kernel frees a network namespace in a work queue, a
# moment after its last process: wait (10 s at most) for the veth moved in
# to take its peer with it.
wait_pair_gone() {
        local i
        for ((i = 0; i < 100; i++)); do
                ip -n "$NETNS" link show sbt-peer0 >/dev/null 2>&1 || return 0
                sleep 0.1
        done
}

@test "netDevices: moved in renamed, with its address, up; gone with the container's namespace" {
        make_bundle
        set_cmd 'ls /sys/class/net | tr "\n" " "; echo; ip -o addr show eth7; ip -o link show eth7'
        edit_config '.linux.netDevices = {"sbt-veth0": {name: "eth7"}}'
        run in_netns run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "${lines[0]}" = "eth7 lo " ] || fail "/sys/class/net inside: ${lines[0]}"
        [[ $output == *"inet 192.0.2.7/24"* ]] || fail "no address on eth7: $output"
        [[ $output == *"inet6 2001:db8::7/64"* ]] || fail "no IPv6 address on eth7: $output"
        [[ ${lines[-1]} == *"<"*UP*">"* ]] || fail "eth7 is not up: $output"
        # runtime-spec: a runtime MUST NOT move it out before delete; the
        # kernel destroys a virtual device with the namespace (a veth with
        # its peer; a physical one goes back to the host's initial
        # namespace).
        wait_pair_gone
        ! ip -n "$NETNS" link show sbt-veth0 2>/dev/null || fail "sbt-veth0 is back in $NETNS"
        ! ip -n "$NETNS" link show sbt-peer0 2>/dev/null || fail "sbt-peer0 outlived its pair"
        ! ip -n "$NETNS" link show eth7 2>/dev/null || fail "eth7 is in $NETNS"
        assert_no_leftovers "$ID"
}

@test "netDevices: create moves it before the hooks; exec sees it; delete leaves it to the namespace" {
        make_bundle
        set_cmd 'sleep 600'
        # Run in the container's namespaces, from a path of the host's.
        printf '#!/bin/sh\nls /sys/class/net >/hook.out\n' >"$TEST_DIR/hook.sh"
        chmod 0755 "$TEST_DIR/hook.sh"
        edit_config '.root.readonly = false | .linux.netDevices = {"sbt-veth0": {name: "eth7"}} |
                     .hooks.createContainer = [{path: $h}]' --arg h "$TEST_DIR/hook.sh"
        run detached in_netns create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        [ "$(tr '\n' ' ' <"$BUNDLE/rootfs/hook.out")" = "eth7 lo " ] ||
                fail "createContainer hook saw: $(cat "$BUNDLE/rootfs/hook.out")"
        ! ip -n "$NETNS" link show sbt-veth0 2>/dev/null || fail "sbt-veth0 is still in $NETNS"
        run in_netns exec "$ID" ip -o addr show eth7
        [ "$status" -eq 0 ] || fail "exec: $output"
        [[ $output == *"inet 192.0.2.7/24"* ]] || fail "exec: $output"
        run in_netns delete --force "$ID"
        [ "$status" -eq 0 ] || fail "delete: $output"
        wait_pair_gone
        ! ip -n "$NETNS" link show sbt-veth0 2>/dev/null || fail "sbt-veth0 is back in $NETNS"
        ! ip -n "$NETNS" link show sbt-peer0 2>/dev/null || fail "sbt-peer0 outlived its pair"
        assert_no_leftovers "$ID"
}

@test "netDevices: no name keeps the device's; a %d template is numbered by the kernel" {
        make_bundle
        set_cmd 'ls /sys/class/net | tr "\n" " "'
        edit_config '.linux.netDevices = {"sbt-veth0": {}}'
        run in_netns run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = "lo sbt-veth0 " ] || fail "inside: $output"
        wait_pair_gone
        ip -n "$NETNS" link add sbt-veth0 type veth peer name sbt-peer0
        edit_config '.linux.netDevices = {"sbt-veth0": {name: "net%d"}}'
        run in_netns run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = "lo net0 " ] || fail "inside: $output"
}

@test "netDevices: into a joined namespace, where the device stays after the container" {
        NETNS2=sbt-nd2-$$-$RANDOM
        ip netns add "$NETNS2"
        make_bundle
        set_cmd 'ls /sys/class/net | tr "\n" " "'
        edit_config '(.linux.namespaces[] | select(.type == "network")) .path = $p |
                     .linux.netDevices = {"sbt-veth0": {name: "eth7"}}' --arg p "/run/netns/$NETNS2"
        run in_netns run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$output" = "eth7 lo " ] || fail "inside: $output"
        ip -n "$NETNS2" -o addr show dev eth7 | grep -q "192.0.2.7/24" ||
                fail "eth7 is not in the joined namespace with its address"
        ! ip -n "$NETNS" link show sbt-veth0 2>/dev/null || fail "sbt-veth0 is still in $NETNS"
}

@test "netDevices: a move the kernel refuses names the device and leaves it where it was" {
        NETNS2=sbt-nd2-$$-$RANDOM
        ip netns add "$NETNS2"
        ip -n "$NETNS2" link add eth7 type veth peer name eth8
        make_bundle
        edit_config '(.linux.namespaces[] | select(.type == "network")) .path = $p |
                     .linux.netDevices = {"sbt-veth0": {name: "eth7"}}' --arg p "/run/netns/$NETNS2"
        run in_netns run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" \
                'linux.netDevices: "sbt-veth0": moving it into the container'"'"'s network namespace as "eth7": file exists'
        veth_untouched
}

@test "netDevices: a create that fails after the move moves the device back" {
        make_bundle
        edit_config '.linux.netDevices = {"sbt-veth0": {name: "eth7"}} |
                     .hooks.createRuntime = [{path: "/bin/false"}]'
        run in_netns run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ] || fail "run with a failing hook: $output"
        [[ $output == *createRuntime* ]] || fail "not the hook's failure: $output"
        veth_untouched
        assert_no_leftovers "$ID"
}

# refused_nd JQ WANT [POLICY]: the config edited by JQ fails run in the test's
# namespace naming WANT, leaves nothing and sbt-veth0 untouched.
refused_nd() {
        rm -rf "$BUNDLE"
        make_bundle
        set_cmd 'echo ran'
        edit_config "$1"
        run in_netns run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "$2"
        [[ $output != *ran* ]] || fail "the container ran: $output"
        veth_untouched
}

@test "netDevices: refused by name unless the policy allows it, strict, or invalid" {
        local pol
        POL=$SB_POLICY
        [ -n "$POL" ] || POL=$(policy_with '{}' plain)
        refused_nd '.linux.netDevices = {"sbt-veth0": {name: "eth7"}}' \
                'linux.netDevices: "sbt-veth0" refused (rule: standard: only the network devices floor.net_devices names)'
        unset POL
        refused_nd '.linux.netDevices = {"sbt-veth0": {name: "eth7"}} |
                    .annotations["run.sbrun.policy"] = "strict"' \
                'linux.netDevices: "sbt-veth0" refused (rule: strict: no network'
        refused_nd '.linux.netDevices = {"sbt-veth0": {name: "a/b"}}' \
                'linux.netDevices: "sbt-veth0" name "a/b" refused (rule: not a valid network device name)'
        refused_nd '.linux.netDevices = {"sbt-veth0": {name: "sixteen-chars-xx"}}' \
                'linux.netDevices: "sbt-veth0" name "sixteen-chars-xx" refused (rule: not a valid'
        refused_nd '.linux.netDevices = {"sbt-veth0": {name: "eth7"}, "sbt-missing0": {name: "eth7"}}' \
                'linux.netDevices: "sbt-missing0" name "eth7" refused (rule: two devices of the same name'
        refused_nd '.linux.netDevices = {"sbt-veth0": {}} |
                    .linux.namespaces |= map(select(.type != "network"))' \
                'linux.netDevices: "sbt-veth0" refused (rule: needs a network namespace of the container'"'"'s own)'
        refused_nd '.linux.netDevices = {"sbt-veth0": {name: "eth7"}, "sbt-missing0": {}}' \
                'linux.netDevices: "sbt-missing0": no such network device in sbrun'"'"'s network namespace'
}

@test "netDevices: policy explain and show name the rule; features enable it" {
        make_bundle
        edit_config '.linux.netDevices = {"sbt-veth0": {name: "eth7"}}'
        run in_netns policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ] || fail "explain: $output"
        [ "$(jq -r .allowed <<<"$output")" = true ] || fail "explain refuses an allowed device: $output"
        run nsenter --net="/run/netns/$NETNS" "$SBRUN" --root "$ROOT" --policy "$(policy_with '{}' plain)" \
                policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ] || fail "explain: $output"
        jq -e '.allowed == false and (.changes | any(.action == "refused" and
                .field == "linux.netDevices" and .requested == "\"sbt-veth0\""))' \
                <<<"$output" >/dev/null || fail "explain without the policy: $output"
        # A device not there is what create cannot carry out, in explain too.
        edit_config '.linux.netDevices = {"sbt-missing0": {}}'
        run in_netns policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ] || fail "explain: $output"
        jq -e '.allowed == false and (.changes | any(.action == "refused" and
                .field == "linux.netDevices" and
                (.requested | startswith("\"sbt-missing0\": no such network device"))))' \
                <<<"$output" >/dev/null || fail "explain of a missing device: $output"
        run in_netns policy show
        [[ $output == *"net devices: sbt-veth0 sbt-missing0"* ]] || fail "show: $output"
        run sbrun policy show
        [[ $output == *"net devices: none"* ]] || fail "show without the key: $output"
        run sbrun --policy "$(policy_with '{"floor": {"profile": "strict", "net_devices": ["sbt-veth0"]}}' strict)" \
                policy show
        [[ $output == *"net devices: none (strict: no network)"* ]] || fail "show under strict: $output"
        run sbrun features
        [ "$(jq -c .linux.netDevices <<<"$output")" = '{"enabled":true}' ] || fail "features: $output"
}
