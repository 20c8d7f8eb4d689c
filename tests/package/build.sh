#!/bin/bash
# tests/package/build.sh OUTDIR: build the Debian package as a distribution
# would, from the release tarball (make dist of this build tree), never from
# the configured checkout: unpack it in a temporary directory, run
# `dpkg-buildpackage -us -uc -b` (debian/), then lintian on the result.
# Leaves sbrun_<version>_amd64.deb, the .changes and lintian.txt in OUTDIR;
# exits non-zero when the build fails or lintian reports an error.
#   SBRUN_BUILDDIR=. SBRUN_SRCDIR=. tests/package/build.sh /tmp/pkg
set -euo pipefail

out=${1:?usage: $0 OUTDIR}
builddir=$(cd "${SBRUN_BUILDDIR:-.}" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/sbrun-package.XXXXXX)
trap 'rm -rf "$work"' EXIT

start=$SECONDS
make -C "$builddir" --no-print-directory dist >"$work/dist.log" 2>&1 ||
	{ tail -20 "$work/dist.log" >&2; echo "package: make dist failed" >&2; exit 1; }
tarball=$(ls "$builddir"/sbrun-*.tar.gz | tail -n 1)
version=$(basename "$tarball" .tar.gz)
version=${version#sbrun-}
cp "$tarball" "$work/sbrun_$version.orig.tar.gz"
rm -f "$tarball"
tar -C "$work" -xzf "$work/sbrun_$version.orig.tar.gz"
echo "# package: sources of sbrun $version unpacked ($((SECONDS - start)) s)"

start=$SECONDS
(cd "$work/sbrun-$version" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -40 "$work/build.log" >&2; echo "package: dpkg-buildpackage failed" >&2; exit 1; }
echo "# package: dpkg-buildpackage -us -uc -b ($((SECONDS - start)) s)"
cp "$work"/sbrun*_*.deb "$work"/sbrun_*.changes "$work"/sbrun_*.buildinfo "$work/build.log" "$out/"

start=$SECONDS
changes=$(ls "$out"/sbrun_*_amd64.changes | tail -n 1)
rc=0
lintian --info "$changes" >"$out/lintian.txt" 2>&1 || rc=$?
# lintian exits 1 for errors it reports (looked at below); anything else
# non-zero, or a run that checked nothing, is lintian failing to look.
if [ "$rc" -gt 1 ] || grep -q 'No packages selected\|^Skipping ' "$out/lintian.txt"; then
	cat "$out/lintian.txt" >&2
	echo "package: lintian did not check the package (exit status $rc)" >&2
	exit 1
fi
echo "# package: lintian ($((SECONDS - start)) s): $(grep -c '^E: ' "$out/lintian.txt") errors, $(grep -c '^W: ' "$out/lintian.txt") warnings"
if grep '^E: ' "$out/lintian.txt" >&2; then
	echo "package: lintian reports errors ($out/lintian.txt)" >&2
	exit 1
fi
ls "$out"/sbrun_*_amd64.deb
