#!/usr/bin/env bats
# root, mounts, maskedPaths, readonlyPaths, devices.

load ../helpers

# mount_line DEST: the container's /proc/mounts line for DEST (from $output).
mount_line() {
        awk -v d="$1" '$2 == d' <<<"$output" | tail -n 1
}

# --- root -------------------------------------------------------------------

@test "root.readonly makes / read-only" {
        make_bundle
        set_cmd 'touch /newfile 2>&1; echo rc=$?'
        edit_config '.root.readonly = true'

        run sbrun run -b "$BUNDLE" "$ID"
        [[ $output == *"Read-only file system"* ]]
        [[ $output == *"rc=1"* ]]
        [ ! -e "$BUNDLE/rootfs/newfile" ]
}

@test "a writable root writes through to the bundle's rootfs" {
        make_bundle
        set_cmd 'echo inside >/newfile'
        edit_config '.root.readonly = false'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(cat "$BUNDLE/rootfs/newfile")" = inside ]
}

@test "root.path may be absolute" {
        make_bundle
        mv "$BUNDLE/rootfs" "$TEST_DIR/elsewhere"
        edit_config '.root.path = $p' --arg p "$TEST_DIR/elsewhere"
        set_args echo ok

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = ok ]
}

@test "a missing rootfs fails naming root.path" {
        make_bundle
        edit_config '.root.path = "nothere"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        [[ ${output,,} == *"no such file or directory"* || $output == *"does not exist"* ]]
        assert_fails_cleanly "$ID" nothere
        [ ! -e "$BUNDLE/nothere" ]
}

# --- bind mounts ------------------------------------------------------------

@test "a read-only bind mount shows host files and refuses writes" {
        make_bundle
        mkdir "$TEST_DIR/share"
        echo host-data >"$TEST_DIR/share/file"
        set_cmd 'cat /mnt/share/file; echo x >/mnt/share/new 2>&1; echo rc=$?'
        edit_config '.mounts += [{"destination": "/mnt/share", "type": "bind", "source": $s,
                                  "options": ["bind", "ro"]}]' --arg s "$TEST_DIR/share"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "${lines[0]}" = host-data ]
        [[ $output == *"Read-only file system"* ]]
        [ ! -e "$TEST_DIR/share/new" ]
}

@test "a read-write bind mount writes through to the host" {
        make_bundle
        mkdir "$TEST_DIR/share"
        set_cmd 'echo from-container >/mnt/share/new'
        edit_config '.mounts += [{"destination": "/mnt/share", "type": "bind", "source": $s,
                                  "options": ["rbind", "rw"]}]' --arg s "$TEST_DIR/share"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$(cat "$TEST_DIR/share/new")" = from-container ]
}

@test "a bind mount of a single file" {
        make_bundle
        echo "file-data" >"$TEST_DIR/one"
        set_args cat /etc/one
        edit_config '.mounts += [{"destination": "/etc/one", "type": "bind", "source": $s,
                                  "options": ["bind", "ro"]}]' --arg s "$TEST_DIR/one"

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "$output" = file-data ]
}

@test "a bind mount of a missing source fails with 'no such file or directory'" {
        make_bundle
        edit_config '.mounts += [{"destination": "/mnt/x", "type": "bind", "source": $s,
                                  "options": ["bind"]}]' --arg s "$TEST_DIR/missing"

        run detached sbrun create -b "$BUNDLE" "$ID"
        [[ ${output,,} == *"no such file or directory"* ]]
        assert_fails_cleanly "$ID" "$TEST_DIR/missing"
}

# --- tmpfs, proc, devpts, mqueue, sysfs, cgroup2 ----------------------------

@test "a tmpfs mount gets its size and mode" {
        make_bundle
        set_cmd 'cat /proc/mounts; stat -c "mode=%a" /scratch'
        edit_config '.mounts += [{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs",
                                  "options": ["size=1m", "mode=1750"]}]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        line=$(mount_line /scratch)
        [[ $line == "tmpfs /scratch tmpfs "* ]]
        [[ $line == *size=1024k* ]]
        [[ ${lines[-1]} == mode=1750 ]]
}

# bwrap's --tmpfs takes a mode and a size only: a tmpfs with other data
# options is mounted by sbrun-init with all of them, and where a later
# mount needs bwrap's as its base, each option left out is warned about.
@test "a tmpfs's uid= and gid= are applied; where bwrap must mount it, the warning names each one left out" {
        make_bundle
        edit_config '.mounts += [{destination: "/owned", type: "tmpfs", source: "tmpfs",
                                  options: ["uid=1000", "gid=1001", "mode=0750", "size=1m"]},
                                 {destination: "/base", type: "tmpfs", source: "tmpfs", options: ["uid=1000", "mode=0700"]},
                                 {destination: "/base/sub", type: "tmpfs", source: "tmpfs", options: []}]'
        set_cmd 'stat -c "%n %u:%g %a" /owned /base'
        run sbrun --log "$TEST_DIR/sbrun.log" run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "/owned 1000:1001 750" ] || fail "$output"
        [ "${lines[1]}" = "/base 0:0 700" ] || fail "$output"
        local n
        n=$(jq '.mounts | length - 2' "$BUNDLE/config.json")
        # The log's msg="..." escapes the quotes.
        grep -qF "mounts[$n].options: \\\"uid=1000\\\" of the tmpfs at /base is not applied: a later mount lies under it" \
                "$TEST_DIR/sbrun.log" || fail "no warning: $(cat "$TEST_DIR/sbrun.log")"
        [ "$(grep -c "is not applied" "$TEST_DIR/sbrun.log")" -eq 1 ] || fail "$(cat "$TEST_DIR/sbrun.log")"

        # One the kernel does not know fails the run, naming it, and leaves nothing.
        edit_config '.mounts |= map(select(.destination | startswith("/base") | not)) |
                     (.mounts[] | select(.destination == "/owned") | .options) += ["nosuchoption=1"]'
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" "mount tmpfs on /owned (uid=1000,gid=1001,mode=0750,size=1m,nosuchoption=1"
}

# tmpcopyup, as podman sends it for every tmpfs it adds (--read-only,
# --tmpfs): the tmpfs starts with a copy of the image's directory.
@test "a tmpcopyup tmpfs holds a copy of the image's directory: files, dirs, links, modes, owners, times, xattrs" {
        make_bundle
        local img=$BUNDLE/rootfs/data
        mkdir -p "$img/sub/deeper"
        echo hello >"$img/file"
        echo deep >"$img/sub/deeper/leaf"
        chmod 0640 "$img/file"
        chown 1234:5678 "$img/sub"
        chmod 2751 "$img/sub"
        ln -s ../etc/passwd "$img/rel-link"
        ln -s / "$img/abs-link"
        mkfifo "$img/fifo"
        touch -h -d '2001-02-03 04:05:06' "$img/file" "$img/rel-link"
        touch -d '2002-03-04 05:06:07' "$img/sub"
        python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.sbrun", b"copied")' "$img/file"
        edit_config '.root.readonly = true |
                .mounts += [{destination: "/data", type: "tmpfs", source: "tmpfs",
                             options: ["nosuid", "nodev", "tmpcopyup", "mode=0755"]}]'
        set_cmd 'cd /data && cat file sub/deeper/leaf &&
                stat -c "%n %a %u:%g %Y" file sub rel-link && readlink rel-link && readlink abs-link &&
                ls -l fifo | cut -c1 && echo new >file && echo written &&
                grep -c " /data .* - tmpfs " /proc/self/mountinfo'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = hello ]
        [ "${lines[1]}" = deep ]
        [ "${lines[2]}" = "file 640 0:0 $(date -d '2001-02-03 04:05:06' +%s)" ]
        [ "${lines[3]}" = "sub 2751 1234:5678 $(date -d '2002-03-04 05:06:07' +%s)" ]
        [ "${lines[4]}" = "rel-link 777 0:0 $(date -d '2001-02-03 04:05:06' +%s)" ]
        [ "${lines[5]}" = ../etc/passwd ]
        [ "${lines[6]}" = / ]
        [ "${lines[7]}" = p ]
        [ "${lines[8]}" = written ]
        [ "${lines[9]}" = 1 ]
        # A copy: the image is unchanged.
        [ "$(cat "$img/file")" = hello ]

        # Extended attributes, read from the host in the running container.
        set_args sleep 1000
        run detached sbrun run -d -b "$BUNDLE" "$ID-x"
        [ "$status" -eq 0 ] || fail "$output"
        pid=$(container_pid "$ID-x")
        run python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.sbrun").decode())' \
                "/proc/$pid/root/data/file"
        [ "$output" = copied ]
}

@test "tmpcopyup follows no symlink out of the rootfs, and later mounts stay on top of the copy" {
        make_bundle
        mkdir -p "$TEST_DIR/host-secret"
        echo secret >"$TEST_DIR/host-secret/key"
        # Links in the image that point out of it are copied as links.
        mkdir -p "$BUNDLE/rootfs/data"
        ln -s "$TEST_DIR/host-secret" "$BUNDLE/rootfs/data/escape"
        ln -s ../../../../../.. "$BUNDLE/rootfs/data/up"
        # An absolute link as the destination resolves in the rootfs.
        ln -s /etc "$BUNDLE/rootfs/etc-link"
        mkdir -p "$BUNDLE/rootfs/run/lock/sub"
        echo image >"$BUNDLE/rootfs/run/lock/sub/x"
        echo host >"$TEST_DIR/bound"
        edit_config '.root.readonly = true |
                .mounts += [{destination: "/data", type: "tmpfs", source: "tmpfs", options: ["tmpcopyup"]},
                            {destination: "/etc-link", type: "tmpfs", source: "tmpfs", options: ["tmpcopyup"]},
                            {destination: "/run", type: "tmpfs", source: "tmpfs", options: ["tmpcopyup"]},
                            {destination: "/run/lock/sub/x", type: "bind", source: $b, options: ["ro", "bind"]}]' \
                --arg b "$TEST_DIR/bound"
        set_cmd 'ls -A /data | tr "\n" " "; echo; readlink /data/escape; cat /data/escape/key 2>/dev/null || echo no-key
                grep -c " /etc .* - tmpfs " /proc/self/mountinfo; grep -c ^root: /etc/passwd
                cat /run/lock/sub/x; ls /run/lock/sub'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "escape up " ]
        [ "${lines[1]}" = "$TEST_DIR/host-secret" ]
        [ "${lines[2]}" = no-key ]
        [ "${lines[3]}" = 1 ]
        [ "${lines[4]}" = 1 ]
        # The later bind stays on top of the copy of its parents.
        [ "${lines[5]}" = host ]
        [ "${lines[6]}" = x ]
        [ -z "$(grep -x secret <<<"$output")" ]
}

@test "tmpcopyup on a bind mount, or of a path under a bind, is refused naming the mount" {
        make_bundle
        mkdir -p "$TEST_DIR/src"
        edit_config '.mounts += [{destination: "/b", type: "bind", source: $s, options: ["bind", "tmpcopyup"]}]' --arg s "$TEST_DIR/src"
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'tmpcopyup needs a tmpfs, not a bind mount'

        edit_config '.mounts |= map(select(.destination != "/b")) |
                .mounts += [{destination: "/b", type: "bind", source: $s, options: ["bind"]},
                            {destination: "/b/t", type: "tmpfs", source: "tmpfs", options: ["tmpcopyup"]}]' --arg s "$TEST_DIR/src"
        run sbrun run -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'lies under the bind mount at /b: not supported'
}

@test "a tmpfs keeps its source in mountinfo: /dev/shm shows shm, with its options" {
        make_bundle
        # The template's /dev/shm: source shm, runc's options.
        [ "$(jq -r '.mounts[] | select(.destination == "/dev/shm") | .source' "$BUNDLE/config.json")" = shm ]
        edit_config '.mounts += [{destination: "/scratch", type: "tmpfs", source: "scratch-src", options: ["ro"]},
                                 {destination: "/base", type: "tmpfs", source: "base-src", options: []},
                                 {destination: "/base/sub", type: "tmpfs", source: "tmpfs", options: []}]'
        set_cmd 'awk "\$5 == \"/dev/shm\" || \$5 == \"/scratch\" || \$5 == \"/base\" { for (i = 7; \$i != \"-\"; i++); print \$5, \$(i+1), \$(i+2), \$6 }" /proc/self/mountinfo
                stat -c "%a" /dev/shm; touch /scratch/x 2>/dev/null || echo ro; ls -d /base/sub'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ] || fail "$output"
        [[ $(grep '^/dev/shm ' <<<"$output") == "/dev/shm tmpfs shm rw,nosuid,nodev,noexec"* ]] || fail "$output"
        [[ $(grep '^/scratch ' <<<"$output") == "/scratch tmpfs scratch-src ro,"* ]] || fail "$output"
        # A tmpfs that a later mount needs as its base is bwrap's, named tmpfs.
        [[ $(grep '^/base ' <<<"$output") == "/base tmpfs tmpfs "* ]] || fail "$output"
        grep -qx 1777 <<<"$output"
        grep -qx ro <<<"$output"
        grep -qx /base/sub <<<"$output"
}

# propagation_case JQ: in a mount namespace of the test's own (the host's
# stays as it is), make $TEST_DIR/src a shared mount, run a container with
# the config edited by JQ, then mount a tmpfs under the source and under
# the rootfs on the "host" side. Prints what the container then sees:
# "bind yes|no" and "root yes|no".
propagation_case() {
        edit_config 'del(.linux.rootfsPropagation) | .mounts |= map(select(.destination != "/shared"))'
        edit_config "$1" --arg s "$TEST_DIR/src"
        mkdir -p "$TEST_DIR/src/sub" "$BUNDLE/rootfs/late"
        unshare -m --propagation unchanged "$BASH" -c '
                set -e
                mount --make-rshared /
                mount --bind "$1/src" "$1/src" && mount --make-shared "$1/src"
                mount --bind "$2/rootfs" "$2/rootfs" && mount --make-shared "$2/rootfs"
                "${@:4}" run -d -b "$2" "$3" </dev/null >/dev/null 2>&1 3>&-
                pid=$("${@:4}" state "$3" | jq -r .pid)
                mount -t tmpfs late-bind "$1/src/sub"
                mount -t tmpfs late-root "$2/rootfs/late"
                sleep 0.2
                grep -q " /shared/sub .* late-bind " "/proc/$pid/mountinfo" && echo "bind yes" || echo "bind no"
                grep -q " /late .* late-root " "/proc/$pid/mountinfo" && echo "root yes" || echo "root no"
                awk "\$5 == \"/shared\" { t = \"\"; for (i = 7; \$i != \"-\"; i++) t = t \" \" \$i; print \"tags\" t }" "/proc/$pid/mountinfo"
                umount "$1/src/sub" "$2/rootfs/late" "$1/src" "$2/rootfs"' \
                _ "$TEST_DIR" "$BUNDLE" "$ID" "${SBRUN_ARGV[@]}"
}

@test "propagation: an rshared bind and rootfsPropagation shared receive mounts made on the host afterwards; private ones do not" {
        make_bundle
        set_args sleep 1000
        run propagation_case '.linux.rootfsPropagation = "rshared" |
                .mounts += [{destination: "/shared", type: "bind", source: $s, options: ["rbind", "rshared"]}]'
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "bind yes" ] || fail "$output"
        [ "${lines[1]}" = "root yes" ] || fail "$output"
        [[ ${lines[2]} == "tags shared:"*" master:"* ]] || fail "$output"
        run sbrun delete --force "$ID"

        run propagation_case '.linux.rootfsPropagation = "rprivate" |
                .mounts += [{destination: "/shared", type: "bind", source: $s, options: ["rbind", "rprivate"]}]'
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "bind no" ] || fail "$output"
        [ "${lines[1]}" = "root no" ] || fail "$output"
        run sbrun delete --force "$ID"

        # Without options a mount is a slave of the host's, as runc's rslave
        # default: it receives, and sends nothing back.
        run propagation_case '.mounts += [{destination: "/shared", type: "bind", source: $s, options: ["rbind"]}]'
        [ "$status" -eq 0 ] || fail "$output"
        [ "${lines[0]}" = "bind yes" ] || fail "$output"
        [[ ${lines[2]} == "tags master:"* ]] || fail "$output"
}

@test "the spec's default mounts are there: proc, /dev tmpfs, devpts, mqueue, sysfs" {
        make_bundle
        set_args cat /proc/mounts

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $(mount_line /proc) == "proc /proc proc "* ]]
        [[ $(mount_line /dev) == *" /dev tmpfs "* ]]
        [[ $(mount_line /dev/pts) == *" /dev/pts devpts "* ]]
        [[ $(mount_line /dev/mqueue) == *" /dev/mqueue mqueue "* ]]
        [[ $(mount_line /sys) == *" /sys sysfs ro,"* ]]
}

@test "a cgroup2 mount shows a cgroup2 file system" {
        make_bundle
        set_args cat /proc/mounts
        edit_config '(.mounts |= map(select(.destination != "/sys/fs/cgroup"))) |
                .linux.namespaces |= (map(select(.type != "cgroup")) + [{"type": "cgroup"}]) |
                .mounts += [{"destination": "/sys/fs/cgroup", "type": "cgroup2", "source": "cgroup2",
                             "options": ["nosuid", "noexec", "nodev", "ro"]}]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $(mount_line /sys/fs/cgroup) == *" /sys/fs/cgroup cgroup2 ro,"* ]]
}

@test "an unknown mount type is refused" {
        make_bundle
        edit_config '.mounts += [{"destination": "/mnt/x", "type": "nosuchfs", "source": "none"}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" '"nosuchfs" is not supported by sbrun'
        [[ $output == *"mounts["*"].type: \"nosuchfs\""* ]]
}

# The floor and the mount translation read size= alike (common/size_parse.h):
# strtoull made -1 2^64-1 and let a shift wrap, and the floor clamped what
# it could not read; a size= that is no size is refused before anything is
# made in the rootfs.
@test "a tmpfs size= that is negative or past 2^63-1 bytes is refused at create, naming the mount" {
        local n size
        make_bundle
        for size in -1 99999999999999999999k 17179869184G; do
                edit_config '.mounts |= map(select(.destination != "/scratch")) |
                        .mounts += [{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs",
                                     "options": ["nosuid", $o]}]' --arg o "size=$size"
                n=$(($(jq '.mounts | length' "$BUNDLE/config.json") - 1))

                run detached sbrun create -b "$BUNDLE" "$ID"
                assert_fails_cleanly "$ID" "mounts[$n].options: size=$size refused" || return 1
                [ ! -e "$BUNDLE/rootfs/scratch" ] || fail "size=$size: /scratch made in the rootfs"
        done
}

@test "a mount without a destination is refused" {
        make_bundle
        edit_config '.mounts += [{"type": "tmpfs", "source": "tmpfs"}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" destination
}

# --- the symlink escape (docs/design.md#bwrap-follows-rootfs-symlinks-outside-the-rootfs) ---

@test "a mount destination that escapes the rootfs through a symlink is refused" {
        host_dir=$(mktemp -u /tmp/sbrun-escape.XXXXXX)
        make_bundle
        ln -s "/oldroot$host_dir" "$BUNDLE/rootfs/evil"
        edit_config '.mounts += [{"destination": "/evil/sub", "type": "tmpfs", "source": "tmpfs"}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        # Whatever the runtime says, nothing may appear on the host.
        [ ! -e "$host_dir" ]
        assert_fails_cleanly "$ID" 'escapes the rootfs' "$host_dir"
        [[ $output == */evil/sub* ]]
}

@test "an absolute symlink in the rootfs resolves inside the rootfs" {
        make_bundle
        mkdir "$BUNDLE/rootfs/real"
        ln -s /real "$BUNDLE/rootfs/link"
        set_args cat /proc/mounts
        edit_config '.mounts += [{"destination": "/link/sub", "type": "tmpfs", "source": "tmpfs"}] |
                .root.readonly = false'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $(mount_line /real/sub) == "tmpfs /real/sub tmpfs "* ]]
        [ -d "$BUNDLE/rootfs/real/sub" ]
}

@test "a relative mount destination with .. does not leave the rootfs" {
        host_dir=$(mktemp -u /tmp/sbrun-escape.XXXXXX)
        make_bundle
        edit_config '.mounts += [{"destination": $d, "type": "tmpfs", "source": "tmpfs"}] |
                .root.readonly = false' --arg d "/../../../../../..$host_dir"
        set_args true

        run detached sbrun create -b "$BUNDLE" "$ID"
        # Refused by name, before anything is made, inside or out.
        assert_fails_cleanly "$ID" "].destination: \"/../../../../../..$host_dir\" contains \"..\""
        [ ! -e "$host_dir" ]
        [ ! -e "$BUNDLE/rootfs$host_dir" ]
}

# --- maskedPaths and readonlyPaths ------------------------------------------

@test "maskedPaths hide files and directories; missing ones are skipped" {
        make_bundle
        mkdir "$BUNDLE/rootfs/secret"
        echo s3cret >"$BUNDLE/rootfs/secret/key"
        echo s3cret >"$BUNDLE/rootfs/etc/token"
        set_cmd 'ls /secret | wc -l; wc -c </etc/token; wc -c </proc/cpuinfo'
        # /proc/kcore is missing on some kernels: masking must skip it then.
        edit_config '.linux.maskedPaths = ["/secret", "/etc/token", "/proc/cpuinfo", "/proc/kcore",
                                           "/proc/no-such-file"]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = 0 ]
        [ "${lines[1]}" = 0 ]
        [ "${lines[2]}" = 0 ]
        [[ $output != *s3cret* ]]
}

@test "readonlyPaths make a writable root read-only there" {
        make_bundle
        mkdir "$BUNDLE/rootfs/data"
        set_cmd 'touch /data/x 2>&1; echo rc=$?; touch /tmp/y && echo tmp-ok'
        edit_config '.root.readonly = false | .linux.readonlyPaths = ["/data", "/no-such-dir"]'

        run sbrun run -b "$BUNDLE" "$ID"
        [[ $output == *"Read-only file system"* ]]
        [[ $output == *rc=1* ]]
        [[ $output == *tmp-ok* ]]
        [ ! -e "$BUNDLE/rootfs/data/x" ]
}

@test "/proc/sys is read-only even when readonlyPaths does not name it" {
        make_bundle
        set_cmd 'echo changed >/proc/sys/kernel/hostname 2>&1; echo rc=$?; hostname'
        edit_config '.linux.readonlyPaths = [] | .hostname = "box"'

        run sbrun run -b "$BUNDLE" "$ID"
        [[ $output == *rc=1* ]]
        [ "${lines[-1]}" = box ]
}

@test "maskedPaths must be a list of strings" {
        make_bundle
        edit_config '.linux.maskedPaths = "/proc/kcore"'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" maskedPaths
}

# --- devices ----------------------------------------------------------------

@test "the default /dev holds null, zero, full, random, urandom, tty" {
        make_bundle
        set_cmd 'for d in null zero full random urandom tty; do stat -c "%n %F %t,%T" /dev/$d; done; echo x >/dev/null && echo null-ok'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [[ $output == *"/dev/null character special file 1,3"* ]]
        [[ $output == *"/dev/zero character special file 1,5"* ]]
        [[ $output == *"/dev/full character special file 1,7"* ]]
        [[ $output == *"/dev/random character special file 1,8"* ]]
        [[ $output == *"/dev/urandom character special file 1,9"* ]]
        [[ $output == *"/dev/tty character special file 5,0"* ]]
        [[ $output == *null-ok* ]]
}

@test "linux.devices adds a device node" {
        make_bundle
        set_cmd 'stat -c "%F %t,%T %a" /dev/extra-null; echo x >/dev/extra-null && echo write-ok'
        edit_config '.linux.devices = [{"path": "/dev/extra-null", "type": "c", "major": 1, "minor": 3,
                                        "fileMode": 438, "uid": 0, "gid": 0}] |
                .linux.resources.devices = [{"allow": true, "access": "rwm"}]'

        run sbrun run -b "$BUNDLE" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "character special file 1,3 666" ]
        [ "${lines[1]}" = write-ok ]
}

@test "a device of an unknown type is refused" {
        make_bundle
        edit_config '.linux.devices = [{"path": "/dev/weird", "type": "x", "major": 1, "minor": 3}]'

        run detached sbrun create -b "$BUNDLE" "$ID"
        assert_fails_cleanly "$ID" 'linux.devices[0].type: unknown device type "x"'
        [ ! -e "$BUNDLE/rootfs/dev/weird" ]
}

# --- the features document --------------------------------------------------

# mountinfo_fields DEST: per-mount options and optional fields (propagation)
# of DEST in the container's /proc/self/mountinfo (from $output).
mountinfo_fields() {
        awk -v d="$1" '$5 == d { o = $6; f = ""; for (i = 7; $i != "-"; i++) f = f " " $i; print o f }' \
                <<<"$output" | tail -n 1
}

# Engines read `sbrun features` to choose what to send (containerd 2.x
# asks through the shim): every mount option it lists must be carried out,
# on a tmpfs and on a bind mount alike.
@test "every mountOptions entry of sbrun features is carried out" {
        local opts opt kind line
        opts=$(sbrun features | jq -r '.mountOptions[]')
        [ -n "$opts" ]
        mkdir -p "$TEST_DIR/src"
        echo from-host >"$TEST_DIR/src/file"
        make_bundle
        set_cmd 'cat /proc/self/mountinfo; cat /x/file /etc/passwd 2>/dev/null | head -n 1'
        for opt in $opts; do
                for kind in tmpfs bind; do
                        case $kind:$opt in
                        tmpfs:bind | tmpfs:rbind | bind:tmpcopyup) continue ;;
                        tmpfs:idmap | tmpfs:ridmap) continue ;; # binds only
                        esac
                        cp "$BUNDLE/config.json" "$TEST_DIR/config.saved"
                        if [ $kind = tmpfs ]; then
                                edit_config '.mounts += [{"destination": "/x", "type": "tmpfs", "source": "tmpfs", "options": [$o]}]' --arg o "$opt"
                                [ "$opt" = tmpcopyup ] && edit_config '.mounts[-1].destination = "/etc"'
                        else
                                edit_config '.mounts += [{"destination": "/x", "type": "bind", "source": $s, "options": ["rbind", $o]}]' \
                                        --arg s "$TEST_DIR/src" --arg o "$opt"
                        fi
                        # The floor's idmapped mount: in a user namespace of
                        # the container's own, writing only its ids (idmap.bats).
                        [[ $opt == *idmap ]] && edit_config '.linux.namespaces += [{"type": "user"}] |
                                .linux.uidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}] |
                                .linux.gidMappings = .linux.uidMappings |
                                (.mounts |= map(select(.destination != "/sys/fs/cgroup"))) |
                                .mounts[-1].uidMappings = [{"containerID": 200000, "hostID": 200000, "size": 65536}] |
                                .mounts[-1].gidMappings = .mounts[-1].uidMappings'

                        run sbrun run -b "$BUNDLE" "$(new_id)"
                        [ "$status" -eq 0 ] || fail "$kind with \"$opt\": status $status: $output"
                        local dest=/x
                        [ "$opt" = tmpcopyup ] && dest=/etc
                        line=$(mountinfo_fields $dest)
                        [ -n "$line" ] || fail "$kind with \"$opt\": no mount at $dest: $output"
                        case $opt in
                        ro | rro) [[ $line == ro,* ]] ;;
                        rnoexec | rnosuid | rnodev | rnoatime | rnodiratime | rrelatime | nosymfollow | rnosymfollow)
                                [[ ,${line%% *}, == *,${opt#r},* || ,${line%% *}, == *,$opt,* ]] ;;
                        rstrictatime) [[ ,${line%% *}, != *,relatime,* && ,${line%% *}, != *,noatime,* ]] ;;
                        symfollow) [[ ,${line%% *}, != *,nosymfollow,* ]] ;;
                        rw) [[ $line == rw,* ]] ;;
                        noexec | nosuid | nodev | noatime | nodiratime | relatime)
                                [[ ,${line%% *}, == *,$opt,* ]] ;;
                        exec) [[ ,${line%% *}, != *,noexec,* ]] ;;
                        suid) [[ ,${line%% *}, != *,nosuid,* ]] ;;
                        dev) [[ ,${line%% *}, != *,nodev,* ]] ;;
                        shared | rshared) [[ $line == *shared:* ]] ;;
                        # Here neither has a shared master to receive from
                        # (the "propagation:" test above makes one).
                        slave | rslave) [[ $line != *shared:* ]] ;;
                        strictatime) [[ ,${line%% *}, != *,relatime,* && ,${line%% *}, != *,noatime,* ]] ;;
                        private | rprivate) [[ $line != *shared:* && $line != *master:* ]] ;;
                        unbindable | runbindable) [[ $line == *unbindable* ]] ;;
                        tmpcopyup) [[ $output == *"root:x:0:0"* ]] ;;
                        bind | rbind) [[ $output == *from-host* ]] ;;
                        idmap | ridmap) [[ ,${line%% *}, == *,idmapped,* && $output == *from-host* ]] ;;
                        defaults) true ;;
                        *) false ;;
                        esac || fail "$kind with \"$opt\" is not carried out: $line"
                        cp "$TEST_DIR/config.saved" "$BUNDLE/config.json"
                done
        done
}
