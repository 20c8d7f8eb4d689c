# bash completion for sbrun(8); installed as
# $(datadir)/bash-completion/completions/sbrun.
#
# Nothing is listed here: the commands, their subcommands and each one's
# options (with what value an option takes) are read from the sbrun being
# completed (`sbrun --help`, `sbrun COMMAND --help`), so completion follows
# the binary and cannot go stale. Container IDs come from `sbrun list -q`
# under the same --root.

# The options of one --help text on stdin, one "NAME ARG LETTER" a line
# (ARG and LETTER "-" when there are none). An option's line starts with
# "  -x, --name" or "      --name"; wrapped help lines are indented further.
_sbrun_options()
{
        local line on=0
        local re='^  (-([A-Za-z0-9]), |    )--([a-z0-9-]+)( ([^ ]+))?( |$)'

        while IFS= read -r line; do
                if [[ $line == Options: ]]; then
                        on=1
                        continue
                fi
                ((on)) || continue
                [[ -n $line ]] || break
                [[ $line =~ $re ]] &&
                        printf '%s %s %s\n' "${BASH_REMATCH[3]}" "${BASH_REMATCH[5]:--}" \
                                "${BASH_REMATCH[2]:--}"
        done
}

# The commands of `sbrun --help`'s Commands list.
_sbrun_commands()
{
        local line on=0

        while IFS= read -r line; do
                if [[ $line == Commands: ]]; then
                        on=1
                elif ((on)) && [[ $line =~ ^\ \ ([a-z][a-z-]*)\  ]]; then
                        printf '%s\n' "${BASH_REMATCH[1]}"
                fi
        done
}

# The subcommands a usage names ("usage: sbrun policy show"): a lower-case
# word right after the command.
_sbrun_subcommands()
{
        local cmd=$1 line

        while IFS= read -r line; do
                [[ $line =~ ^(usage:|\ +)\ sbrun\ $cmd\ ([a-z][a-z-]*)( |$) ]] &&
                        printf '%s\n' "${BASH_REMATCH[2]}"
        done
}

# What to offer for an option's value, from its placeholder: the choices of
# "table|json", directories for DIR, files for FILE (and "FILE|-"), SOCKET
# and PATH, nothing for the others (N, SIZE, ID...).
_sbrun_value()
{
        local arg=$1 cur=$2

        case $arg in
        DIR)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                ;;
        FILE* | SOCKET | PATH)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                ;;
        *[A-Z]*) COMPREPLY=() ;;
        *\|*) mapfile -t COMPREPLY < <(compgen -W "${arg//|/ }" -- "$cur") ;;
        *) COMPREPLY=() ;;
        esac
}

_sbrun()
{
        local sbrun=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
        local -a root=() cmd=()
        local i=1 word arg help positional=0 value_arg=

        COMPREPLY=()
        # Past the global options to the command. Only --root is kept, for
        # `list -q`: a <TAB> must not write a --log or read a --policy.
        local global_opts
        global_opts=$("$sbrun" --help 2>/dev/null | _sbrun_options)
        while ((i < COMP_CWORD)); do
                word=${COMP_WORDS[i]}
                [[ $word == -* ]] || break
                [[ $word != --root=* ]] || root=("$word")
                arg=$(awk -v w="${word%%=*}" '"--" $1 == w || "-" $3 == w { print $2 }' <<<"$global_opts")
                if [[ -n $arg && $arg != - && $word != *=* ]]; then
                        ((i++))
                        [[ $word != --root ]] || ((i >= COMP_CWORD)) || root=(--root "${COMP_WORDS[i]}")
                        ((i == COMP_CWORD)) && value_arg=$arg
                fi
                ((i++))
        done
        if [[ -n $value_arg ]]; then
                _sbrun_value "$value_arg" "$cur"
                return
        fi
        if ((i == COMP_CWORD)); then
                if [[ $cur == -* ]]; then
                        mapfile -t COMPREPLY < <(compgen -W "$(awk '{ print "--" $1 }' <<<"$global_opts")" -- "$cur")
                else
                        mapfile -t COMPREPLY < <(compgen -W "$("$sbrun" --help 2>/dev/null | _sbrun_commands) help" -- "$cur")
                fi
                return
        fi

        # The command, and its subcommand when its usage names some.
        cmd=("${COMP_WORDS[i]}")
        ((i++))
        if [[ ${cmd[0]} == help ]]; then
                if ((i == COMP_CWORD)); then
                        mapfile -t COMPREPLY < <(compgen -W "$("$sbrun" --help 2>/dev/null | _sbrun_commands)" -- "$cur")
                elif ((i + 1 == COMP_CWORD)); then
                        mapfile -t COMPREPLY < <(compgen -W "$("$sbrun" "${COMP_WORDS[i]}" --help 2>/dev/null |
                                _sbrun_subcommands "${COMP_WORDS[i]}")" -- "$cur")
                fi
                return
        fi
        local subs
        subs=$("$sbrun" "${cmd[0]}" --help 2>/dev/null | _sbrun_subcommands "${cmd[0]}")
        if [[ -n $subs ]]; then
                if ((i == COMP_CWORD)); then
                        mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
                        return
                fi
                cmd+=("${COMP_WORDS[i]}")
                ((i++))
        fi
        help=$("$sbrun" "${cmd[@]}" --help 2>/dev/null)
        local opts
        opts=$(_sbrun_options <<<"$help")

        # Past the options: count the positional words before the cursor.
        while ((i < COMP_CWORD)); do
                word=${COMP_WORDS[i]}
                if ((positional == 0)) && [[ $word == -* ]]; then
                        arg=$(awk -v w="${word%%=*}" '"--" $1 == w || "-" $3 == w { print $2 }' <<<"$opts")
                        if [[ -n $arg && $arg != - && $word != *=* ]]; then
                                ((i++))
                                if ((i == COMP_CWORD)); then
                                        _sbrun_value "$arg" "$cur"
                                        return
                                fi
                        fi
                else
                        ((positional++))
                fi
                ((i++))
        done
        if ((positional == 0)) && [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$(awk '{ print "--" $1 }' <<<"$opts")" -- "$cur")
                return
        fi
        # The first argument of a command whose usage names an ID.
        if ((positional == 0)) && grep -Eq "^(usage:| +) sbrun ${cmd[*]} .*\bID\b" <<<"$help"; then
                mapfile -t COMPREPLY < <(compgen -W "$("$sbrun" "${root[@]}" list -q 2>/dev/null)" -- "$cur")
        fi
}

complete -F _sbrun sbrun
