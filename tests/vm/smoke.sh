#!/bin/bash
# tests/vm/smoke.sh — checks that the VM lane gives what the cgroup v2 tests
# need.  Run it in the guest:  tests/vm/run.sh tests/vm/smoke.sh
# Exits 0 only if every check passes; prints one line per check.
set -u

cg=/sys/fs/cgroup
fails=0
ok() { printf 'ok   %s\n' "$*"; }
bad() { printf 'FAIL %s\n' "$*"; fails=$((fails + 1)); }
check() { # description command...
	local d=$1; shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
# Time a command in milliseconds (bash's EPOCHREALTIME, no external date).
ms_since() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }

[ "${SBRUN_VM:-}" = 1 ] || echo "note: not in the VM lane (SBRUN_VM unset); expect failures on a v1/hybrid host"
echo "kernel $(uname -r), $(nproc) cpus, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"

# ---- cgroup2 at /sys/fs/cgroup with every controller --------------------------
check "/sys/fs/cgroup is cgroup2" test "$(stat -f -c %T $cg)" = cgroup2fs
ctrls=$(cat $cg/cgroup.controllers)
subtree=$(cat $cg/cgroup.subtree_control)
echo "     cgroup.controllers:     $ctrls"
echo "     cgroup.subtree_control: $subtree"
for c in cpuset cpu io memory hugetlb pids rdma misc; do
	check "controller $c available" grep -qw "$c" <<<"$ctrls"
	check "controller $c enabled in the root's subtree_control" grep -qw "$c" <<<"$subtree"
done
# What the lane's init did, done again: writing the root's subtree_control.
check "root cgroup.subtree_control is writable (+memory)" sh -c "echo +memory > $cg/cgroup.subtree_control"

# ---- a child cgroup: limits, moving a process in and out, removal -------------
child=$cg/sbrun-smoke.$$
if mkdir "$child"; then
	ok "mkdir a child cgroup"
	check "memory.max written" sh -c "echo 64M > $child/memory.max"
	check "memory.max reads back 67108864" test "$(cat "$child/memory.max")" = 67108864
	check "pids.max written" sh -c "echo 100 > $child/pids.max"
	check "cpu.max written" sh -c "echo '50000 100000' > $child/cpu.max"
	sleep 60 &
	pid=$!
	check "move a process into it" sh -c "echo $pid > $child/cgroup.procs"
	check "/proc/PID/cgroup shows it" test "$(cat /proc/$pid/cgroup)" = "0::/sbrun-smoke.$$"
	check "cgroup.procs lists it" grep -qx "$pid" "$child/cgroup.procs"
	check "move it back to the root" sh -c "echo $pid > $cg/cgroup.procs"
	check "cgroup.kill exists" test -w "$child/cgroup.kill"
	check "cgroup.freeze exists" test -w "$child/cgroup.freeze"
	kill "$pid"
	wait "$pid" 2>/dev/null
	check "rmdir the child cgroup" rmdir "$child"
else
	bad "mkdir a child cgroup"
fi

# ---- OOM: 64 MiB in a 32 MiB cgroup is killed, and memory.events counts it ----
oom=$cg/sbrun-oom.$$
if mkdir "$oom"; then
	echo 32M >"$oom/memory.max"
	# Swap would let it survive; the guest has none, but say so explicitly.
	[ -e "$oom/memory.swap.max" ] && echo 0 >"$oom/memory.swap.max"
	before=$(awk '$1 == "oom_kill" {print $2}' "$oom/memory.events")
	# tail -n 1 keeps a line with no newline in memory: 64 MiB of anonymous
	# memory charged to the cgroup, without needing python or a C helper.
	sh -c "echo \$\$ > $oom/cgroup.procs; exec sh -c 'head -c 67108864 /dev/zero | tail -n 1 >/dev/null'" 2>/dev/null
	st=$?
	after=$(awk '$1 == "oom_kill" {print $2}' "$oom/memory.events")
	echo "     memory.events after: $(tr '\n' ' ' <"$oom/memory.events")(pipeline status $st)"
	check "64 MiB allocation in a memory.max=32M cgroup is OOM-killed (oom_kill $before -> $after)" \
		test "$after" -gt "$before"
	check "the allocating process died of SIGKILL (status 137)" test "$st" -eq 137
	# Sanity: the same allocation fits in 128M.
	echo 128M >"$oom/memory.max"
	n=$(sh -c "echo \$\$ > $oom/cgroup.procs; head -c 67108864 /dev/zero | tail -n 1 | wc -c" 2>/dev/null)
	check "the same allocation succeeds with memory.max=128M" test "$n" = 67108864
	rmdir "$oom" || bad "rmdir the OOM cgroup"
else
	bad "mkdir the OOM cgroup"
fi

# ---- bwrap ----------------------------------------------------------------------
check "bwrap --unshare-pid runs true" \
	bwrap --bind / / --proc /proc --dev /dev --unshare-pid true
check "bwrap --unshare-all (user ns) runs true" \
	bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp true
t0=${EPOCHREALTIME/./}
for _ in $(seq 20); do bwrap --bind / / --proc /proc --dev /dev --unshare-pid /bin/true || break; done
echo "     20 x bwrap /bin/true: $(ms_since "$t0") ms"

# ---- the shared tree and tmpfs ----------------------------------------------------
if [ -n "${SBRUN_VM_SHARE:-}" ]; then
	f=$SBRUN_VM_SHARE/.sbrun-vm-smoke.$$
	check "shared tree $SBRUN_VM_SHARE is writable" sh -c "echo x > '$f' && test \"\$(cat '$f')\" = x"
	rm -f "$f"
fi
check "/tmp is tmpfs (FIFOs and device nodes work there, unlike on 9p)" \
	sh -c 'test "$(stat -f -c %T /tmp)" = tmpfs && mkfifo /tmp/.smoke-fifo && rm /tmp/.smoke-fifo'

# ---- what CRIU needs of the guest (tests/vm/checkpoint.bats) ---------------------
check "the booted kernel's modules are at /lib/modules/$(uname -r) (modprobe -n unix_diag)" \
	modprobe -n unix_diag
[ -n "$(findmnt -n -o TARGET "/lib/modules/$(uname -r)")" ] &&
	check "the bind of the kernel's modules is read-only" \
		test "$(findmnt -n -o OPTIONS "/lib/modules/$(uname -r)" | cut -d, -f1)" = ro
check "the loopback interface is up" sh -c 'ip -o link show lo | grep -q "[<,]UP[,>]"'

if [ "$fails" -eq 0 ]; then echo "smoke: all passed"; exit 0; fi
echo "smoke: $fails check(s) failed"
exit 1
