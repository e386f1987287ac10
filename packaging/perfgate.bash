# bash completion for perfgate(1)                           -*- shell-script -*-
#
# Completes commands, subcommands, options, option values and benchmark
# names. Commands, subcommands and options are read from the help text of
# the perfgate being completed (`perfgate help`, `perfgate help COMMAND`),
# the same text --help prints and the man pages are made from, so a new
# option is completed as soon as its --help line exists. Option values by
# the argument name in that text: DIR a directory, FILE/PATH/RESULT/INPUT/
# BINARY a file, "a | b | c" at the start of the description one of those
# words, REGEX and NAME of --filter/--benchmark a benchmark name. Benchmark
# names are the "name"s of the manifest: the *.json or directory operands on
# the line, else ./perfgate.json, else bench/perfgate.json (as `perfgate run`
# and `perfgate compare` look for it). Revisions (git refs) are offered where
# the help text says an operand may be a revision.
# Needs only bash; works with or without the bash-completion package.

# _perfgate_benchmarks MANIFEST-OR-DIR...: benchmark names, one a line
_perfgate_benchmarks()
{
        local f line re='"name"[[:space:]]*:[[:space:]]*"([^"\\]*)"'
        local -a files=()
        for f in "$@"; do
                if [[ -d $f && -f $f/perfgate.json ]]; then
                        files+=("$f/perfgate.json")
                elif [[ -f $f && $f == *.json ]]; then
                        files+=("$f")
                fi
        done
        if ((${#files[@]} == 0)); then
                if [[ -f perfgate.json ]]; then
                        files=(perfgate.json)
                elif [[ -f bench/perfgate.json ]]; then
                        files=(bench/perfgate.json)
                fi
        fi
        for f in "${files[@]}"; do
                while IFS= read -r line; do
                        line=${line%%//*} # comments are allowed in perfgate.json
                        while [[ $line =~ $re ]]; do
                                printf '%s\n' "${BASH_REMATCH[1]}"
                                line=${line#*"${BASH_REMATCH[0]}"}
                        done
                done <"$f"
        done
}

# _perfgate_reply WORD... : COMPREPLY = the WORDs that start with $cur
_perfgate_reply()
{
        local w
        COMPREPLY=()
        for w in "$@"; do
                [[ $w == "$cur"* ]] && COMPREPLY+=("$w")
        done
}

_perfgate_files()
{
        local IFS=$'\n'
        compopt -o filenames 2>/dev/null
        # shellcheck disable=SC2207 # one name a line, IFS is newline
        COMPREPLY=($(compgen "$1" -- "$cur"))
}

_perfgate()
{
        local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
        local pg=${COMP_WORDS[0]} cmd="" sub="" i w line help arg
        local -a cmds=() subs=() opts=() operands=()
        local -A argname=() choices=()
        COMPREPLY=()

        # the command: the first word after perfgate that is not an option
        for ((i = 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [[ -z $cmd ]]; then
                        [[ $w != -* ]] && cmd=$w
                elif [[ $w != -* && ${COMP_WORDS[i - 1]} != --* ]]; then
                        operands+=("$w")
                fi
        done
        if [[ -z $cmd || $cmd == help ]]; then
                while IFS= read -r line; do
                        [[ $line =~ ^\ \ ([a-z][a-z0-9-]*)\ \  ]] && cmds+=("${BASH_REMATCH[1]}")
                done < <("$pg" help 2>/dev/null)
                if [[ -z $cmd ]]; then
                        _perfgate_reply "${cmds[@]}" help --help --version
                elif ((COMP_CWORD == 2)); then
                        _perfgate_reply "${cmds[@]}"
                fi
                return 0
        fi

        help=$("$pg" help "$cmd" 2>/dev/null) || return 0
        while IFS= read -r line; do
                # "usage: perfgate CMD SUB ..." and its continuation lines
                if [[ $line =~ ^(usage:)?\ *perfgate\ "$cmd"\ ([a-z][a-z-]*)(\ |$) ]]; then
                        subs+=("${BASH_REMATCH[2]}")
                fi
                # an option line: the chunks (separated by two or more
                # spaces) that start with '-' hold its options and their
                # argument names; the description follows
                local rest=$line chunk ore='(--?[a-zA-Z][a-zA-Z0-9-]*)( ([A-Z][A-Z0-9_|%]*))?'
                while [[ $rest =~ ^\ +(-[^ ]*( [^ ]+)*) ]]; do
                        chunk=${BASH_REMATCH[1]}
                        rest=${rest:${#BASH_REMATCH[0]}}
                        while [[ $chunk =~ $ore ]]; do
                                opts+=("${BASH_REMATCH[1]}")
                                [[ -n ${BASH_REMATCH[3]} ]] && argname[${BASH_REMATCH[1]}]=${BASH_REMATCH[3]}
                                chunk=${chunk#*"${BASH_REMATCH[0]}"}
                        done
                done
                if [[ $line =~ ^\ +(--[a-z][a-z0-9-]*)\ [A-Z]+\ +([a-z]+( \| [a-z]+)+) ]]; then
                        choices[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]//|/}
                fi
        done <<<"$help"

        # the value of an option that takes one
        arg=${argname[$prev]-}
        if [[ $prev == -* && -n $arg ]]; then
                if [[ -n ${choices[$prev]-} ]]; then
                        # shellcheck disable=SC2086 # the words of the list
                        _perfgate_reply ${choices[$prev]}
                elif [[ $arg == DIR ]]; then
                        _perfgate_files -d
                elif [[ $arg =~ ^(FILE|PATH|RESULT|INPUT|BINARY)$ ]]; then
                        _perfgate_files -f
                elif [[ $prev == --filter || $prev == --benchmark ]]; then
                        local -a names=()
                        while IFS= read -r w; do names+=("$w"); done \
                                < <(_perfgate_benchmarks "${operands[@]}")
                        _perfgate_reply "${names[@]}"
                fi
                return 0
        fi
        if [[ $cur == -* ]]; then
                _perfgate_reply "${opts[@]}"
                return 0
        fi
        # a subcommand (perfgate baseline save|list|show) comes first
        if ((${#subs[@]})); then
                for w in "${operands[@]}"; do
                        [[ " ${subs[*]} " == *" $w "* ]] && sub=$w
                done
                if [[ -z $sub ]]; then
                        _perfgate_reply "${subs[@]}"
                        return 0
                fi
        fi
        _perfgate_files -f
        if [[ $help == *revision* ]] && command -v git >/dev/null 2>&1; then
                local -a refs=()
                while IFS= read -r w; do refs+=("$w"); done \
                        < <(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)
                local -a files=("${COMPREPLY[@]}")
                _perfgate_reply "${refs[@]}"
                COMPREPLY+=("${files[@]}")
        fi
        return 0
}
complete -F _perfgate perfgate
