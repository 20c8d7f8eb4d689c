#!/usr/bin/env bats
# bash completion (runtime/cli/completion.bash): sourced in bash as
# bash-completion loads it, then asked what a <TAB> offers, as a user's
# shell would ask it.

load ../helpers

COMPLETION=$SBRUN_SRCDIR/runtime/cli/completion.bash

# complete WORDS...: COMPREPLY for the command line WORDS, the cursor at the
# end of the last word (give "" for a <TAB> after a space), one a line.
# The completed program is this sbrun, with this test's state root.
complete_words() {
        bash -c '
                source "$1" || exit 1
                shift
                COMP_WORDS=("$@")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMP_LINE="$*"
                COMP_POINT=${#COMP_LINE}
                _sbrun
                printf "%s\n" "${COMPREPLY[@]}"
        ' complete "$COMPLETION" "$@"
}

@test "completion: sbrun cr<TAB> is create" {
        run -0 complete_words "$SBRUN" cr
        [ "$output" = create ]
        run -0 complete_words "$SBRUN" --root "$ROOT" ch
        [ "$output" = $'check\ncheckpoint' ]
        # Every command of the Commands list, and help.
        run -0 complete_words "$SBRUN" ""
        for cmd in create start run state kill delete list spec exec ps pause resume update policy events audit check help; do
                grep -qx "$cmd" <<<"$output" || fail "no $cmd in: $output"
        done
}

@test "completion: sbrun create --b<TAB> is --bundle, and options come from --help" {
        run -0 complete_words "$SBRUN" create --b
        [ "$output" = --bundle ]
        run -0 complete_words "$SBRUN" run --no-
        [ "$output" = $'--no-pivot\n--no-new-keyring\n--no-subreaper' ]
        run -0 complete_words "$SBRUN" --log-
        [ "$output" = --log-format ]
        # A value from its placeholder: the choices, or directories.
        run -0 complete_words "$SBRUN" list --format ""
        [ "$output" = $'table\njson' ]
        run -0 complete_words "$SBRUN" --root "$ROOT" --cgroup-manager systemd check -f j
        [ "$output" = json ]
        mkdir "$TEST_DIR/bundle-dir"
        touch "$TEST_DIR/bundle-file"
        run -0 complete_words "$SBRUN" create --bundle "$TEST_DIR/bundle-"
        [ "$output" = "$TEST_DIR/bundle-dir" ]
        # Subcommands, and theirs.
        run -0 complete_words "$SBRUN" policy ""
        [ "$output" = $'show\nexplain' ]
        run -0 complete_words "$SBRUN" policy explain --f
        [ "$output" = --format ]
        run -0 complete_words "$SBRUN" help pol
        [ "$output" = policy ]
        # Each option --help lists, for every command (nothing listed twice).
        local cmd want
        for cmd in create run exec update check; do
                want=$("$SBRUN" "$cmd" --help | grep -oE '^  (-[A-Za-z], |    )--[a-z0-9-]+' | sed 's/.*--/--/')
                run -0 complete_words "$SBRUN" "$cmd" --
                [ "$output" = "$want" ] || fail "$cmd --<TAB>: $output, want $want"
        done
}

@test "completion: sbrun kill <TAB> offers the containers of the state root" {
        make_bundle
        set_args sleep 600
        detached sbrun run -d -b "$BUNDLE" "$ID"
        [ "$(container_status "$ID")" = running ]

        # The global options given go to `sbrun list -q` (here --root).
        run -0 complete_words "${SBRUN_ARGV[@]}" kill ""
        [ "$output" = "$ID" ]
        run -0 complete_words "${SBRUN_ARGV[@]}" kill --all "${ID:0:3}"
        [ "$output" = "$ID" ]
        run -0 complete_words "${SBRUN_ARGV[@]}" exec -t "$ID" ""
        [ -z "$output" ]
        # A command without an ID does not offer one.
        run -0 complete_words "${SBRUN_ARGV[@]}" list ""
        [ -z "$output" ]
        # Another state root holds none.
        mkdir -m 0700 "$TEST_DIR/other"
        run -0 complete_words "$SBRUN" --root "$TEST_DIR/other" kill ""
        [ -z "$output" ]

        sbrun kill "$ID" KILL
        wait_for_status "$ID" stopped
        sbrun delete "$ID"
}
