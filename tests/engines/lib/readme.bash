# readme_block NAME: the body of the first fenced code block after the line
# "<!-- NAME -->" in README.md. The engine suites run the README's snippets
# exactly as written, found by these markers.
readme_block() {
        awk -v m="<!-- $1 -->" '
                $0 == m { found = 1; next }
                found && !inside && /^```/ { inside = 1; next }
                inside && /^```/ { exit }
                inside { print }' "$SBRUN_SRCDIR/README.md"
}
