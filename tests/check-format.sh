#!/bin/bash
# check-format.sh: report C files under common/ oci/ spec/ runtime/ hooks/
# tests/unit/, tests/helpers/ and tests/fuzz/ that differ from .clang-format. Reports
# only: it never rewrites a file. Exit status 1 if any file would change, or
# if there is no clang-format to tell.
#   tests/check-format.sh            check everything
#   tests/check-format.sh FILE...    check these files
set -uo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang-format >/dev/null; then
        echo "check-format: clang-format not found: apt-get install clang-format" >&2
        exit 1
fi

if [ $# -gt 0 ]; then
        files=("$@")
else
        mapfile -t files < <(find common oci spec runtime hooks tests/unit tests/helpers tests/fuzz \
                -name '*.[ch]' -type f 2>/dev/null | sort)
fi

bad=0
for f in "${files[@]}"; do
        if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
                n=$(clang-format --dry-run "$f" 2>&1 | grep -c 'warning:')
                echo "check-format: $f: $n place(s) differ from .clang-format"
                bad=$((bad + 1))
        fi
done
echo "check-format: ${#files[@]} files checked, $bad not formatted"
[ "$bad" -eq 0 ]
