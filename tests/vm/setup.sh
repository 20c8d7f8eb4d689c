#!/bin/bash
# tests/vm/setup.sh — prepare the VM lane: host packages, a Debian kernel and
# a busybox initramfs.  Idempotent: a second run with everything in place only
# checks and returns.  Needs root (apt-get).  See tests/vm/README.md.
#
# --guest trixie: the Debian 13 guest instead (run.sh --guest trixie): its
# tree, built with mmdebstrap from the archive the host's apt uses (suite
# trixie, the packages of tests/vm/trixie.packages) into
# $SBRUN_VM_CACHE/trixie/root, and rebuilt when missing or when that list
# changes; then the kernel of that tree, its vmlinux and an initramfs with
# its modules, all under $SBRUN_VM_CACHE/trixie.
#
# Environment:
#   SBRUN_VM_CACHE       cache directory (default /var/cache/sbrun-vm; it lives
#                        outside the work tree so no checkout carries it)
#   SBRUN_VM_KERNEL_PKG  kernel package to use (default: what linux-image-amd64
#                        depends on, e.g. linux-image-6.1.0-57-amd64)
#   SBRUN_VM_REBUILD=1   rebuild the initramfs even if it looks current
#   SBRUN_VM_MIRROR      the trixie tree's archive (default: the first
#                        deb.debian.org-style URI of the host's apt sources
#                        for Debian's main archive)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${SBRUN_VM_CACHE:-/var/cache/sbrun-vm}
export DEBIAN_FRONTEND=noninteractive

log() { printf 'vm-setup: %s\n' "$*" >&2; }
die() { printf 'vm-setup: error: %s\n' "$*" >&2; exit 1; }

guest=debian12
while [ $# -gt 0 ]; do
	case $1 in
	--guest) [ $# -ge 2 ] || die "--guest needs a name"; guest=$2; shift 2 ;;
	--guest=*) guest=${1#--guest=}; shift ;;
	*) die "unknown argument $1 (tests/vm/setup.sh [--guest trixie])" ;;
	esac
done
case $guest in debian12 | trixie) ;; *) die "--guest must be trixie (or debian12, the default), not $guest" ;; esac

[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get, dpkg -x)"

# ---- 1. host packages ------------------------------------------------------
# qemu-system-x86: the emulator (TCG; KVM hangs guests on our machines).
# busybox-static: the initramfs userspace, and the guest has it via the host /.
# kmod: depmod, to generate modules.dep for the unpacked kernel.
# cpio: packs the initramfs.  xz-utils/zstd/gzip: decompress vmlinuz.
# bubblewrap/bats: what the tests run in the guest (the guest's userspace is
# the host's /, so whatever the guest needs must be installed here).
# apparmor: apparmor_parser, to load lsm.bats's profile in the guest.
# mmdebstrap: builds the trixie guest's tree (--guest trixie).
# criu: checkpoint/restore, run in the Debian 12 guest (checkpoint.bats):
# CRIU 3.17 runs on the guest's kernel 6.1, not always on a newer host's.
pkgs="qemu-system-x86 busybox-static kmod cpio xz-utils zstd gzip bubblewrap bats apparmor mmdebstrap criu"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	log "apt-get update"
	apt-get update -qq || die "apt-get update failed"
	apt_updated=1
}
# Two setups at once (tests/run-all.sh runs the trixie guest's beside the
# others') must not race for dpkg's lock.
mkdir -p "$cache"
exec 9>"$cache/.setup.lock"
flock 9
if [ -n "$missing" ]; then
	apt_update
	log "installing:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "apt-get install$missing failed"
fi

flock -u 9

# ---- 2. the kernel package ---------------------------------------------------
if [ "$guest" = trixie ]; then
	# ---- 2t. the Debian 13 tree, and the kernel in it ----------------------
	tdir=$cache/trixie
	tree=$tdir/root
	list=$here/trixie.packages
	mirror=${SBRUN_VM_MIRROR:-}
	if [ -z "$mirror" ]; then
		# The host's archive (one-line and deb822 sources alike): its
		# first URI that serves Debian's main suites, not -security.
		mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
			/etc/apt/sources.list.d/*.sources 2>/dev/null |
			grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v -- '-security' | head -n1 | tr -d ' ' || true)
		[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	fi
	pkgs_t=$(sed 's/#.*//' "$list" | tr -s ' \t' '\n' | grep . | LC_ALL=C sort -u | paste -sd, -)
	[ -n "$pkgs_t" ] || die "no packages in $list"
	# The stamp: what the tree was built from. A new list (or mirror, or
	# a change of the build's recipe below, which is this script) builds
	# it again.
	want=$(printf '%s\n%s\n%s\n' "$pkgs_t" "$mirror" "$(sed -n '/^# ---- 2t\./,/^# ---- 2t end/p' "$0")" |
		sha256sum | cut -d' ' -f1)
	mkdir -p "$tdir"
	exec 8>"$tdir/.build.lock"
	flock 8
	if [ "$(cat "$tdir/stamp" 2>/dev/null)" != "$want" ] || [ ! -x "$tree/usr/lib/systemd/systemd" ]; then
		log "building the trixie tree from $mirror (mmdebstrap; about a minute with a near mirror)"
		t0=$(date +%s)
		rm -rf "$tree.new" "$tdir/stamp"
		# variant apt: Essential and apt, then the list, no recommends. The
		# hooks make the tree boot the same way every time: a fixed
		# machine-id (no first-boot units) and hostname, no APT lists.
		mmdebstrap --variant=apt --include="$pkgs_t" \
			--customize-hook='echo 5b7d4c2e1f0a4e6b9c8d7e6f5a4b3c2d >"$1/etc/machine-id"' \
			--customize-hook='echo sbrun-vm >"$1/etc/hostname"' \
			trixie "$tree.new" "$mirror" >"$tdir/build.log" 2>&1 ||
			{ tail -n 20 "$tdir/build.log" >&2; die "mmdebstrap failed (whole log: $tdir/build.log)"; }
		rm -rf "$tree"
		mv "$tree.new" "$tree"
		# The guest's initramfs is setup.sh's: the one the kernel's
		# postinst made is never booted.
		rm -f "$tree"/boot/initrd.img-*
		printf '%s\n' "$want" >"$tdir/stamp"
		log "built the trixie tree in $(($(date +%s) - t0)) s: $(du -sh "$tree" | cut -f1)"
	fi
	flock -u 8
	kroot=$tree
	kver=$(cd "$tree/lib/modules" && ls | LC_ALL=C sort -V | tail -n1)
	[ -n "$kver" ] && [ -s "$tree/boot/vmlinuz-$kver" ] || die "no kernel in $tree (linux-image-amd64)"
	out=$tdir
	printf '%s\n' "$kver" >"$tdir/kernel-version"
	# ---- 2t end
else
out=$cache
pkg=${SBRUN_VM_KERNEL_PKG:-}
if [ -z "$pkg" ]; then
	# The pinned kernel from a previous run wins, so the lane does not change
	# kernel under our feet when the archive moves on; delete the cache to
	# take a newer one.
	if [ -s "$cache/kernel-pkg" ]; then
		pkg=$(cat "$cache/kernel-pkg")
	else
		find_pkg() {
			apt-cache depends linux-image-amd64 2>/dev/null |
				sed -n 's/^ *Depends: \(linux-image-[0-9.]*-[0-9]*-amd64\)$/\1/p' | head -n1
		}
		pkg=$(find_pkg)
		if [ -z "$pkg" ]; then apt_update; pkg=$(find_pkg); fi
		[ -n "$pkg" ] || die "cannot find the kernel package (apt-cache depends linux-image-amd64)"
	fi
fi
kver=${pkg#linux-image-}          # e.g. 6.1.0-57-amd64
kver=${kver%-unsigned}
kroot=$cache/kernel/$kver         # dpkg -x target

if [ ! -s "$kroot/boot/vmlinuz-$kver" ] || [ ! -d "$kroot/lib/modules/$kver" ]; then
	dl=$cache/download
	rm -rf "$dl" "$kroot"
	mkdir -p "$dl" "$kroot"
	# apt-get download drops privileges to _apt; let it write there.
	chown _apt "$dl" 2>/dev/null || true
	log "downloading $pkg"
	if ! (cd "$dl" && apt-get download -qq "$pkg"); then
		apt_update
		(cd "$dl" && apt-get download -qq "$pkg") || die "apt-get download $pkg failed"
	fi
	deb=$(ls "$dl"/*.deb)
	log "unpacking $(basename "$deb")"
	dpkg -x "$deb" "$kroot"
	rm -rf "$dl"
	[ -s "$kroot/boot/vmlinuz-$kver" ] || die "$pkg has no /boot/vmlinuz-$kver"
fi
printf '%s\n' "$pkg" >"$cache/kernel-pkg"
printf '%s\n' "$kver" >"$cache/kernel-version"
fi
moddir=$kroot/lib/modules/$kver
# The package ships no modules.dep (its postinst runs depmod); make one.
[ -s "$moddir/modules.dep" ] || depmod -b "$kroot" "$kver"

# ---- 3. uncompressed vmlinux for the microvm machine -----------------------
# qemu's microvm boots an ELF vmlinux through its PVH entry (CONFIG_PVH=y in
# Debian), which is much faster than the pc machine's firmware + bzImage path.
# Same idea as the kernel's scripts/extract-vmlinux: find the compressed
# payload inside the bzImage by its magic and decompress it.
vmlinux=$out/vmlinux-$kver
is_elf() { [ "$(head -c4 "$1" | od -An -c | tr -d ' \n')" = '177ELF' ]; }
if [ ! -s "$vmlinux" ] || ! is_elf "$vmlinux"; then
	vmlinuz=$kroot/boot/vmlinuz-$kver
	tmp=$vmlinux.tmp
	try_decomp() { # magic(grep -P) decompressor...
		local magic=$1; shift
		local off
		for off in $(LC_ALL=C grep -obUaP "$magic" "$vmlinuz" | cut -d: -f1); do
			tail -c +"$((off + 1))" "$vmlinuz" | "$@" >"$tmp" 2>/dev/null || true
			if [ -s "$tmp" ] && is_elf "$tmp"; then mv "$tmp" "$vmlinux"; return 0; fi
		done
		return 1
	}
	try_decomp '\xfd7zXZ\x00' xz -dc ||
		try_decomp '\x28\xb5\x2f\xfd' zstd -dcq ||
		try_decomp '\x1f\x8b\x08' gzip -dc ||
		die "cannot extract vmlinux from $vmlinuz"
	rm -f "$tmp"
	log "extracted $(basename "$vmlinux")"
fi

# ---- 4. the initramfs --------------------------------------------------------
# Modules the init loads, in this order; their dependencies (from modules.dep)
# are inserted before each.  virtio_mmio serves the microvm machine,
# virtio_pci the pc machine; 9p mounts the host's / and the shared tree;
# overlay puts a tmpfs over the read-only host /.
want_mods="virtio_mmio virtio_pci 9pnet_virtio 9p overlay"
initrd=$out/initrd-$kver.cpio.gz
stamp_src="$here/init.sh $here/setup.sh /bin/busybox"
rebuild=${SBRUN_VM_REBUILD:-}
if [ ! -s "$initrd" ]; then
	rebuild=1
else
	for f in $stamp_src; do [ "$f" -nt "$initrd" ] && rebuild=1; done
fi
if [ -n "$rebuild" ]; then
	stage=$(mktemp -d "$out/initramfs.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage"/{bin,dev,proc,sys,mnt,newroot,modules}
	cp /bin/busybox "$stage/bin/busybox"
	# Only the applets init.sh uses need a link; it calls the rest through
	# busybox explicitly.
	for a in sh mount umount mkdir insmod cat echo sleep switch_root reboot stty cp ip; do
		ln -s busybox "$stage/bin/$a"
	done

	# Resolve dependencies depth-first so each module follows what it needs.
	order=
	add_mod() { # path relative to $moddir
		local rel=$1 dep
		case " $order " in *" $rel "*) return 0 ;; esac
		for dep in $(sed -n "s|^$rel: *||p" "$moddir/modules.dep"); do
			add_mod "$dep"
		done
		order="$order $rel"
	}
	for m in $want_mods; do
		# modules.builtin: built into the kernel, nothing to load.
		grep -q "/$m\.ko" "$moddir/modules.builtin" && continue
		rel=$(grep -oE "^[^:]*/$m\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | head -n1 | tr -d :)
		[ -n "$rel" ] || die "module $m not found in $moddir"
		add_mod "$rel"
	done
	: >"$stage/modules/order"
	for rel in $order; do
		name=$(basename "$rel")
		case $name in # busybox insmod wants plain .ko
		*.ko.xz) xz -dc "$moddir/$rel" >"$stage/modules/${name%.xz}"; name=${name%.xz} ;;
		*.ko.zst) zstd -dcq "$moddir/$rel" >"$stage/modules/${name%.zst}"; name=${name%.zst} ;;
		*.ko.gz) gzip -dc "$moddir/$rel" >"$stage/modules/${name%.gz}"; name=${name%.gz} ;;
		*) cp "$moddir/$rel" "$stage/modules/$name" ;;
		esac
		echo "$name" >>"$stage/modules/order"
	done
	install -m 0755 "$here/init.sh" "$stage/init"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$stage"
	trap - EXIT
	log "built $(basename "$initrd") with$(echo " $order" | sed 's| [^ ]*/| |g')"
fi

log "ready: kernel $kver in $out"
