#!/bin/sh
# tests/smoke.sh: the check a build tree passes with no root, no namespaces,
# no VM and no engine: what `make distcheck` and a package's build step run
# (configure --disable-suite; the whole suite is tests/run-all.sh). The unit
# tests (each cmocka binary) first, then sbrun itself: its version, its
# features document, the config `sbrun spec` writes, and the floor's decision
# on that config (`policy explain`), which parses the config, reads the
# operator policy and judges every field without starting anything.
#   SBRUN_BUILDDIR=build SBRUN_SRCDIR=. tests/smoke.sh UNIT_BINARY...
# Prints one line per check and ends with "N passed, M failed".
set -u
builddir=$(cd "${SBRUN_BUILDDIR:-.}" && pwd)
sbrun=$builddir/sbrun
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; shift; printf '#   %s\n' "$@"; }

for bin in "$@"; do
	if out=$("$bin" 2>&1); then
		ok "unit: ${bin##*/}"
	else
		not_ok "unit: ${bin##*/}" "$out"
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbrun-smoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

out=$("$sbrun" --version 2>&1)
case $out in
"sbrun version "*"spec: "*"libseccomp: "*"bubblewrap: "*) ok "sbrun --version" ;;
*) not_ok "sbrun --version" "$out" ;;
esac

out=$("$sbrun" features 2>&1)
case $out in
*'"ociVersionMax": "1.3.0"'*) ok "sbrun features" ;;
*) not_ok "sbrun features: no ociVersionMax 1.3.0" "$out" ;;
esac

mkdir "$tmp/bundle" "$tmp/bundle/rootfs"
if out=$(cd "$tmp/bundle" && "$sbrun" spec 2>&1) && [ -s "$tmp/bundle/config.json" ]; then
	ok "sbrun spec writes config.json"
else
	not_ok "sbrun spec" "$out"
fi

# As root, an opt-out policy of our own: the build host's cgroups are not
# the point, and /etc/sbrun/policy.json may be the operator's. sbrun takes a
# policy file only from root (owned by root, not writable by others), so
# another user gets the built-in default, whose verdict on this host's
# cgroups explain prints as well.
policy=
if [ "$(id -u)" = 0 ]; then
	printf '{"cgroups": {"enforce": false}}\n' >"$tmp/policy.json"
	policy="--policy $tmp/policy.json"
fi
# shellcheck disable=SC2086 # $policy is empty or two words
out=$("$sbrun" $policy --root "$tmp/state" policy explain --bundle "$tmp/bundle" 2>&1)
case $out in
*"profile: standard"*) ok "sbrun policy explain on spec's config" ;;
*) not_ok "sbrun policy explain on spec's config" "$out" ;;
esac

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
