#!/bin/sh
# install-deps.sh: everything sbrun needs to build and run its tests on a
# fresh Debian 12 machine, as root. Idempotent and quiet. (mmdebstrap builds
# the VM lane's Debian 13 guest: tests/vm/setup.sh --guest trixie.)
set -eu

if [ "$(id -u)" -ne 0 ]; then
        echo "$0: run as root (apt-get install)" >&2
        exit 1
fi

export DEBIAN_FRONTEND=noninteractive

packages="
        build-essential autoconf automake libtool pkg-config
        musl-tools linux-libc-dev
        libyajl-dev libseccomp-dev libcap-dev libcmocka-dev
        dbus
        bubblewrap busybox-static bats jq clang-format
        clang libclang-rt-14-dev
        util-linux procps strace e2fsprogs quota
        apparmor
        containerd containernetworking-plugins catatonit
        python3-grpcio python3-grpc-tools python3-yaml
        podman conmon crun runc criu
        uidmap slirp4netns fuse-overlayfs
        mmdebstrap
        strace hyperfine gnuplot-nox
        debhelper lintian mmdebstrap fakeroot dpkg-dev
"

missing=""
for p in $packages; do
        if ! dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
                missing="$missing $p"
        fi
done
if [ -z "$missing" ]; then
        exit 0
fi

echo "install-deps: installing$missing"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
