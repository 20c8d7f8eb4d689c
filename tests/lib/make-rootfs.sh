#!/bin/bash
# make-rootfs.sh DIR: build a minimal busybox rootfs in DIR from Debian's
# busybox-static (/bin/busybox): DIR/bin/busybox, one symlink per applet,
# /etc/passwd and /etc/group with root and "user" (1000), and the usual
# empty directories.
#
# The result is cached: a second call with an existing, complete DIR does
# nothing, so the test suite builds it once and copies it per bundle.
set -euo pipefail

if [ $# -ne 1 ]; then
        echo "usage: $0 DIR" >&2
        exit 2
fi
dir=$1
busybox=${BUSYBOX:-/bin/busybox}

if [ -f "$dir/.sbrun-rootfs-complete" ]; then
        exit 0
fi

if [ ! -x "$busybox" ]; then
        echo "$0: $busybox not found: apt-get install busybox-static" >&2
        exit 1
fi
# The rootfs has no libraries: a dynamically linked busybox would not run.
if ! "$busybox" --list >/dev/null 2>&1 || LC_ALL=C ldd "$busybox" 2>/dev/null | grep -q '=>'; then
        echo "$0: $busybox is not a static busybox: apt-get install busybox-static" >&2
        exit 1
fi

# Build next to the target and rename, so a crash never leaves a DIR that
# looks complete.
mkdir -p "$(dirname "$dir")"
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf --one-file-system "$tmp"' EXIT

chmod 0755 "$tmp"
mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin,proc,dev,sys,tmp,etc,root,run,var,var/tmp,home/user}
chmod 1777 "$tmp/tmp" "$tmp/var/tmp"
chmod 700 "$tmp/root"
install -m 0755 "$busybox" "$tmp/bin/busybox"

for applet in $("$tmp/bin/busybox" --list-full); do
        case $applet in
        bin/busybox) continue ;;
        esac
        # --list-full gives bin/ls, usr/bin/env ...: link each to /bin/busybox.
        [ -e "$tmp/$applet" ] || ln -s /bin/busybox "$tmp/$applet"
done

cat >"$tmp/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/home/user:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
cat >"$tmp/etc/group" <<'GROUP'
root:x:0:
user:x:1000:
nogroup:x:65534:
GROUP
echo "sbrun-rootfs" >"$tmp/etc/hostname"
chown 1000:1000 "$tmp/home/user"
touch "$tmp/.sbrun-rootfs-complete"

rm -rf --one-file-system "$dir"
mv "$tmp" "$dir"
trap - EXIT
