#!/bin/bash
# tests/vm/run.sh [options] CMD [ARG...] — run CMD as root in a qemu guest that
# has a pure cgroup v2 hierarchy, and exit with CMD's exit code.
#
# The guest runs Debian's kernel (fetched by tests/vm/setup.sh) with the
# host's / as a read-only overlay lower layer (so the host's userspace: bash,
# bwrap, bats, the built sbrun), a tmpfs on top, and the shared tree (the
# repository checkout by default) mounted read-write at the same absolute
# path.  CMD runs in the same working directory as the caller (if that is
# inside the shared tree; else at its root).  Its output streams to stdout.
#
# Two boot modes.  The default: a busybox sh init runs CMD directly, with no
# service manager at all.  --systemd: the host's systemd is PID 1 (with the
# system D-Bus, journald, udev, but only basic.target and the lane's own
# sbrun-vm.target: see tests/vm/README.md), and CMD runs in sbrun-vm.service;
# for what needs a real systemd (systemd-run, the systemd cgroup driver).
# Either mode with --no-landlock: the kernel's LSM list without Landlock
# (tests/vm/nolandlock-suite.sh), a real kernel on which sbrun finds none.
#
# Two guests.  The default (debian12): the host's kernel package's twin
# (Debian 12's, from setup.sh) over the host's /.  --guest trixie: Debian
# 13's kernel over the Debian 13 tree that `setup.sh --guest trixie` built
# (systemd 257 as PID 1: --systemd is implied), so that sbrun meets that
# release's systemd, podman, containerd and bwrap; the host's / is not in
# it, so what CMD needs from the host (sbrun) must be in the shared tree or
# in --host-dir.
#
# Options:
#   --systemd        boot with systemd as PID 1 (also SBRUN_VM_INIT=systemd)
#   --no-landlock    boot with lsm= the kernel's default list less landlock
#   --share DIR      tree to share read-write (default: this repository)
#   --guest NAME     debian12 (default) or trixie (also SBRUN_VM_GUEST)
#   --host-dir DIR   a host directory shared read-only at the same path (one)
#   -e NAME=VALUE    set an environment variable for CMD (repeatable)
#   -i               interactive: CMD's stdin is the console (e.g. run.sh -i bash)
#   -h               this help
# Environment:
#   SBRUN_VM_INIT     busybox (default) or systemd: the boot mode
#   SBRUN_VM_TIMEOUT  seconds before qemu is killed (default 1200)
#   SBRUN_VM_MACHINE  microvm (default; ~5 s boot) or pc (~9 s boot)
#   SBRUN_VM_MEM      guest memory in MiB (default 2048)
#   SBRUN_VM_CPUS     guest CPUs (default 2)
#   SBRUN_VM_CACHE    where setup.sh put the kernel (default /var/cache/sbrun-vm)
#   SBRUN_VM_TSC_KHZ  host TSC frequency in kHz (default: from /proc/cpuinfo)
#   SBRUN_VM_VERBOSE=1  show the kernel's boot messages
#   SBRUN_VM_NAME     qemu's -name (default sbrun-vm): tests/run-all.sh names
#                     its guest after its test dir, to find it if it outlives the run
#
# Exit status: CMD's, or 124 if the timeout struck, or 125 if the lane itself
# failed (missing setup, guest crashed before CMD finished, ...).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${SBRUN_VM_CACHE:-/var/cache/sbrun-vm}
timeout_s=${SBRUN_VM_TIMEOUT:-1200}
machine=${SBRUN_VM_MACHINE:-microvm}
mem=${SBRUN_VM_MEM:-2048}
cpus=${SBRUN_VM_CPUS:-2}
share=${SBRUN_VM_SHARE:-$(cd "$here/../.." && pwd)}
init=${SBRUN_VM_INIT:-busybox}
guest=${SBRUN_VM_GUEST:-debian12}
hostdir=
interactive=0
no_landlock=0
envs=()

say() { printf 'vm: %s\n' "$*" >&2; }
die() { printf 'vm: error: %s\n' "$*" >&2; exit 125; }
usage() { sed -n '2,/^set -uo/{/^set/d;s/^# \{0,1\}//;p}' "$0"; }

while [ $# -gt 0 ]; do
	case $1 in
	--systemd) init=systemd; shift ;;
	--no-landlock) no_landlock=1; shift ;;
	--share) [ $# -ge 2 ] || die "--share needs a directory"; share=$2; shift 2 ;;
	--share=*) share=${1#--share=}; shift ;;
	--guest) [ $# -ge 2 ] || die "--guest needs a name"; guest=$2; shift 2 ;;
	--guest=*) guest=${1#--guest=}; shift ;;
	--host-dir) [ $# -ge 2 ] || die "--host-dir needs a directory"; hostdir=$2; shift 2 ;;
	--host-dir=*) hostdir=${1#--host-dir=}; shift ;;
	-e) [ $# -ge 2 ] || die "-e needs NAME=VALUE"; envs+=("$2"); shift 2 ;;
	-i) interactive=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see -h)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { usage >&2; exit 125; }
case $init in
busybox | systemd) ;;
*) die "SBRUN_VM_INIT must be busybox or systemd, not $init" ;;
esac

case $guest in
debian12)
	kdir=$cache        # vmlinux, initramfs, kernel-version
	lower=/            # the guest's lower layer
	setup=tests/vm/setup.sh
	;;
trixie)
	# The Debian 13 guest is a systemd host: its PID 1 is the point.
	init=systemd
	kdir=$cache/trixie
	lower=$cache/trixie/root
	setup="tests/vm/setup.sh --guest trixie"
	[ -x "$lower/usr/lib/systemd/systemd" ] || die "no trixie tree in $lower: run $setup"
	;;
*) die "--guest must be debian12 or trixie, not $guest" ;;
esac

[ "$(id -u)" -eq 0 ] || die "must run as root"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run $setup"
kver=$(cat "$kdir/kernel-version" 2>/dev/null) || die "no kernel in $kdir: run $setup"
initrd=$kdir/initrd-$kver.cpio.gz
[ -s "$initrd" ] || die "no initramfs in $kdir: run $setup"
[ "$here/init.sh" -nt "$initrd" ] && die "tests/vm/init.sh is newer than the initramfs: run $setup"
# Where the kernel's package left its files (vmlinuz, config).
if [ "$guest" = trixie ]; then kfiles=$lower; else kfiles=$cache/kernel/$kver; fi
share=$(cd "$share" 2>/dev/null && pwd -P) || die "cannot share $share: not a directory"
case $share in
/) die "refusing to share / read-write" ;;
*[[:space:]]*) die "the shared path must not contain white space: $share" ;;
esac
if [ -n "$hostdir" ]; then
	hostdir=$(cd "$hostdir" 2>/dev/null && pwd -P) || die "cannot share $hostdir: not a directory"
	case $hostdir in
	/) die "--host-dir /: that is the debian12 guest's lower layer already" ;;
	*[[:space:]]*) die "the --host-dir path must not contain white space: $hostdir" ;;
	esac
fi

# Working directory in the guest: ours if it is inside the shared tree.
cwd=$(pwd -P)
case $cwd/ in "$share"/*) ;; *) cwd=$share ;; esac

# ---- the control directory, shared with the guest as tag "sbrunctl" ---------
ctl=$(mktemp -d /tmp/sbrun-vm.XXXXXX) || die "mktemp failed"
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$ctl"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

cc -O2 -static -o "$ctl/perf-hold" "$here/../helpers/perf_hold.c" 2>/dev/null ||
	cc -O2 -o "$ctl/perf-hold" "$here/../helpers/perf_hold.c" ||
	echo "run.sh: warning: cannot build tests/helpers/perf_hold.c: CRIU's breakpoints may crash the guest under TCG" >&2

q() { # quote for sh: 'it'\''s'
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
{
	printf 'SHARE=%s\nCWD=%s\nINTERACTIVE=%s\nINIT=%s\n' "$(q "$share")" "$(q "$cwd")" "$interactive" "$init"
	printf 'HOSTDIR=%s\nGUEST=%s\n' "$(q "$hostdir")" "$guest"
	# The booted kernel's modules: the Debian 12 guest's / is the host's,
	# whose /lib/modules (if any) is another kernel's, so init.sh binds
	# this directory (absolute, no symlinks: the guest sees the host's
	# paths) at /lib/modules/KVER, for modprobe (CRIU loads its diag
	# modules so).  The trixie tree has its own kernel's modules.
	if [ "$guest" = debian12 ]; then
		kmods=$(cd "$kfiles/lib/modules/$kver" 2>/dev/null && pwd -P) ||
			die "no modules of $kver in $kfiles/lib/modules: run $setup"
		printf 'KVER=%s\nKMODULES=%s\n' "$(q "$kver")" "$(q "$kmods")"
	fi
} >"$ctl/config"
{
	echo '# written by tests/vm/run.sh'
	echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
	echo 'export HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 SHELL=/bin/bash SBRUN_VM=1'
	printf 'export SBRUN_VM_SHARE=%s\n' "$(q "$share")"
	printf 'export TERM=%s\n' "$(q "${TERM:-dumb}")"
	[ -n "${CI:-}" ] && printf 'export CI=%s\n' "$(q "$CI")"
	for e in ${envs[@]+"${envs[@]}"}; do
		case $e in
		[A-Za-z_]*=*) ;;
		*) die "bad -e $e (want NAME=VALUE)" ;;
		esac
		printf 'export %s=%s\n' "${e%%=*}" "$(q "${e#*=}")"
	done
	# tests/helpers/perf_hold.c: the guest kernel's perf_sched_events
	# key held on, so that CRIU's breakpoints never patch __schedule
	# under TCG (it oopsed so).
	if [ -x "$ctl/perf-hold" ]; then
		echo '/run/sbrun-vm/ctl/perf-hold &'
	fi
	printf 'exec'
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	echo
} >"$ctl/cmd.sh"

# ---- the kernel command line ---------------------------------------------------
# cgroup_no_v1=all: every controller on the v2 hierarchy.  panic=-1 and
# reboot=t with -no-reboot: a crash or the final reboot ends qemu.
append="console=ttyS0 cgroup_no_v1=all panic=-1 reboot=t"
# TCG is slow; the guest runs trusted tests only, so spare it the mitigations.
append="$append mitigations=off random.trust_cpu=on"
# Debian's kernels have the x32 ABI built in but off unless asked for
# (CONFIG_X86_X32_DISABLED); the floor attack tests (floor_attacks.bats) make
# real x32 syscalls, so the guest must have the entry the floor has to close.
append="$append syscall.x32=y"
# Debian's kernels enable AppArmor by default (CONFIG_DEFAULT_SECURITY_APPARMOR);
# said explicitly, since lsm.bats tests a profile for real. Harmless to the
# other tests: processes without a profile are unconfined.
append="$append apparmor=1"
if [ "$no_landlock" = 1 ]; then
	# A kernel with Landlock built in but not enabled, as on hosts whose
	# lsm= or CONFIG_LSM leaves it out: the list the kernel boots with by
	# default (its CONFIG_LSM, the one setup.sh unpacked) less landlock, so
	# that every other LSM (AppArmor above all) is as in the other boots.
	lsms=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$kfiles/boot/config-$kver" 2>/dev/null)
	[ -n "$lsms" ] || die "no CONFIG_LSM in $kfiles/boot/config-$kver: run $setup"
	lsms=$(tr ',' '\n' <<<"$lsms" | grep -vx landlock | paste -sd, -)
	append="$append lsm=$lsms"
fi
if [ "${SBRUN_VM_VERBOSE:-0}" = 1 ]; then append="$append loglevel=7"; else append="$append quiet loglevel=3"; fi
if [ "$init" = systemd ]; then
	# init.sh writes sbrun-vm.target (basic.target, D-Bus and the service
	# that runs CMD) into the guest's /run/systemd/system; boot to it instead
	# of the host's default.target (multi-user: gettys, logind, its daemons).
	append="$append systemd.unit=sbrun-vm.target"
	# The host's /etc/fstab describes the host's disks, which the guest has
	# not got (its / is the 9p overlay that init.sh mounted).
	append="$append fstab=no"
	# No "[  OK  ] Started ..." lines among CMD's output on the console; the
	# same hostname as the busybox mode (systemd would set /etc/hostname's).
	append="$append systemd.show_status=false systemd.hostname=sbrun-vm"
	# Host units that basic.target would still pull in (through
	# sysinit.target, sockets.target, timers.target) or that a test's
	# systemctl might, and that must not run in the guest or only cost boot
	# time under TCG:
	#   apparmor.service: loads every host profile (slow; the tests load
	#     their own with apparmor_parser, the LSM itself stays on);
	#   systemd-timesyncd: no network, no clock to set;
	#   systemd-pstore: the guest has no pstore;
	#   podman.socket, containerd.service: the host's engines; tests start
	#     the engines they test themselves;
	#   the periodic jobs (apt, dpkg-db-backup, man-db, fstrim, e2scrub);
	#   getty.target, remote-fs.target, postgresql.service: multi-user
	#     things, masked in case a test pulls multi-user.target in.
	for m in apparmor.service systemd-timesyncd.service systemd-pstore.service \
		podman.socket containerd.service postgresql.service \
		apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer man-db.timer \
		fstrim.timer e2scrub_all.timer e2scrub_reap.service \
		getty.target remote-fs.target; do
		append="$append systemd.mask=$m"
	done
fi

fs_opts=security_model=none,multidevs=remap
case $machine in
microvm)
	# microvm boots the ELF vmlinux through PVH: no firmware, no PCI.  Its
	# boots hang about half the time unless the kernel is told the TSC rate
	# instead of calibrating it against emulated timers (measured on the
	# project's machines), so pass the host's: TCG's guest TSC is the host's.
	tsc_khz=${SBRUN_VM_TSC_KHZ:-$(awk -F: '/^cpu MHz/ { printf "%d\n", $2 * 1000 + 0.5; exit }' /proc/cpuinfo)}
	[ -n "$tsc_khz" ] || die "cannot read the TSC rate from /proc/cpuinfo: set SBRUN_VM_TSC_KHZ, or SBRUN_VM_MACHINE=pc"
	kernel=$kdir/vmlinux-$kver
	# shellcheck disable=SC2054 # commas belong to the -M value
	mach=(-M microvm,x-option-roms=off,isa-serial=on,rtc=on)
	append="$append tsc_early_khz=$tsc_khz tsc=reliable"
	vdev=virtio-9p-device
	;;
pc)
	kernel=$kfiles/boot/vmlinuz-$kver
	mach=(-M pc)
	vdev=virtio-9p-pci
	;;
*) die "SBRUN_VM_MACHINE must be microvm or pc, not $machine" ;;
esac
[ -s "$kernel" ] || die "no $kernel: run $setup"

qemu=(qemu-system-x86_64 -name "${SBRUN_VM_NAME:-sbrun-vm}"
	"${mach[@]}" -accel tcg -cpu max -smp "$cpus" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-serial mon:stdio
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-fsdev "local,id=hostroot,path=$lower,readonly=on,$fs_opts"
	-device "$vdev,fsdev=hostroot,mount_tag=hostroot"
	-fsdev "local,id=sbrunctl,path=$ctl,$fs_opts"
	-device "$vdev,fsdev=sbrunctl,mount_tag=sbrunctl"
	-fsdev "local,id=sbrunshare,path=$share,$fs_opts"
	-device "$vdev,fsdev=sbrunshare,mount_tag=sbrunshare"
)
if [ -n "$hostdir" ]; then
	qemu+=(-fsdev "local,id=sbrunhost,path=$hostdir,readonly=on,$fs_opts"
		-device "$vdev,fsdev=sbrunhost,mount_tag=sbrunhost")
fi

# ---- boot, with a hard timeout -----------------------------------------------------
start=$(date +%s)
if [ "$interactive" = 1 ] && [ -t 0 ]; then
	# qemu needs the terminal: foreground, and in our process group.
	timeout --foreground -k 10 "$timeout_s" "${qemu[@]}"
	qrc=$?
else
	# In the background (stdin /dev/null) so that a signal to us can end it
	# through the trap's cleanup.
	timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null &
	qpid=$!
	wait "$qpid"
	qrc=$?
	qpid=
fi
elapsed=$(($(date +%s) - start))

if [ -s "$ctl/rc" ]; then
	rc=$(cat "$ctl/rc")
	case $rc in '' | *[!0-9]*) die "bad exit code from the guest: $rc" ;; esac
	[ "${SBRUN_VM_VERBOSE:-0}" = 1 ] && say "guest exited $rc after ${elapsed}s"
	exit "$rc"
fi
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	say "error: TIMEOUT: the guest did not finish within ${timeout_s}s (SBRUN_VM_TIMEOUT); qemu killed"
	exit 124
fi
die "the guest stopped after ${elapsed}s without an exit code for the command (qemu exit $qrc); see the console output above"
