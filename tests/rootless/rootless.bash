# The unprivileged user the rootless tests run sbrun as: made by the tests
# themselves (useradd, with the subordinate ids Debian's useradd grants
# from /etc/login.defs), with a runtime directory as logind would make it,
# and removed whole afterwards. Each user made is recorded in
# $SBRUN_TEST_TMP/rootless.users ("NAME UID"), so that the leftovers check
# of tests/run-all.sh can tell that nothing of it stayed.

# rl_user_create: sets and exports RL_USER, RL_UID, RL_GID, RL_RUNTIME_DIR
# and the variables that make tests/helpers.bash run sbrun as that user
# (SBRUN through tests/rootless/sbrun-as-user).
rl_user_create() {
        command -v newuidmap >/dev/null || {
                echo "newuidmap not found: tests/install-deps.sh installs uidmap" >&2
                return 1
        }
        RL_USER=sbrl$(printf '%04x%04x' $$ $RANDOM)
        useradd --create-home --shell /bin/sh --user-group "$RL_USER" || return 1
        RL_UID=$(id -u "$RL_USER")
        RL_GID=$(id -g "$RL_USER")
        echo "$RL_USER $RL_UID" >>"$SBRUN_TEST_TMP/rootless.users"
        grep -q "^$RL_USER:" /etc/subuid && grep -q "^$RL_USER:" /etc/subgid || {
                echo "useradd gave $RL_USER no subordinate ids in /etc/subuid and /etc/subgid" >&2
                return 1
        }
        RL_RUNTIME_DIR=/run/user/$RL_UID
        install -d -m 0700 -o "$RL_UID" -g "$RL_GID" "$RL_RUNTIME_DIR"
        # The runtime under test, copied where the user can run it (root's,
        # 0755): the build's copy may sit in a directory only root may enter,
        # as run-all.sh's copy for the VM lane does (mktemp -d, 0700).
        RL_BIN=$(mktemp -d /tmp/sbrl-bin.XXXXXX) && chmod 0755 "$RL_BIN" &&
                install -m 0755 "${SBRUN_REAL:-$SBRUN}" "$RL_BIN/sbrun" || return 1
        export RL_USER RL_UID RL_GID RL_RUNTIME_DIR RL_BIN
        export SBRUN_AS_USER=$RL_USER SBRUN_REAL=$RL_BIN/sbrun
        export SBRUN=$SBRUN_SRCDIR/tests/rootless/sbrun-as-user
}

# rl_user_remove: the user, its processes (there should be none: a test
# that leaves one fails on it first), home, runtime directory and
# subordinate ids.
rl_user_remove() {
        [ -n "${RL_USER:-}" ] || return 0
        pkill -KILL -u "$RL_UID" 2>/dev/null || true
        rm -rf --one-file-system "$RL_RUNTIME_DIR"
        userdel --remove "$RL_USER" 2>/dev/null || true
        sed -i "/^$RL_USER:/d" /etc/subuid /etc/subgid
        [ -z "${RL_BIN:-}" ] || rm -rf "$RL_BIN"
}

# subid_range FILE: the first subordinate id and the count FILE grants.
subid_range() {
        awk -F: -v u="$RL_USER" '$1 == u { print $2, $3; exit }' "$1"
}

# as_user CMD...: CMD as the test user, in its clean environment.
as_user() {
        setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups --reset-env \
                env XDG_RUNTIME_DIR="$RL_RUNTIME_DIR" "$@"
}

# rl_podman_configure RUNTIME TAR [ENGINE-LINE...]: the test user's podman
# set up from the README's containers.conf (its runtime path replaced by
# RUNTIME, each ENGINE-LINE added to [engine]), with vfs storage, no
# registries and the busybox image, built offline, loaded from TAR. No
# journal here and no /dev/net/tun for slirp4netns: file events and
# --network none.
rl_podman_configure() {
        local runtime=$1 tar=$2 home conf
        shift 2
        home=$(getent passwd "$RL_USER" | cut -d: -f6)
        as_user mkdir -p "$home/.config/containers"
        conf=$(readme_block 'podman rootless: containers.conf')
        [ -n "$conf" ] || fail "README.md has no rootless containers.conf snippet after its marker"
        {
                printf '[containers]\nnetns = "none"\n\n'
                sed "s|/usr/local/bin/sbrun|$runtime|g" <<<"$conf" |
                        awk -v extra="$(printf '%s\n' "$@" 'events_logger = "file"')" \
                                '{ print } $0 == "[engine]" { print extra }'
        } | as_user sh -c "cat >'$home/.config/containers/containers.conf'"
        printf '[storage]\ndriver = "vfs"\n' |
                as_user sh -c "cat >'$home/.config/containers/storage.conf'"
        echo 'unqualified-search-registries = []' |
                as_user sh -c "cat >'$home/.config/containers/registries.conf'"
        "$SBRUN_SRCDIR/tests/engines/lib/make-image.sh" "$tar" docker.io/library/busybox:latest \
                >/dev/null || fail "make-image.sh failed"
        chmod 0644 "$tar"
        run as_user sh -c "cd && podman load -q -i '$tar'"
        [ "$status" -eq 0 ] || fail "podman load: $output"
}
