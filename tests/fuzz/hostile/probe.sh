# The hostile-config fuzzer's probe (tests/fuzz/hostile/fuzz.py): run
# inside the container as `busybox sh -c THIS`, with @MARK@, @HOSTPATHS@
# and @FORGE@ replaced by the fuzzer. It reports what the container is
# (capabilities, seccomp, no_new_privs, namespaces, mount table, device
# nodes) and tries to reach the host: every directory holding the fuzzer's
# marker file @MARK@.canary, seen through any mount point, one or two
# levels below one, or at its host path (a root that is the host's /).
# It writes only there: it reads the canary, appends to it, creates
# @MARK@.written, forges the seccomp programs of a cache directory that
# holds a marker and appends a space to a state.json beside one. Every
# applet through busybox: under a root that is the host's /usr, /bin is
# /usr/bin.
B=busybox
M=@MARK@
echo "FZ begin"
for k in CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp; do
        echo "FZ status $k $($B sed -n "s/^$k:[[:space:]]*//p" /proc/self/status)"
done
for n in pid mnt ipc uts cgroup net user; do
        echo "FZ ns $n $($B readlink /proc/self/ns/$n)"
done
if $B unshare -U true 2>/dev/null; then echo "FZ unshare-user ok"; fi
$B sed 's/^/FZ mi /' /proc/self/mountinfo
for d in /dev/fz*; do
        if [ -b "$d" ] || [ -c "$d" ]; then echo "FZ dev $d $($B stat -c '%F %t:%T' "$d")"; fi
done
forge=""
for f in /bin/sbfuzz-forge @FORGE@; do
        if [ -x "$f" ]; then
                forge=$f
                break
        fi
done
mps=$($B awk '{ print $5 }' /proc/self/mountinfo | $B sort -u)
cands=""
for p in / $mps; do
        case $p in /proc | /proc/* | /sys | /sys/* | /dev | /dev/*) continue ;; esac
        cands="$cands $p"
        for h in @HOSTPATHS@; do cands="$cands $p$h"; done
        for s in "$p"/*; do
                [ -d "$s" ] || continue
                cands="$cands $s"
                [ "$p" = / ] && continue
                for t in "$s"/*; do [ -d "$t" ] && cands="$cands $t"; done
        done
done
for d in $cands; do
        [ -f "$d/$M.canary" ] || continue
        echo "FZ read $d $($B head -c 200 "$d/$M.canary" | $B tr -d '\n')"
        if echo tamper 2>/dev/null >>"$d/$M.canary"; then echo "FZ tampered $d"; fi
        if echo written 2>/dev/null >"$d/$M.written"; then echo "FZ wrote $d"; fi
        if [ -n "$forge" ] && $B ls "$d"/*.bpf >/dev/null 2>&1; then echo "FZ forge $d $($forge "$d" 2>&1)"; fi
        if [ -f "$d/state.json" ] && echo ' ' 2>/dev/null >>"$d/state.json"; then echo "FZ state-written $d"; fi
done
echo "FZ end"
