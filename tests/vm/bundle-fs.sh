#!/bin/bash
# tests/vm/bundle-fs.sh LOCATION: print a directory, in the VM lane's guest,
# where a bundle can live on the file system LOCATION names:
#
#   tmpfs  the guest's /tmp (where the suites keep bundles by default)
#   ext4   an ext4 file system on a loop device, as a user's disk-backed
#          bundle is: page cache charged to whoever reads it, real lookups
#   9p     the host's shared tree over virtio-9p (cache=mmap), the slowest
#          case: $SBRUN_VM_SHARE/tests/.work/bundles-9p
#
# The ext4 image is made and mounted once per boot (a 256 MiB sparse file
# in the guest's /tmp, mounted at /run/sbrun-ext4), and goes with the guest;
# the 9p directory is on the host: whoever puts a bundle there removes it.
# The guest's kernel modules (loop, ext4) come from the kernel the lane
# boots (tests/vm/setup.sh unpacks it under SBRUN_VM_CACHE).
set -euo pipefail

die() {
        echo "bundle-fs.sh: $*" >&2
        exit 1
}

# on TYPE: $dir is on a mount of TYPE. The mount table, not statfs: a 9p
# mount reports the f_type of the host's file system below it.
on() {
        local t
        t=$(findmnt -n -o FSTYPE --target "$dir")
        [ "$t" = "$1" ] || die "$dir is not on $1 but on ${t:-an unknown file system}"
}

[ "${SBRUN_VM:-0}" = 1 ] || die "runs in the VM lane's guest (tests/vm/run.sh)"
case ${1:-} in
tmpfs)
        dir=/tmp/sbrun-bundles
        mkdir -p "$dir"
        on tmpfs
        ;;
ext4)
        dir=/run/sbrun-ext4
        if ! mountpoint -q "$dir"; then
                # The Debian 12 guests' kernel is in the cache (the host's
                # /lib/modules is another kernel's); the trixie guest's
                # tree has its own kernel's modules.
                kdir=${SBRUN_VM_CACHE:-/var/cache/sbrun-vm}/kernel/$(uname -r)
                [ -d "/lib/modules/$(uname -r)" ] && kdir=/
                for m in loop ext4; do
                        [ -d "/sys/module/$m" ] || modprobe -d "$kdir" "$m" ||
                                die "cannot load the $m module from $kdir"
                done
                img=/tmp/sbrun-ext4.img
                truncate -s 256M "$img"
                mkfs.ext4 -q -F "$img" || die "mkfs.ext4 $img failed"
                mkdir -p "$dir"
                mount -o loop "$img" "$dir" || die "cannot mount $img at $dir"
        fi
        on ext4
        ;;
9p)
        [ -n "${SBRUN_VM_SHARE:-}" ] || die "no shared tree (SBRUN_VM_SHARE)"
        dir=$SBRUN_VM_SHARE/tests/.work/bundles-9p
        mkdir -p "$dir"
        on 9p
        ;;
*)
        die "usage: bundle-fs.sh tmpfs|ext4|9p"
        ;;
esac
echo "$dir"
