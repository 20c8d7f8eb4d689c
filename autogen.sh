#!/bin/sh
# ./autogen.sh: configure and Makefile.in from a git checkout. It first
# writes dist-files.am, the list of every file git tracks, which Makefile.am
# ships in `make dist` (EXTRA_DIST): a release carries the tests and
# documentation file by file, never a directory with whatever a build left
# in it. A release tarball has the list already (and no .git).
set -e
cd "$(dirname "$0")"
if [ -e .git ]; then
	{
		echo "# Written by autogen.sh from git ls-files: do not edit."
		printf 'SBRUN_DIST_FILES ='
		git ls-files | LC_ALL=C sort | awk '{ printf " \\\n\t%s", $0 } END { print "" }'
	} >dist-files.am.tmp
	mv dist-files.am.tmp dist-files.am
elif [ ! -e dist-files.am ]; then
	echo "autogen.sh: neither a git checkout nor a release tree (no dist-files.am)" >&2
	exit 1
fi
mkdir -p build-aux
autoreconf -fi
