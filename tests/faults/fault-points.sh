#!/bin/bash
# fault-points.sh [SRCDIR]: every fault point of sbrun's source, one name a
# line, sorted. The source is the list (common/fault.h): a point added to
# the code is walked by tests/faults/ without anyone having to name it.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
# common/fault.h defines the macro (and names it in its comment).
grep -rhoE --exclude=fault.h 'SB_FAULT_POINT\("[a-z0-9.-]+"\)' \
        "$src/common" "$src/runtime" "$src/hooks" "$src/spec" "$src/oci" |
        sed -E 's/^SB_FAULT_POINT\("(.*)"\)$/\1/' | sort -u
# A point whose name is not a literal on its line would be missed above.
odd=$(grep -rnE 'SB_FAULT_POINT\(' "$src/common" "$src/runtime" "$src/hooks" "$src/spec" "$src/oci" |
        grep -v 'common/fault.h' | grep -vE 'SB_FAULT_POINT\("[a-z0-9.-]+"\);' || true)
if [ -n "$odd" ]; then
        echo "fault-points.sh: a fault point that is not SB_FAULT_POINT(\"literal\");:" >&2
        echo "$odd" >&2
        exit 1
fi
