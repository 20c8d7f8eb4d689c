#!/bin/bash
# with-user.sh CMD...: CMD (a bats run of tests written for root, such as
# tests/adversarial) with sbrun run by a fresh unprivileged user instead:
# the user is made first and removed after, whatever CMD did
# (tests/rootless/rootless.bash). tests/run-all.sh's adversarial-rootless
# lane runs the floor's attack suite so.
set -u
SBRUN_SRCDIR=${SBRUN_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SBRUN_BUILDDIR=${SBRUN_BUILDDIR:-$SBRUN_SRCDIR}
SBRUN=${SBRUN:-$SBRUN_BUILDDIR/sbrun}
SBRUN_TEST_TMP=${SBRUN_TEST_TMP:?with-user.sh: SBRUN_TEST_TMP must be set}
export SBRUN_SRCDIR SBRUN_BUILDDIR SBRUN SBRUN_TEST_TMP
# shellcheck source=tests/rootless/rootless.bash
. "$SBRUN_SRCDIR/tests/rootless/rootless.bash"

rl_user_create || {
        rl_user_remove
        echo "not ok - with-user.sh: cannot make the test user"
        exit 1
}
trap 'rl_user_remove' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$@"
