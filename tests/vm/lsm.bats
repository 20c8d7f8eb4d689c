#!/usr/bin/env bats
# An AppArmor profile confines the container for real: Debian's kernel has
# AppArmor (run.sh boots it with apparmor=1, init.sh mounts securityfs), the
# host's apparmor package gives the guest apparmor_parser. The profile
# allows everything but writes to /tmp/denied*; the container's process, and
# an exec'd one, must be unable to make that file and must be named by the
# profile in /proc/self/attr/current. Run through tests/vm/cgroups-suite.sh.

load ../helpers

PROFILE=sbrun-test

setup() {
        [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ] ||
                fail "AppArmor is not enabled: run this in the VM lane (tests/vm/cgroups-suite.sh)"
        [ -d /sys/kernel/security/apparmor ] ||
                fail "securityfs is not mounted on /sys/kernel/security (tests/vm/init.sh)"
        command -v apparmor_parser >/dev/null ||
                fail "apparmor_parser not found: install the apparmor package (tests/vm/setup.sh)"
        sb_setup
        # Permissive but for one denied write; attach_disconnected: paths in
        # the container's mount namespace are outside the host's root.
        cat >"$TEST_DIR/$PROFILE" <<-EOP
	profile $PROFILE flags=(attach_disconnected,mediate_deleted) {
	  file,
	  capability,
	  network,
	  signal,
	  ptrace,
	  mount,
	  umount,
	  pivot_root,
	  unix,
	  deny /tmp/denied* w,
	}
	EOP
        apparmor_parser -r -K "$TEST_DIR/$PROFILE" || fail "apparmor_parser could not load $PROFILE"
        grep -q "^$PROFILE (enforce)$" /sys/kernel/security/apparmor/profiles ||
                fail "$PROFILE is not listed as loaded"
}

# What the profile must show: its name, an allowed write, a denied one.
PROBE='cat /proc/self/attr/current
echo ok >/tmp/allowed && echo allowed-written
if echo no >/tmp/denied 2>/dev/null; then echo denied-written; else echo denied-refused; fi'

# lsm_bundle [DIR]: a bundle whose /tmp is a writable tmpfs (the root is
# read-only), with an /out bind for what the process prints after `start`.
lsm_bundle() {
        local dir=${1:-$BUNDLE}
        make_bundle "$dir"
        mkdir -m 0777 "$dir/out"
        BUNDLE=$dir edit_config '.mounts += [{destination: "/tmp", type: "tmpfs",
                source: "tmpfs", options: ["nosuid", "nodev"]},
                {destination: "/out", type: "bind", source: $o, options: ["rbind", "rw"]}]' \
                --arg o "$dir/out"
}

assert_confined() {
        [[ $1 == *"$PROFILE (enforce)"* ]] || fail "attr/current does not name $PROFILE: $1"
        [[ $1 == *allowed-written* ]] || fail "the allowed write failed: $1"
        [[ $1 == *denied-refused* ]] || fail "the denied write succeeded: $1"
}

@test "create/start: process.apparmorProfile confines the container's process" {
        lsm_bundle
        set_cmd "{ $PROBE; } >/out/result 2>&1"
        edit_config '.process.apparmorProfile = $p' --arg p "$PROFILE"

        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        run sbrun start "$ID"
        [ "$status" -eq 0 ] || fail "start: $output"
        wait_for_status "$ID" stopped 60
        assert_confined "$(cat "$BUNDLE/out/result")"
}

@test "exec: the container's profile, or --apparmor's, confines the exec'd process" {
        lsm_bundle
        set_cmd 'sleep 1000'
        edit_config '.process.apparmorProfile = $p' --arg p "$PROFILE"
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run -d: $output"
        run sbrun exec "$ID" sh -c "$PROBE"
        [ "$status" -eq 0 ] || fail "exec: $output"
        assert_confined "$output"

        # A container without a profile; the exec asks for one.
        local other
        other=$(new_id)
        lsm_bundle "$TEST_DIR/other"
        BUNDLE=$TEST_DIR/other set_cmd 'sleep 1000'
        run detached sbrun run -d -b "$TEST_DIR/other" "$other"
        [ "$status" -eq 0 ] || fail "run -d (no profile): $output"
        run sbrun exec "$other" cat /proc/self/attr/current
        [[ $output == unconfined* ]] || fail "the container without a profile is confined: $output"
        run sbrun exec --apparmor "$PROFILE" "$other" sh -c "$PROBE"
        [ "$status" -eq 0 ] || fail "exec --apparmor: $output"
        assert_confined "$output"
}

@test "a profile that is not loaded fails create, naming it, and leaves nothing" {
        make_bundle
        edit_config '.process.apparmorProfile = "sbrun-not-loaded"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'process.apparmorProfile: "sbrun-not-loaded" refused (rule: the AppArmor profile must be loaded on this host)'
        # policy explain refuses it too, in the same words.
        run sbrun policy explain --bundle "$BUNDLE" --format json
        [ "$status" -eq 0 ]
        [ "$(jq -r .allowed <<<"$output")" = false ]
        jq -e '.changes | any(.action == "refused" and .field == "process.apparmorProfile" and
                .requested == "\"sbrun-not-loaded\"" and .rule == "the AppArmor profile must be loaded on this host")' \
                <<<"$output" >/dev/null || fail "explain: $output"
}
