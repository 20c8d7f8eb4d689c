#!/bin/bash
# tests/fuzz/hostile/run.sh: the hostile-config fuzzer (README.md here).
#
#   tests/fuzz/hostile/run.sh [--seed N] [--count N | --seconds N]
#           [--profile standard|strict|both] [--only CAT,...] [--exclude CAT,...]
#           [--replay FILE] [--print-config] [-v]
#   tests/fuzz/hostile/run.sh --ci COUNT
#
# Mutates the engines' config.json and `sbrun spec`'s, runs each with the
# built sbrun ($SBRUN, default $SBRUN_BUILDDIR/sbrun) and judges the result
# with oracles inside the container and on the host; exits 1 with a
# finding, printed as the config that caused it (saved for --replay).
# --ci COUNT is the fuzz lane's run (tests/run-all.sh): COUNT configs of
# seed 1 and COUNT of seed 2, the same configs on every machine however
# fast (a lane that passes once passes again on the same tree), leaving out the
# categories named in known-bugs, as one TAP line "ok - fuzz hostile ...".
# Runs as root; writes only in its work directory (under $TMPDIR), its
# canaries (/var/tmp/sbrun-fuzz-*, /etc/sbrun-fuzz-*.canary) and
# $TMPDIR/sbrun-hostile-findings, and removes all but the findings.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$here/../../.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
SBRUN_ROOTFS=${SBRUN_ROOTFS:-$SBRUN_BUILDDIR/tests/.work/rootfs}
tmp=${TMPDIR:-/tmp}

[ "$(id -u)" -eq 0 ] || { echo "$0: must run as root" >&2; exit 2; }
[ -x "$SBRUN" ] || { echo "$0: no sbrun at $SBRUN" >&2; exit 2; }
"$SBRUN_SRCDIR/tests/lib/make-rootfs.sh" "$SBRUN_ROOTFS" || exit 2
forge=$(mktemp "$tmp/sbrun-forge.XXXXXX")
trap 'rm -f "$forge"' EXIT
cc -O2 -Wall -static -o "$forge" "$here/forge_bpf.c" || { echo "$0: cannot build forge_bpf" >&2; exit 2; }

fuzz() {
        python3 "$here/fuzz.py" --sbrun "$SBRUN" --rootfs "$SBRUN_ROOTFS" --forge "$forge" \
                --srcdir "$SBRUN_SRCDIR" "$@"
}

if [ "${1:-}" != --ci ]; then
        fuzz "$@"
        exit $?
fi

# The lane's run: seeds 1 and 2, COUNT configs each (a count, not a time:
# CI must judge the same configs on a slow machine as on a fast one; new
# seeds and long campaigns are run by hand), each config printed with its
# mutations when it breaks a guarantee.
count=${2:-250}
known=$(sed -e 's/#.*//' "$here/known-bugs" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
log=$(mktemp "$tmp/sbrun-hostile-ci.XXXXXX")
rc=0
for seed in 1 2; do
        fuzz --seed "$seed" --count "$count" --exclude "$known" --print-config \
                --out "$tmp/sbrun-hostile-findings" >>"$log" 2>&1 || rc=1
done
sed 's/^/  /' "$log"
summary=$(grep '^# hostile:' "$log" | sed 's/^# hostile: //' | paste -sd ';' -)
note=${known:+; known bugs left out: $known}
if [ $rc -eq 0 ]; then
        echo "ok - fuzz hostile: $summary$note"
else
        echo "not ok - fuzz hostile: $summary$note"
fi
rm -f "$log"
exit $rc
