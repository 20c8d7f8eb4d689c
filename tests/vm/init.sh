#!/bin/sh
# tests/vm/init.sh — /init of the VM lane's initramfs (busybox sh), and, called
# with "stage2", the last step after switch_root (then with the host's
# busybox).  setup.sh packs it; run.sh boots it.
#
# Stage 1 (initramfs):
#   load the virtio/9p/overlay modules, mount the host's / (9p tag "hostroot",
#   read-only) as the lower layer of an overlay with a tmpfs upper, so the
#   guest runs the host's userspace but cannot change the host; mount
#   proc/sys/dev/run/tmp and cgroup2 (all controllers enabled in the root's
#   subtree_control) inside it; mount run.sh's control dir (tag "sbrunctl") at
#   /run/sbrun-vm/ctl and the shared tree (tag "sbrunshare", read-write) at the
#   same absolute path as on the host; then switch_root.
# Stage 2 (the new root): run ctl/cmd.sh in ctl/config's CWD, write its exit
#   code to ctl/rc (and a marker line on the console) and power off.
#
# Any failure prints a message and powers off without ctl/rc, which run.sh
# reports as a lane failure.  The kernel runs with panic=-1, so even a crash of
# this script (pid 1 exiting) ends qemu instead of hanging it.

ctl=/run/sbrun-vm/ctl

die() {
	echo "sbrun-vm init: error: $*" >&2
	echo "SBRUN-VM-EXIT=init-failed" >&2
	halt_vm
}

halt_vm() {
	sync
	# -no-reboot turns the reboot into qemu exiting; reboot=t on the command
	# line makes it a triple fault, which works on every machine type.
	busybox reboot -f
	sleep 10
	echo b >/proc/sysrq-trigger
}

if [ "$1" = stage2 ]; then
	# ---- stage 2, in the new root ------------------------------------------
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	. "$ctl/config" || die "cannot read $ctl/config"
	cd "$CWD" || die "cannot cd to $CWD"
	if [ "$INTERACTIVE" = 1 ]; then
		setsid -c /bin/sh "$ctl/cmd.sh" </dev/console >/dev/console 2>&1
		rc=$?
	else
		# Not the console itself: through a pipe, so CMD's stdout is not a
		# tty, as in CI (bats, for one, would switch to its terminal
		# formatter).  A FIFO rather than "| cat", so that a background
		# process that CMD leaves behind holding stdout cannot keep us from
		# finishing: cat gets a few seconds to drain, then goes.
		mkfifo /run/sbrun-vm/out || die "mkfifo"
		cat /run/sbrun-vm/out &
		catpid=$!
		/bin/sh "$ctl/cmd.sh" </dev/null >/run/sbrun-vm/out 2>&1
		rc=$?
		i=0
		while kill -0 $catpid 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill $catpid 2>/dev/null
	fi
	# The file is the channel run.sh trusts; the marker is for a human
	# reading the log.
	echo "$rc" >"$ctl/rc.tmp" && mv "$ctl/rc.tmp" "$ctl/rc"
	echo "SBRUN-VM-EXIT=$rc"
	halt_vm
fi

# ---- stage 1, in the initramfs -----------------------------------------------
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The console is a serial line: without this, every \n reaches run.sh as \r\n.
stty -F /dev/console -onlcr 2>/dev/null

while read -r m; do
	insmod "/modules/$m" || die "insmod $m failed"
done </modules/order

# 9p over virtio: msize bounds one request; larger is much faster.
opts9p=trans=virtio,version=9p2000.L,msize=262144

# Probing the virtio devices may finish just after insmod returns: retry.
mkdir -p /mnt/lower
i=0
# cache=loose: the host's / is read-only to the guest and does not change
# under a test run, so caching it is safe and saves many round trips.
until mount -t 9p -o "$opts9p,ro,cache=loose" hostroot /mnt/lower 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || die "cannot mount the host root over 9p (tag hostroot)"
	sleep 0.1
done

mkdir -p /mnt/rw
mount -t tmpfs -o mode=0755 tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay \
	-o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /newroot ||
	die "overlay mount failed"

n=/newroot
mount -t proc proc $n/proc || die "mount proc"
mount -t sysfs sysfs $n/sys || die "mount sysfs"
# securityfs: where AppArmor lists and loads profiles (tests/vm/lsm.bats).
mount -t securityfs securityfs $n/sys/kernel/security ||
	echo "sbrun-vm init: warning: cannot mount securityfs" >&2
mount --move /dev $n/dev || die "move /dev"
mkdir -p $n/dev/pts $n/dev/shm $n/dev/mqueue
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $n/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $n/dev/shm
mount -t mqueue mqueue $n/dev/mqueue
# Fresh /run and /tmp: the host's are in the lower layer, with its sockets
# and pid files, which mean nothing here.  Bundles and state must live on
# tmpfs anyway: 9p cannot open device nodes or FIFOs.
mount -t tmpfs -o mode=0755 tmpfs $n/run
mount -t tmpfs -o mode=1777 tmpfs $n/tmp

# cgroup v2 only (the kernel has cgroup_no_v1=all), every controller enabled
# for the root's children, as a pure-v2 host with a delegating manager has it.
mount -t cgroup2 -o nsdelegate cgroup2 $n/sys/fs/cgroup || die "mount cgroup2"
for c in $(cat $n/sys/fs/cgroup/cgroup.controllers); do
	echo "+$c" >$n/sys/fs/cgroup/cgroup.subtree_control ||
		echo "sbrun-vm init: warning: cannot enable cgroup controller $c" >&2
done

mkdir -p $n$ctl
mount -t 9p -o "$opts9p,cache=none" sbrunctl $n$ctl || die "cannot mount the control dir (tag sbrunctl)"
# shellcheck disable=SC1090 # written by run.sh
. $n$ctl/config || die "cannot read the control config"
# The shared tree at the same absolute path as on the host, read-write.
# cache=mmap: coherent with the host (no caching of data) but allows shared
# writable mmap, which some tools need.
if [ -n "$SHARE" ]; then
	mkdir -p "$n$SHARE"
	mount -t 9p -o "$opts9p,cache=mmap" sbrunshare "$n$SHARE" || die "cannot mount $SHARE (tag sbrunshare)"
fi
echo sbrun-vm >/proc/sys/kernel/hostname

cp /init $n/run/sbrun-vm/init
# The host's busybox: the initramfs is freed by switch_root.
exec switch_root $n /bin/busybox sh /run/sbrun-vm/init stage2
