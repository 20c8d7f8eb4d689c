#!/usr/bin/env bats
# sbrun run by an unprivileged user, on this host: the user the file makes
# (tests/rootless/rootless.bash) runs every sbrun command here through
# tests/rootless/sbrun-as-user, in bundles and a state root of its own.
# The floor's own cases run as that user too, in the adversarial-rootless
# lane (tests/adversarial under tests/rootless/with-user.sh).

load ../helpers
load ../engines/lib/readme
load rootless

setup_file() {
        rl_user_create
}

teardown_file() {
        rl_user_remove
}

# A program that prints what the container sees of its ids.
ids_cmd='id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map'

@test "README: spec --rootless && run, as a user runs it, with the state in \$XDG_RUNTIME_DIR/sbrun" {
        local b=$TEST_DIR/mybox cmd
        mkdir -p "$b"
        cp -a "$SBRUN_ROOTFS" "$b/rootfs"
        chown -R "$RL_USER:" "$b"
        stat -c '%d:%i' "$b/rootfs" >>"$TEST_DIR/rootfs.ids"
        # The README's lines as written, but for where the bundle and sbrun
        # are (and the suite's policy where this host needs the opt-out);
        # without --root.
        cmd=$(readme_block 'rootless: run')
        [ -n "$cmd" ] || fail "README.md has no rootless run snippet after its marker"
        cmd=${cmd//\~\/mybox/$b}
        cmd=${cmd//\/usr\/local\/bin\/sbrun/$SBRUN_REAL${SB_POLICY:+ --policy $SB_POLICY}}
        run as_user sh -c "exec 2>'$TEST_DIR/err'; $cmd"
        [ "$status" -eq 0 ] || fail "run: $output $(cat "$TEST_DIR/err")"
        [ "$(jq -r '.linux.uidMappings[0].hostID' "$b/config.json")" = "$RL_UID" ]
        [[ ${lines[0]} == "uid=0(root) gid=0(root)"* ]] || fail "$output"
        [[ ${lines[1]} =~ ^\ *0\ +$RL_UID\ +1$ ]] || fail "uid_map: ${lines[1]}"
        run as_user sh -c "cd '$b' && echo 'cat /proc/self/gid_map' | $SBRUN_REAL ${SB_POLICY:+--policy $SB_POLICY} run mybox 2>'$TEST_DIR/err'"
        [[ ${lines[0]} =~ ^\ *0\ +$RL_GID\ +1$ ]] || fail "gid_map: $output"
        # The template passes the floor: no warning but the one that this
        # host has no cgroup v2 controllers.
        run grep -i warn "$TEST_DIR/err"
        [ -z "$(grep -v 'runs WITHOUT resource limits' <<<"$output")" ] || fail "warnings: $output"
        # runc's rule: the state root is $XDG_RUNTIME_DIR/sbrun, the user's, 0700.
        [ "$(stat -c '%U %a' "$RL_RUNTIME_DIR/sbrun")" = "$RL_USER 700" ]
        [ ! -e "$RL_RUNTIME_DIR/sbrun/mybox" ]
        [ ! -e "/run/sbrun/mybox" ]
        [ -z "$(procs_rooted_in "$TEST_DIR/rootfs.ids" "$TEST_DIR/")" ]
}

@test "rootless: without XDG_RUNTIME_DIR or --root, the error says what to set" {
        make_bundle
        run setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups --reset-env \
                "$SBRUN_REAL" --policy "${SB_POLICY:-/dev/null}" run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"state root /run/sbrun (running rootless: set XDG_RUNTIME_DIR or give --root)"* ]] ||
                fail "$output"
}

@test "rootless: create, start, state, list, ps, exec, kill, delete" {
        make_bundle
        set_cmd 'echo up; sleep 1000'
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        [ "$(container_status "$ID")" = created ]
        pid=$(container_pid "$ID")
        # The container's processes are the user's on the host.
        [ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$RL_UID" ]
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        [ "$(container_status "$ID")" = running ]
        run sbrun list -q
        [ "$output" = "$ID" ]
        # ps reads the container's cgroup: where the operator's policy opted
        # out of cgroups (this host), it says that there is none.
        run sbrun ps --format json "$ID"
        if [ "$status" -ne 0 ]; then
                [ -n "$SB_POLICY" ] && [[ $output == *"ps: container $ID has no cgroup"* ]] || fail "ps: $output"
        else
                [ "$(jq length <<<"$output")" -ge 1 ]
        fi
        run sbrun exec "$ID" sh -c "$ids_cmd"
        [ "$status" -eq 0 ] || fail "exec: $output"
        [ "${lines[0]}" = 0 ]
        [[ ${lines[2]} =~ ^\ *0\ +$RL_UID\ +1$ ]] || fail "exec uid_map: ${lines[2]}"
        run sbrun kill "$ID" KILL
        [ "$status" -eq 0 ]
        wait_for_status "$ID" stopped
        run sbrun delete "$ID"
        [ "$status" -eq 0 ]
        assert_no_leftovers "$ID"
}

@test "rootless: with no HOME the audit trail is the user's own from /etc/passwd, also as root of the user's namespace" {
        local home log
        home=$(getent passwd "$RL_USER" | cut -d: -f6)
        log=$home/.local/state/sbrun/audit.jsonl
        make_bundle
        set_args true
        # As an engine's cleanup runs it: no HOME, no XDG_STATE_HOME.
        run as_user env -u HOME "$SBRUN_REAL" --root "$ROOT" ${SB_POLICY:+--policy "$SB_POLICY"} \
                run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [[ $output != *audit* ]] || fail "$output"
        [ "$(jq -r --arg id "$ID" 'select(.id == $id) | .event' "$log" | sort -u | tr '\n' ' ')" = "create delete verdict " ] ||
                fail "$(cat "$log")"

        # Root of a user namespace that maps the user (rootless podman's):
        # still the user outside it, never the namespace's "root". There
        # only /etc/sbrun's policy is read: where this host's default policy
        # refuses the container, the refusal is the line.
        local id2
        id2=$(new_id)
        edit_config '.linux.uidMappings = [{containerID: 0, hostID: 0, size: 1}] |
                .linux.gidMappings = [{containerID: 0, hostID: 0, size: 1}]'
        run as_user env -u HOME unshare --user --map-root-user "$SBRUN_REAL" --root "$ROOT" \
                run -b "$BUNDLE" "$id2"
        [[ $output != *audit* ]] || fail "$output"
        grep -q "\"$id2\"" "$log" || fail "no line for $id2 in $log: $(cat "$log")"
        [ "$(stat -c %U "$log")" = "$RL_USER" ]
        [ ! -e /root/.local/state/sbrun/audit.jsonl ] || ! grep -q "$id2" /root/.local/state/sbrun/audit.jsonl
}

@test "rootless: a terminal through --console-socket" {
        make_bundle
        set_args sh
        edit_config '.process.terminal = true'
        local recv=$SBRUN_TEST_TMP/console_receiver
        [ -x "$recv" ] || cc -O2 -Wall -o "$recv" "$SBRUN_SRCDIR/tests/helpers/console_receiver.c"
        # The receiver is the user's too (a user's sbrun cannot connect to
        # root's socket); it types into the pty and reads the answer.
        as_user "$recv" "$TEST_DIR/console.sock" "id -u; tty; echo ok" ok 40 \
                >"$TEST_DIR/receiver.out" 2>&1 3>&- &
        echo $! >>"$TEST_DIR/bg.pids"
        local rpid=$!
        wait_file_has "$TEST_DIR/receiver.out" listening
        run detached sbrun create --console-socket "$TEST_DIR/console.sock" -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "create: $output"
        run sbrun start "$ID"
        [ "$status" -eq 0 ]
        timeout_wait "$rpid" 40 || fail "the receiver did not finish"
        [ "$WAIT_STATUS" -eq 0 ] || fail "receiver: $(cat "$TEST_DIR/receiver.out")"
        grep -q '^/dev/pts/0' "$TEST_DIR/receiver.out"
        grep -q '^ok' "$TEST_DIR/receiver.out"
}

@test "rootless: hooks run as the user, with the state on stdin" {
        make_bundle
        edit_config '.hooks.prestart = [{"path": "/bin/sh", "args": ["sh", "-c", "id -u >$0.uid; cat >$0.state", $f]}]' \
                --arg f "$TEST_DIR/hook"
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        [ "$(cat "$TEST_DIR/hook.uid")" = "$RL_UID" ]
        [ "$(jq -r .id "$TEST_DIR/hook.state")" = "$ID" ]
}

@test "rootless: a map beyond the user's own ids goes through newuidmap and newgidmap" {
        local su sg
        read -r su _ < <(subid_range /etc/subuid)
        read -r sg _ < <(subid_range /etc/subgid)
        make_bundle
        edit_config '.linux.uidMappings = [{"containerID": 0, "hostID": ($u | tonumber), "size": 1},
                        {"containerID": 1, "hostID": ($su | tonumber), "size": 1000}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": ($g | tonumber), "size": 1},
                        {"containerID": 1, "hostID": ($sg | tonumber), "size": 1000}] |
                .process.user = {"uid": 100, "gid": 100}' \
                --arg u "$RL_UID" --arg g "$RL_GID" --arg su "$su" --arg sg "$sg"
        set_cmd "$ids_cmd; sleep 1000"
        run detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "run: $output"
        pid=$(container_pid "$ID")
        # Container uid 100 is the 100th subordinate id on the host.
        [ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = $((su + 99)) ]
        [ "$(awk '/^Gid:/ { print $2 }' "/proc/$pid/status")" = $((sg + 99)) ]
        [ "$(awk '{ print $1, $2, $3 }' "/proc/$pid/uid_map" | tr '\n' ' ')" = "0 $RL_UID 1 1 $su 1000 " ]
        sbrun delete --force "$ID"
        assert_no_leftovers "$ID"
}

@test "rootless: a map /etc/subuid does not grant is refused by name, and nothing is left" {
        local su n
        read -r su n < <(subid_range /etc/subuid)
        make_bundle
        edit_config '.linux.uidMappings += [{"containerID": 1, "hostID": ($h | tonumber), "size": 10}]' \
                --arg h $((su + n))
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"linux.uidMappings: newuidmap refused the map (/etc/subuid says which ids uid $RL_UID may map): newuidmap: uid range"*"not allowed"* ]] ||
                fail "$output"
        assert_no_leftovers "$ID"
        # The seccomp cache may stay (it is the user's, and shared).
        [ -z "$(ls -A "$ROOT" | grep -v '^.seccomp-cache$')" ] || fail "state root: $(ls -A "$ROOT")"
}

@test "rootless: linux.netDevices is refused by name, even where the policy allows the device" {
        # No device of that name exists: nothing could be moved even if the
        # refusal were missing (tests/integration/net_devices.bats moves
        # devices, as root, in namespaces of its own).
        make_bundle
        edit_config '.linux.netDevices = {"sbt-none0": {name: "eth7"}}'
        run detached sbrun --policy "$(policy_with '{"floor": {"net_devices": ["sbt-none0"]}}' nd)" \
                create -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *'linux.netDevices: "sbt-none0": a rootless sbrun cannot move a network device'* ]] ||
                fail "$output"
        assert_no_leftovers "$ID"
}

# The kernel idmaps a host file system only for the host's root: a user's
# sbrun lists neither option and refuses an idmapped mount by name, even
# one the floor allows (the user's own id, mapped to itself).
@test "rootless: a user (no root of a user namespace) is refused idmapped mounts by name, and features lists neither" {
        run sbrun features
        [ "$status" -eq 0 ]
        [ "$(jq -r '.mountOptions | index("idmap") == null and index("ridmap") == null' <<<"$output")" = true ] ||
                fail "$output"
        [ "$(jq -r '.linux.mountExtensions.idmap.enabled' <<<"$output")" = false ]

        make_bundle
        mkdir "$TEST_DIR/share"
        chown "$RL_USER:" "$TEST_DIR/share"
        edit_config '.mounts += [{"destination": "/mnt", "type": "bind", "source": $s,
                                  "options": ["rbind", "idmap"],
                                  "uidMappings": [{"containerID": ($u | tonumber), "hostID": ($u | tonumber), "size": 1}],
                                  "gidMappings": [.linux.gidMappings[0] | {containerID: .hostID, hostID: .hostID, size: 1}]}]' \
                --arg s "$TEST_DIR/share" --arg u "$RL_UID"
        local n
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))
        run detached sbrun create -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"mounts[$n].options: an idmapped mount (\"idmap\") is not supported by sbrun run rootless by a user: the kernel idmaps a mount only for the root of the user namespace that owns its file system"* ]] ||
                fail "$output"
        assert_no_leftovers "$ID"
}

@test "rootless: a user cannot lower the floor with a policy of its own" {
        make_bundle
        # The user's own opt-out, a copy of the suite's, in its home.
        local home
        home=$(getent passwd "$RL_USER" | cut -d: -f6)
        as_user sh -c "echo '{\"cgroups\": {\"enforce\": false}, \"floor\": {\"profile\": \"standard\"}}' >'$home/policy.json'"
        run sbrun --policy "$home/policy.json" run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"policy $home/policy.json: must be owned by root and not writable by group or others (owner uid $RL_UID, mode 0644); refused"* ]] ||
                fail "$output"
        assert_no_leftovers "$ID"
        # The operator's root-owned policy is read by a user's sbrun too:
        # strict's floor holds (no socket but AF_UNIX).
        set_cmd 'nc -l -p 1 127.0.0.1 2>&1; echo done'
        run sbrun --policy "$(policy_with '{"floor": {"profile": "strict"}}' strict)" run -b "$BUNDLE" "$ID"
        [[ $output == *done* ]] || fail "nc under strict did not end: $output"
        [[ $output != *"Address in use"* ]] || fail "nc under strict: $output"
        [[ $output == *"not permitted"* ]] || fail "nc under strict: $output"
}

@test "rootless: --rootless auto and true are taken from a user, false is refused" {
        make_bundle
        run sbrun --rootless true run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        run sbrun --rootless auto run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        run sbrun --rootless false run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"--rootless false: sbrun runs rootless here (euid $RL_UID); leave it out or say auto"* ]] ||
                fail "$output"
}

@test "rootless: a state root another user owns, or others may write, is refused" {
        make_bundle
        chown root: "$ROOT"
        chmod 0755 "$ROOT"
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"state root $ROOT"*"permission denied"* ]] ||
                [[ $output == *"state root $ROOT: owned by uid 0 with mode 0755; it must be owned by the caller (uid $RL_UID)"* ]] ||
                fail "$output"
        chown "$RL_USER:" "$ROOT"
        chmod 0777 "$ROOT"
        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"state root $ROOT: owned by uid $RL_UID with mode 0777"* ]] || fail "$output"
        chmod 0700 "$ROOT"
}

@test "rootless: check reports rootless readiness: the user, its state root, newuidmap and its ranges" {
        local su sn
        read -r su sn < <(subid_range /etc/subuid)
        run sbrun check
        [ "$status" -eq 0 ] || fail "$output"
        [[ $output == *"root               ok     rootless: uid $RL_UID"* ]] || fail "$output"
        [[ $output == *"state root         ok     $ROOT: uid $RL_UID, mode 0700"* ]] || fail "$output"
        [[ $output == *"newuidmap          ok     /usr/bin/newuidmap, /usr/bin/newgidmap"*"uid $RL_UID: /etc/subuid $su+$sn"* ]] ||
                fail "$output"
        # A user's namespaces are probed inside a user namespace, as create
        # makes them.
        [[ $output == *"namespace pid      ok"* ]] || fail "$output"
        [[ $output == *"ready: this host can run confined containers"* ]] || fail "$output"
        # Without XDG_RUNTIME_DIR or --root, /run/sbrun cannot be the user's.
        run setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups --reset-env \
                "$SBRUN_REAL" ${SB_POLICY:+--policy "$SB_POLICY"} check
        [ "$status" -ne 0 ]
        [[ $output == *"state root         FAIL   /run/sbrun: cannot be made here: set XDG_RUNTIME_DIR or give --root"* ]] ||
                fail "$output"
        [[ $output == *"not ready: 1 required item failed: state root"* ]] || fail "$output"
}
