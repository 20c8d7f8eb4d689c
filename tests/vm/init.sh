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
# With INIT=systemd in ctl/config (run.sh --systemd), stage 1 instead writes a
# target and a service into /run/systemd/system (guest tmpfs) and execs the
# host's systemd as PID 1; the service (sbrun-vm.service) runs stage 2, which
# waits for the boot to finish before CMD and then powers off as above.
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
	if [ "${INIT:-}" = systemd ]; then
		# systemd (PID 1) resets the console's termios when it starts
		# (ONLCR back on): turn it off again, or every \n reaches run.sh
		# as \r\n.
		busybox stty -F /dev/console -onlcr 2>/dev/null
		# sbrun-vm.service is Type=simple, so the boot is over as soon as
		# we run; waiting for it lets CMD see a settled system
		# (is-system-running says running/degraded, not starting).  Its
		# answer is not ours to judge: the tests do.
		systemctl is-system-running --wait >/dev/null 2>&1
	fi
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
# run.sh --host-dir: a host directory, read-only at its own path (the trixie
# guest's lower layer is not the host's /: sbrun and the rootfs that
# tests/run-all.sh copies for the guests come this way).
if [ -n "${HOSTDIR:-}" ]; then
	mkdir -p "$n$HOSTDIR"
	mount -t 9p -o "$opts9p,ro,cache=loose" sbrunhost "$n$HOSTDIR" || die "cannot mount $HOSTDIR (tag sbrunhost)"
fi
echo sbrun-vm >/proc/sys/kernel/hostname
# The booted kernel's modules at /lib/modules/KVER (run.sh names the cache's
# copy for the Debian 12 guest, whose / is the host's), for modprobe: CRIU
# loads its diag modules, tun and veth so.  A tree with its kernel's modules
# (the trixie guest's; run.sh names none there) keeps them.
if [ -n "${KMODULES:-}" ] && [ ! -e "$n/lib/modules/$KVER/modules.dep" ]; then
	# Read-only: busybox's mount takes ro only on a remount of the bind,
	# which it finds by its path in /proc/mounts, where /lib (a relative
	# symlink to usr/lib on Debian 12) is resolved.
	mkdir -p "$n/lib/modules/$KVER" &&
		kmp=$(busybox readlink -f "$n/lib/modules/$KVER") &&
		mount -o bind "$n$KMODULES" "$kmp" &&
		mount -o remount,bind,ro "$kmp" ||
		echo "sbrun-vm init: warning: cannot bind $KMODULES at /lib/modules/$KVER" >&2
fi

cp /init $n/run/sbrun-vm/init
if [ "${INIT:-}" != systemd ]; then
	# The loopback interface up, as systemd brings it up at boot: CRIU's
	# checks connect sockets on it.
	ip link set lo up || echo "sbrun-vm init: warning: cannot bring lo up" >&2
	# The host's busybox: the initramfs is freed by switch_root.
	exec switch_root $n /bin/busybox sh /run/sbrun-vm/init stage2
fi

# ---- systemd as PID 1 ------------------------------------------------------------
# /run/systemd/system is in systemd's unit search path and on the guest's
# tmpfs /run: the units exist for this boot only, and neither the host's /etc
# nor the overlay is touched.  run.sh puts systemd.unit=sbrun-vm.target on
# the kernel command line.
u=$n/run/systemd/system
mkdir -p $u || die "mkdir $u"
cat >$u/sbrun-vm.target <<'EOF' || die "cannot write sbrun-vm.target"
# written by tests/vm/init.sh: the guest's whole boot goal
[Unit]
Description=sbrun VM lane
# basic.target: sysinit (journald, tmpfiles, udev, the API mounts), sockets,
# timers, slices.  D-Bus: systemd-run, busctl and systemd cgroup managers
# talk to PID 1 over the system bus.  Not multi-user.target: gettys, logind
# and the host's services are nothing the lane needs.
Requires=basic.target
Wants=dbus.socket dbus.service sbrun-vm.service
After=basic.target dbus.socket dbus.service
# systemd.unit= at boot is an isolate; also lets a test get back to exactly
# this with systemctl isolate.
AllowIsolate=yes
EOF
cat >$u/sbrun-vm.service <<'EOF' || die "cannot write sbrun-vm.service"
# written by tests/vm/init.sh: stage 2, run.sh's command
[Unit]
Description=sbrun VM lane: the command from run.sh
After=basic.target dbus.socket dbus.service
Wants=dbus.socket dbus.service
# A test that isolates another target must not stop the test run.
IgnoreOnIsolate=yes

[Service]
# Not oneshot: a oneshot's start job would last as long as CMD, and
# systemctl is-system-running would say "starting" all the while.
Type=simple
ExecStart=/bin/busybox sh /run/sbrun-vm/init stage2
# Stage 2's cat copies CMD's output from the FIFO to its own stdout, as in
# the busybox mode: the console (ttyS0).  CMD's stdin stage 2 sets itself
# (/dev/null, or the console with run.sh -i).
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/console
# CMD may run for long; run.sh has the timeout.
TimeoutStartSec=infinity
TimeoutStopSec=infinity
# Nothing may end CMD's processes before stage 2 has written ctl/rc: the
# default OOMPolicy=stop would stop (kill) the whole unit as soon as the
# kernel OOM-kills any process in it, and tests provoke OOM kills.  Stage 2
# powers off without stopping the unit, so KillMode never applies.
OOMPolicy=continue
Restart=no
# As under the busybox init: no task limit of the unit's own (systemd's
# DefaultTasksMax is 15% of pid_max), and SIGPIPE not ignored (systemd
# ignores it in services by default, which changes pipelines in tests).
TasksMax=infinity
IgnoreSIGPIPE=no
# The unit's cgroup subtree is CMD's to manage, as a container engine's is.
Delegate=yes
EOF
# The host root has a /.dockerenv (this machine is itself a container), and
# systemd 252 takes that file as proof of running in a container: it would
# then ignore the kernel command line (systemd.unit=, systemd.mask=) and skip
# udev and the units conditioned on real hardware.  The guest is a VM: remove
# it from the overlay's upper layer only (a whiteout; the host is untouched).
rm -f $n/.dockerenv $n/run/.containerenv
# The host's systemd; it reads its options from the kernel command line.
exec switch_root $n /lib/systemd/systemd
