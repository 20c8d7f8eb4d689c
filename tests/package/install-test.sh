#!/bin/bash
# tests/package/install-test.sh DEB: install the package into a clean
# Debian 12 tree with apt, as an operator would, and use it there: `sbrun
# --version`, `sbrun check` (ready), the README's demo (tests/lib/demo.sh)
# with the installed /usr/bin/sbrun, and the files the package must ship.
# The tree is made with mmdebstrap (variant apt, suite bookworm, the host's
# Debian mirror) in a temporary directory; apt there resolves the package's
# dependencies (bubblewrap) from the archive. The tree is used inside a
# mount namespace of its own (bind-mounted onto itself, so that bwrap's
# pivot_root finds a mount point; /proc, /dev, /sys and a /run tmpfs), and
# removed afterwards: nothing is left on the host. As root.
set -euo pipefail

deb=$(cd "$(dirname "${1:?usage: $0 DEB}")" && pwd)/$(basename "$1")
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
mirror=${SBRUN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
tree=$(mktemp -d /tmp/sbrun-install.XXXXXX)
trap 'rm -rf "$tree"' EXIT

start=$SECONDS
# busybox-static and jq are the demo's (tests/lib/demo.sh, make-rootfs.sh); mount
# has the umount that leaves the host's root behind.
mmdebstrap --quiet --variant=apt --include=busybox-static,jq,mount \
	--customize-hook="copy-in $deb /tmp" \
	--customize-hook="chroot \"\$1\" apt-get install -y -q /tmp/$(basename "$deb")" \
	bookworm "$tree" "$mirror" >"$tree.log" 2>&1 ||
	{ tail -30 "$tree.log" >&2; rm -f "$tree.log"; echo "install-test: mmdebstrap or apt-get install failed" >&2; exit 1; }
rm -f "$tree.log"
echo "# install-test: a Debian 12 tree with the package installed by apt ($((SECONDS - start)) s)"

mkdir -p "$tree/root/sbrun-src/tests/lib"
cp "$srcdir/tests/lib/demo.sh" "$srcdir/tests/lib/make-rootfs.sh" "$tree/root/sbrun-src/tests/lib/"

# What runs in the tree. On a host without cgroup v2 controllers the
# operator's policy opts out, as docs/policy.md says an operator does; the
# demo then runs under that policy.
cat >"$tree/root/in-tree.sh" <<'IN'
set -eu
fail() { echo "install-test: $*" >&2; exit 1; }
[ "$(command -v sbrun)" = /usr/bin/sbrun ] || fail "sbrun is not /usr/bin/sbrun: $(command -v sbrun)"
sbrun --version
sbrun --version | grep -q '^bubblewrap: ' || fail "--version names no bubblewrap"
for f in /usr/share/man/man8/sbrun.8.gz /usr/share/doc/sbrun/examples/policy.json \
	/usr/share/doc/sbrun/examples/containers.conf /usr/share/doc/sbrun/examples/containerd-config.toml \
	/usr/share/doc/sbrun/examples/runtimeclass.yaml /usr/share/doc/sbrun/policy.md.gz \
	/usr/share/bash-completion/completions/sbrun; do
	[ -s "$f" ] || fail "$f is not installed"
done
grep -q '"/usr/bin/sbrun"' /usr/share/doc/sbrun/examples/containers.conf ||
	fail "containers.conf does not name /usr/bin/sbrun"
if ! grep -qw memory "$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/cgroup.controllers" 2>/dev/null; then
	mkdir -p /etc/sbrun
	printf '%s\n' '{"cgroups": {"enforce": false}}' >/etc/sbrun/policy.json
	echo "# install-test: no cgroup v2 controllers here: /etc/sbrun/policy.json opts out"
fi
sbrun check || fail "sbrun check: not ready"
cd /root/sbrun-src
out=$(SBRUN=/usr/bin/sbrun ./tests/lib/demo.sh /root/demo 2>&1) || fail "demo: $out"
echo "$out"
case $out in *"hello from sbrun"*) ;; *) fail "demo printed no hello: $out" ;; esac
IN

start=$SECONDS
# pivot_root, not chroot: the kernel refuses a user namespace to a process
# whose root is not its mount namespace's (a chroot), and sbrun's check and
# bwrap need one.
unshare --mount --propagation private /bin/sh -euc '
	t=$1
	mount --bind "$t" "$t"
	mount -t proc proc "$t/proc"
	mount --rbind /dev "$t/dev"
	mount --rbind /sys "$t/sys"
	mount -t tmpfs -o mode=0755 tmpfs "$t/run"
	mkdir "$t/.host"
	cd "$t"
	pivot_root . .host
	exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /bin/sh -euc "
		umount -l /.host
		rmdir /.host
		exec /bin/sh /root/in-tree.sh"
' sh "$tree"
echo "# install-test: --version, check and the demo with the installed sbrun ($((SECONDS - start)) s)"
