#!/usr/bin/env bats
# --help, `sbrun help`, the man page and the parser tell one story: every
# command's --help lists each option with a line saying what it does, the
# man page's section of that command names each, and the parser takes
# exactly the options --help lists, by the names it lists.
#
# Which command line sbrun takes is asked of sbrun itself (the Commands list
# of `sbrun --help`, the subcommands its usages name), so a new command or
# option is checked without a change here.

load ../helpers

# The man page make built from man/sbrun.8.in (SBRUN_MAN_PAGE: another).
MAN_PAGE=${SBRUN_MAN_PAGE:-$SBRUN_BUILDDIR/man/sbrun.8}

# The commands of `sbrun --help`, then each subcommand as "policy show".
all_commands() {
        local cmd sub
        for cmd in $("$SBRUN" --help | sed -n '/^Commands:/,$p' | awk '/^  [a-z]/ { print $1 }'); do
                echo "$cmd"
                for sub in $("$SBRUN" "$cmd" --help |
                        sed -nE "s/^(usage:| +) sbrun $cmd ([a-z][a-z-]*)( .*)?$/\2/p"); do
                        echo "$cmd $sub"
                done
        done
}

# The options of one --help text on stdin, one a line: NAME|LETTER|ARG|HELP
# (LETTER and ARG empty when there are none). An option starts a line with
# "  -x, --name" or "      --name"; its help follows on that line and on
# the lines indented below it.
help_options() {
        awk '
        function flush() { if (name != "") print name "|" letter "|" arg "|" desc; name = "" }
        /^Options:$/ { on = 1; next }
        !on { next }
        /^$/ { flush(); on = 0; next }
        /^  -[^-], --[a-z]|^      --[a-z]/ {
                flush()
                line = $0; sub(/^ +/, "", line)
                letter = ""
                if (line ~ /^-[^-], /) { letter = substr(line, 2, 1); line = substr(line, 5) }
                desc = ""
                if (match(line, /  +/)) {
                        spec = substr(line, 1, RSTART - 1); desc = substr(line, RSTART + RLENGTH)
                } else
                        spec = line
                n = split(spec, w, " "); name = substr(w[1], 3); arg = n > 1 ? w[2] : ""
                next
        }
        /^       +[^ ]/ { line = $0; sub(/^ +/, "", line); desc = desc (desc == "" ? "" : " ") line; next }
        on { print "unparsed line: " $0 > "/dev/stderr"; bad = 1 }
        END { flush(); exit bad }'
}

# The man page's text of one command's section (".SS create", ".SS pause,
# resume", ".SS policy explain"; for "policy", those of its subcommands), or
# of the global options, with roff's \- as -.
man_section() {
        local exact=1
        grep -Eq "^\.S[SH] \"?(.*, )?$1(, .*)?\"?\$" "$MAN_PAGE" || exact=0
        awk -v want="$1" -v exact=$exact '
        /^\.S[SH] / {
                title = $0; sub(/^\.S[SH] "?/, "", title); sub(/"$/, "", title)
                on = 0
                n = split(title, names, ", ")
                for (i = 1; i <= n; i++)
                        if (names[i] == want || (!exact && index(names[i], want " ") == 1))
                                on = 1
                next
        }
        on' "$MAN_PAGE" | sed 's/\\-/-/g'
}

@test "every command's --help lists -h, --help and every option with its help" {
        local cmd bad="" n=0 opts
        while read -r cmd; do
                # shellcheck disable=SC2086 # "policy show" is two words
                run "$SBRUN" $cmd --help
                if [ "$status" -ne 0 ] || [[ $output != "usage: sbrun $cmd"* ]]; then
                        bad+="  $cmd --help: exit $status: $output"$'\n'
                        continue
                fi
                grep -Eq '^  -h, --help  +[a-z]' <<<"$output" || bad+="  $cmd --help: no -h, --help"$'\n'
                opts=$(help_options <<<"$output") || bad+="  $cmd --help: unparsed option lines"$'\n'
                while IFS='|' read -r name letter arg desc; do
                        n=$((n + 1))
                        [ -n "$desc" ] || bad+="  $cmd --$name: no help text"$'\n'
                done <<<"$opts"
        done < <(all_commands)
        [ -z "$bad" ] || fail $'\n'"$bad"
        # create's six options, run's five more, exec's 17, update's 20...
        [ "$n" -ge 75 ] || fail "only $n options listed in all"
}

@test "the global --help lists the global options with their help and the commands" {
        run "$SBRUN" --help
        [ "$status" -eq 0 ]
        local opts bad=""
        opts=$(help_options <<<"$output")
        for want in root log log-format debug policy systemd-cgroup cgroup-manager rootless criu version help; do
                grep -q "^$want|" <<<"$opts" || bad+=" --$want"
        done
        [ -z "$bad" ] || fail "not listed:$bad"
        ! grep -q '^[^|]*|[^|]*|[^|]*|$' <<<"$opts" || fail "an option without help: $opts"
        [ "$(grep -c '^rootless||auto|true|false|' <<<"$opts")" -eq 1 ] || fail "--rootless: $opts"
        [[ $output == *$'\nCommands:\n'* ]]
}

@test "sbrun help COMMAND prints what sbrun COMMAND --help prints" {
        local cmd bad=""
        while read -r cmd; do
                # shellcheck disable=SC2086
                if ! diff <("$SBRUN" help $cmd) <("$SBRUN" $cmd --help) >/dev/null; then
                        bad+="  help $cmd differs from $cmd --help"$'\n'
                fi
                # shellcheck disable=SC2086
                diff <("$SBRUN" $cmd -h) <("$SBRUN" $cmd --help) >/dev/null || bad+="  $cmd -h differs"$'\n'
        done < <(all_commands)
        diff <("$SBRUN" help) <("$SBRUN" --help) >/dev/null || bad+="  help differs from --help"$'\n'
        [ -z "$bad" ] || fail $'\n'"$bad"

        # Not a way to run a command by another name.
        run "$SBRUN" --root "$ROOT" help create "$ID"
        [ "$status" -eq 1 ]
        [[ $output == *"help: unexpected argument \"$ID\""* ]]
        run "$SBRUN" help nosuch
        [ "$status" -eq 1 ]
        [[ $output == *'help: unknown command "nosuch"'* ]]
}

@test "the man page documents every option of every command in that command's section" {
        [ -f "$MAN_PAGE" ] || fail "no man page at $MAN_PAGE (make builds it)"
        local cmd section bad=""
        while read -r cmd; do
                section=$(man_section "$cmd")
                [ -n "$section" ] || {
                        bad+="  no section for $cmd"$'\n'
                        continue
                }
                # shellcheck disable=SC2086
                while IFS='|' read -r name letter arg desc; do
                        [ "$name" != help ] || continue
                        grep -Eq -- "--$name([^a-z-]|\$)" <<<"$section" ||
                                bad+="  $cmd --$name: not in its section"$'\n'
                        [ -z "$letter" ] || grep -Eq -- "(^|[^a-z-])-$letter([^a-z-]|\$)" <<<"$section" ||
                                bad+="  $cmd -$letter: not in its section"$'\n'
                done < <("$SBRUN" $cmd --help | help_options)
        done < <(all_commands)
        section=$(man_section "GLOBAL OPTIONS")
        while IFS='|' read -r name letter arg desc; do
                grep -Eq -- "--$name([^a-z-]|\$)" <<<"$section" || bad+="  global --$name: not in GLOBAL OPTIONS"$'\n'
        done < <("$SBRUN" --help | help_options)
        [ -z "$bad" ] || fail $'\n'"$bad"
}

@test "the man page formats without a warning and names this version and these directories" {
        [ -f "$MAN_PAGE" ] || fail "no man page at $MAN_PAGE (make builds it)"
        run groff -man -z -ww "$MAN_PAGE"
        [ "$status" -eq 0 ]
        [ -z "$output" ] || fail "groff: $output"
        if command -v man >/dev/null; then
                local width
                for width in 60 80 132; do
                        run -0 --separate-stderr env MANWIDTH=$width man -l "$MAN_PAGE"
                        [ -z "$stderr" ] || fail "man -l at $width columns: $stderr"
                done
        fi
        ! grep -n '@[A-Za-z_]*@' "$MAN_PAGE" || fail "unsubstituted"
        local version
        version=$("$SBRUN" --version | sed -n 's/^sbrun version //p')
        grep -q "^\.TH SBRUN 8 .*\"sbrun $version\"" "$MAN_PAGE" || fail "footer is not sbrun $version"
        # --rootless as the code has it.
        man_section "GLOBAL OPTIONS" | grep -A2 -- '--rootless' | grep -q 'auto' ||
                fail "--rootless without auto|true|false"
        # The audit trail is a file of FILES, not a sentence of RESOURCE LIMITS.
        man_section FILES | grep -q '/audit.jsonl'
        if man_section "RESOURCE LIMITS" | grep -q 'audit'; then
                fail "RESOURCE LIMITS speaks of the audit trail"
        fi
        # Only installed files are pointed to: none of the source tree.
        ! grep -nE '(^|[ (])(docs|spec|runtime|tests)/[a-z_]+\.(md|h|c)' "$MAN_PAGE" ||
                fail "the man page points into the source tree"
}

# The parser's side: each option --help lists is one it takes, by that name
# and letter; no letter, no other command's option and no abbreviation that
# --help does not list is taken. "Taken" is "not refused as unknown": each
# try ends in --help (or in a value's refusal), so nothing runs, and the
# state root is this test's own.
@test "the parser takes exactly the options --help lists" {
        local cmd bad="" word out all_names=""
        local -a args words
        local -A listed
        cd "$TEST_DIR"
        while read -r cmd; do
                # shellcheck disable=SC2086
                all_names+=" $("$SBRUN" $cmd --help | help_options | cut -d'|' -f1 | tr '\n' ' ')"
        done < <(all_commands)
        all_names+=" $("$SBRUN" --help | help_options | cut -d'|' -f1 | tr '\n' ' ')"
        # runc's options sbrun leaves out (checkpoint's, restore's, exec's).
        all_names+=" image-path work-path leave-running tcp-established ext-unix-sk shell-job"
        all_names+=" lazy-pages file-locks pre-dump manage-cgroups-mode empty-ns auto-dedup"
        all_names+=" status-fd page-server parent-path no-subreaper systemd-cgroup cgroup"
        all_names=$(tr ' ' '\n' <<<"$all_names" | sort -u)

        # check WHAT WORDS...: the options of `sbrun WORDS... --help` (WORDS
        # empty: the global ones) against the parser.
        check() {
                local what=$1 name letter arg desc letters=h
                shift
                words=("$@")
                listed=()
                while IFS='|' read -r name letter arg desc; do
                        listed[$name]=1
                        letters+=$letter
                        args=("--$name")
                        [ -z "$arg" ] || args+=(x)
                        out=$("$SBRUN" --root "$ROOT" "${words[@]}" "${args[@]}" --help 2>&1 || true)
                        [[ $out != *"unknown option"* ]] || bad+="  $what --$name: $out"$'\n'
                        if [ -n "$letter" ]; then
                                args[0]=-$letter
                                out=$("$SBRUN" --root "$ROOT" "${words[@]}" "${args[@]}" --help 2>&1 || true)
                                [[ $out != *"unknown option"* ]] || bad+="  $what -$letter: $out"$'\n'
                        fi
                done < <("$SBRUN" "${words[@]}" --help | help_options)
                [[ $("$SBRUN" "${words[@]}" --help) != *"Not implemented"* ]] || return 0
                for name in "${!listed[@]}"; do
                        # One character short of the name, unless that is an option too.
                        word=${name%?}
                        [ -z "${listed[$word]:-}" ] || continue
                        out=$("$SBRUN" --root "$ROOT" "${words[@]}" "--$word" x --help 2>&1 || true)
                        [[ $out == *"unknown option \"--$word\""* ]] ||
                                bad+="  $what --$word (abbreviated) taken: $out"$'\n'
                done
                for word in $all_names; do
                        [ -z "${listed[$word]:-}" ] || continue
                        out=$("$SBRUN" --root "$ROOT" "${words[@]}" "--$word" x --help 2>&1 || true)
                        [[ $out == *"unknown option \"--$word\""* ]] || bad+="  $what --$word taken: $out"$'\n'
                done
                for word in {a..z} {A..Z} {0..9}; do
                        [[ $letters != *"$word"* ]] || continue
                        out=$("$SBRUN" --root "$ROOT" "${words[@]}" "-$word" x --help 2>&1 || true)
                        [[ $out == *"unknown option \"-$word\""* ]] || bad+="  $what -$word taken: $out"$'\n'
                done
        }
        while read -r cmd; do
                # shellcheck disable=SC2086 # "policy show" is two words
                check "$cmd" $cmd
        done < <(all_commands)
        check global
        [ -z "$(ls -A "$ROOT")" ] || bad+="  left in --root: $(ls -A "$ROOT")"$'\n'
        [ -z "$bad" ] || fail $'\n'"$bad"
}
