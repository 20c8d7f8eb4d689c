#!/usr/bin/env bats
# Idmapped bind mounts: mounts[].uidMappings/gidMappings and the idmap and
# ridmap options (runtime/sandbox/idmap_mount.h, the floor's rule in
# spec/floor_spec_fields.c).

load ../helpers

teardown() {
        # The host submount a test made under its source, before the
        # leftover check of sb_teardown.
        if [ -n "${HOST_SUBMOUNT:-}" ] && mountpoint -q "$HOST_SUBMOUNT"; then
                umount "$HOST_SUBMOUNT"
        fi
        [ -z "${SHARE_BASE:-}" ] || rm -rf "$SHARE_BASE"
        sb_teardown
}

# share_dir NAME: a new directory for a bind source, on a file system the
# kernel can idmap: the test's own on the host (ext4); in the VM lane's
# guest, whose /tmp is a tmpfs (idmapped only from Linux 6.3), on its ext4
# (tests/vm/bundle-fs.sh).
share_dir() {
        if [ -z "${SHARE_BASE:-}" ]; then
                if [ "${SBRUN_VM:-0}" = 1 ]; then
                        SHARE_BASE=$(mktemp -d "$("$SBRUN_SRCDIR/tests/vm/bundle-fs.sh" ext4)/idmap.XXXXXX")
                else
                        SHARE_BASE=$(mktemp -d "$TEST_DIR/shares.XXXXXX")
                fi
                chmod 0755 "$SHARE_BASE"
        fi
        mkdir -p "$SHARE_BASE/$1"
        echo "$SHARE_BASE/$1"
}

# A bundle whose container has its own user namespace: container ids
# 0..65535 are host ids 200000..265535.
idmap_bundle() {
        make_bundle
        edit_config '.linux.namespaces += [{"type": "user"}] |
                .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                (.mounts |= map(select(.destination != "/sys/fs/cgroup")))'
}

# add_idmapped SOURCE DEST OPTION: a bind whose disk ids 201000..201999
# are the container's 0..999 (its host ids 200000..200999).
add_idmapped() {
        edit_config '.mounts += [{"destination": $d, "type": "bind", "source": $s,
                                  "options": ["rbind", "rw", $o],
                                  "uidMappings": [{"containerID": 201000, "hostID": 200000, "size": 1000}],
                                  "gidMappings": [{"containerID": 201000, "hostID": 200000, "size": 1000}]}]' \
                --arg s "$1" --arg d "$2" --arg o "$3"
}

@test "features lists idmap and ridmap, and mountExtensions.idmap, as root on the host and as root of a user namespace" {
        run sbrun features
        [ "$status" -eq 0 ]
        [ "$(jq -r '.mountOptions | index("idmap") != null and index("ridmap") != null' <<<"$output")" = true ]
        [ "$(jq -r '.linux.mountExtensions.idmap.enabled' <<<"$output")" = true ]
        # As root of a user namespace (rootless podman's) too: the kernel
        # idmaps what that namespace mounted (tests/vm/trixie_rootless.bats);
        # a user outside any is refused (tests/rootless/rootless.bats).
        run unshare --user --map-root-user "$SBRUN" features
        [ "$status" -eq 0 ]
        [ "$(jq -r '.mountOptions | index("idmap") != null and index("ridmap") != null' <<<"$output")" = true ]
        [ "$(jq -r '.linux.mountExtensions.idmap.enabled' <<<"$output")" = true ]
}

@test "an idmapped bind: files made inside get the mapped disk ids, host files show as mapped container ids" {
        idmap_bundle
        local share
        share=$(share_dir share)
        echo host >"$share/hostfile"
        chown 201005:201006 "$share/hostfile"
        chown 201000:201000 "$share"
        set_cmd 'stat -c "%u:%g" /mnt/hostfile; touch /mnt/made; mkdir /mnt/dir && chown 7:8 /mnt/dir; grep " /mnt " /proc/self/mountinfo'
        add_idmapped "$share" /mnt idmap
        edit_config '.process.capabilities |= with_entries(.value += ["CAP_CHOWN"])'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "${lines[0]}" = 5:6 ]
        [ "$(stat -c %u:%g "$share/made")" = 201000:201000 ]
        [ "$(stat -c %u:%g "$share/dir")" = 201007:201008 ]
        # Still nosuid and nodev, as every bind.
        [[ ${lines[1]} == *nosuid* && ${lines[1]} == *nodev* ]] || fail "${lines[1]}"
        # The host's view is untouched.
        [ "$(stat -c %u:%g "$share/hostfile")" = 201005:201006 ]
}

@test "an idmapped bind of a file, read-only" {
        idmap_bundle
        local file
        file=$(share_dir files)/file
        echo host >"$file"
        chown 201003:201004 "$file"
        set_cmd 'stat -c "%u:%g" /etc/idfile; echo x >>/etc/idfile 2>&1 || echo refused'
        edit_config '.mounts += [{"destination": "/etc/idfile", "type": "bind", "source": $s,
                                  "options": ["bind", "ro", "idmap"],
                                  "uidMappings": [{"containerID": 201000, "hostID": 200000, "size": 1000}],
                                  "gidMappings": [{"containerID": 201000, "hostID": 200000, "size": 1000}]}]' \
                --arg s "$file"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [ "${lines[0]}" = 3:4 ]
        [ "${lines[-1]}" = refused ]
        [ "$(cat "$file")" = host ]
}

@test "ridmap idmaps a mount below the source, idmap does not" {
        idmap_bundle
        local share other
        share=$(share_dir share)
        other=$(share_dir other)
        mkdir "$share/sub"
        echo below >"$other/f"
        chown 201003:201003 "$other/f"
        mount --bind "$other" "$share/sub"
        HOST_SUBMOUNT=$share/sub
        set_cmd 'stat -c %u /mnt/sub/f'
        add_idmapped "$share" /mnt ridmap

        run sbrun run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "ridmap: status $status: $output"
        [ "$output" = 3 ]

        edit_config '.mounts[-1].options = ["rbind", "idmap"]'
        run sbrun run -b "$BUNDLE" "$(new_id)"
        [ "$status" -eq 0 ] || fail "idmap: status $status: $output"
        # Not idmapped: disk id 201003 is the container's 1003 there.
        [ "$output" = 1003 ]
}

# As bwrap's binds (docs/design.md, "bwrap makes every mount a slave of
# the host's"): a clone of a shared host mount would be its peer, and what
# the container mounts under it would appear on the host.
@test "an idmapped bind of a shared host mount is its slave, not its peer" {
        idmap_bundle
        local share
        share=$(share_dir share)
        mount --bind "$share" "$share"
        HOST_SUBMOUNT=$share
        mount --make-shared "$share"
        set_cmd 'grep " /mnt " /proc/self/mountinfo'
        add_idmapped "$share" /mnt idmap

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        [[ $output == *" master:"* && $output != *" shared:"* ]] || fail "$output"
}

@test "a file system the kernel cannot idmap is refused by name, leaving nothing" {
        idmap_bundle
        mkdir "$TEST_DIR/share"
        mount -t ramfs none "$TEST_DIR/share"
        HOST_SUBMOUNT=$TEST_DIR/share
        add_idmapped "$TEST_DIR/share" /mnt idmap
        local n
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))

        run detached sbrun create -b "$BUNDLE" "$ID"
        umount "$TEST_DIR/share"
        assert_fails_cleanly "$ID" "mounts[$n]: the kernel cannot idmap a mount of this ramfs file system: invalid argument"
}

# tmpfs has idmapped mounts from Linux 6.3: the VM lane's 6.1 refuses
# them, naming the type; the host's newer kernel makes them.
@test "a tmpfs source: idmapped from Linux 6.3, refused by name before" {
        idmap_bundle
        mkdir "$TEST_DIR/tmpfs"
        mount -t tmpfs -o mode=0755 none "$TEST_DIR/tmpfs"
        HOST_SUBMOUNT=$TEST_DIR/tmpfs
        echo host >"$TEST_DIR/tmpfs/f"
        chown 201002:201002 "$TEST_DIR/tmpfs/f"
        set_cmd 'stat -c %u /mnt/f'
        add_idmapped "$TEST_DIR/tmpfs" /mnt idmap
        local n version
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))
        version=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')

        if [ "$version" -ge 6003 ]; then
                run sbrun run -b "$BUNDLE" "$ID"
                umount "$TEST_DIR/tmpfs"
                [ "$status" -eq 0 ] || fail "status $status: $output"
                [ "$output" = 2 ]
        else
                run detached sbrun create -b "$BUNDLE" "$ID"
                umount "$TEST_DIR/tmpfs"
                assert_fails_cleanly "$ID" "mounts[$n]: the kernel cannot idmap a mount of this tmpfs file system: invalid argument"
        fi
}

# --- the floor ----------------------------------------------------------------

@test "an idmapped mount that would write a disk id the container's user namespace does not map is refused" {
        idmap_bundle
        mkdir "$TEST_DIR/share"
        # Disk id 0 (the host's root) for the container's root: a setuid
        # file made there would be the host root's.
        edit_config '.mounts += [{"destination": "/mnt", "type": "bind", "source": $s,
                                  "options": ["rbind", "idmap"],
                                  "uidMappings": [{"containerID": 0, "hostID": 200000, "size": 1}],
                                  "gidMappings": [{"containerID": 201000, "hostID": 200000, "size": 1}]}]' \
                --arg s "$TEST_DIR/share"
        local n
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[$n].uidMappings: containerID 0 hostID 200000 size 1 refused (rule: standard: an idmapped mount writes to the disk only ids the container's own user namespace maps)"

        # A range that runs past the container's ranges, by one id.
        edit_config '.mounts[-1].uidMappings = [{"containerID": 265000, "hostID": 200000, "size": 537}]'
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[$n].uidMappings: containerID 265000 hostID 200000 size 537 refused"
        # policy explain says the same.
        run sbrun policy explain -b "$BUNDLE"
        [[ $output == *"mounts[$n].uidMappings"* ]] || fail "$output"
}

@test "idmap without mappings uses the container's own, which the floor refuses when it maps the disk's root" {
        idmap_bundle
        mkdir "$TEST_DIR/share"
        edit_config '.mounts += [{"destination": "/mnt", "type": "bind", "source": $s,
                                  "options": ["rbind", "idmap"]}]' --arg s "$TEST_DIR/share"
        local n
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[$n].uidMappings: the container's own mapping, containerID 0 hostID 200000 size 65536 refused (rule: standard: an idmapped mount writes"
}

@test "floor.volumes.idmap \"engine\": podman's :idmap (the container's own mapping) is carried out under standard, never under strict" {
        idmap_bundle
        local share policy n
        share=$(share_dir engine)
        echo host >"$share/rootfile"
        edit_config '.mounts += [{"destination": "/mnt", "type": "bind", "source": $s,
                                  "options": ["rbind", "rw", "idmap"]}]' --arg s "$share"
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))
        set_cmd 'stat -c "%u:%g" /mnt/rootfile; touch /mnt/made && echo made'
        policy=$(policy_with '{"floor": {"volumes": {"idmap": "engine"}}}' engine)

        run sbrun --policy "$policy" policy show
        [[ $output == *'idmapped mounts: any disk ids the engine asks (floor.volumes.idmap "engine")'* ]] ||
                fail "policy show: $output"
        run sbrun --policy "$policy" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "status $status: $output"
        # The disk's root is the container's root, both ways, as crun does.
        [[ $output == *"0:0"* && $output == *made* ]] || fail "inside: $output"
        [ "$(stat -c %u:%g "$share/made")" = 0:0 ] || fail "made on the disk as $(stat -c %u:%g "$share/made")"

        # An annotation that selects strict takes the operator's waiver away.
        rm -f "$share/made"
        edit_config '.annotations["run.sbrun.policy"] = "strict"'
        run detached sbrun --policy "$policy" create -b "$BUNDLE" "$ID"
        [ "$status" -ne 0 ]
        [[ $output == *"mounts[$n].uidMappings: the container's own mapping, containerID 0 hostID 200000 size 65536 refused"* ]] ||
                fail "strict: $output"
        [ ! -e "$share/made" ]
        assert_no_leftovers "$ID"
}

@test "an idmapped mount needs a user namespace of the container's own, and both mappings" {
        make_bundle
        mkdir "$TEST_DIR/share"
        add_idmapped "$TEST_DIR/share" /mnt idmap
        local n
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[$n].uidMappings: \"idmap\" (/mnt) refused (rule: standard: an idmapped mount needs a new user namespace"

        edit_config '.linux.namespaces += [{"type": "user"}] |
                .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                (.mounts |= map(select(.destination != "/sys/fs/cgroup"))) |
                del(.mounts[-1].gidMappings)'
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))
        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[$n].gidMappings: (missing) refused"
}

@test "idmap on a mount that is no bind is refused by name" {
        idmap_bundle
        edit_config '.mounts += [{"destination": "/mnt", "type": "tmpfs", "source": "tmpfs",
                                  "options": ["idmap"]}]'
        local n
        n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mounts[$n].options: a tmpfs mount refused (rule: not supported by sbrun: only a bind mount can be idmapped)"
}

@test "a create that fails after the idmapped tree was made leaves nothing behind" {
        idmap_bundle
        local share
        share=$(share_dir share)
        add_idmapped "$share" /mnt idmap
        # Translated after the idmapped one: its tree exists when this fails.
        edit_config '.mounts += [{"destination": "/other", "type": "bind", "source": $s,
                                  "options": ["rbind", "size=1g"]}]' --arg s "$share"

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" '"size=1g" is not supported by sbrun on a bind mount'
        # No process of sbrun's holds a mapping user namespace either.
        [ -z "$(procs_rooted_in /dev/null "$ID")" ]
}

@test "a create that fails in sbrun-init after the tree was passed leaves nothing behind" {
        idmap_bundle
        add_idmapped "$(share_dir share)" /mnt idmap
        # sbrun-init attaches the tree, then looks the program up, and
        # fails there.
        edit_config '.process.args = ["/no/such/binary"]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "/no/such/binary"
}
