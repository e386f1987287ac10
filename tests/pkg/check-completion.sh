#!/usr/bin/env bash
# check-completion.sh BINDIR COMPLETION_FILE - the bash completion of the
# perfgate in BINDIR, as bash runs it on TAB: the file is sourced, the
# function `complete -p perfgate` names is called with COMP_WORDS/COMP_CWORD
# set, and COMPREPLY is checked against perfgate's own help text (so options
# added to --help are completed without touching the completion file),
# benchmark names from a perfgate.json, and git revisions.
set -u
bindir=$1 file=$2
export PATH="$bindir:$PATH"
fail=0
err() { echo "check-completion: FAIL: $*" >&2; fail=1; }

# shellcheck source=/dev/null
. "$file" || { echo "check-completion: cannot source $file" >&2; exit 1; }
spec=$(complete -p perfgate 2>/dev/null) || { echo "check-completion: 'complete -p perfgate': not registered" >&2; exit 1; }
[[ $spec =~ -F\ ([^ ]+) ]] || { echo "check-completion: no completion function in '$spec'" >&2; exit 1; }
fn=${BASH_REMATCH[1]}

# tab WORD... : COMPREPLY (sorted, one a line) for the last WORD being completed
tab() {
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        "$fn" perfgate "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() { # NAME WANT GOT
        [[ $2 == "$3" ]] || err "$1: want [${2//$'\n'/ }], got [${3//$'\n'/ }]"
}

expect "perfgate comp<TAB>" compare "$(tab perfgate comp)"
cmds=$(perfgate help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | sort)
[[ -n $cmds ]] || err "perfgate help lists no commands"
got=$(tab perfgate "")
for c in $cmds help --version; do
        grep -qx -- "$c" <<<"$got" || err "perfgate <TAB> does not offer '$c'"
done
expect "perfgate help d<TAB>" "$(printf 'diff\ndoctor')" "$(tab perfgate help d)"

# every long option of every command's --help, and nothing else
for c in $cmds; do
        want=$(perfgate help "$c" | grep -E '^ +-' | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
        got=$(tab perfgate "$c" --)
        for o in $want; do
                grep -qx -- "$o" <<<"$got" || err "perfgate $c --<TAB> lacks $o (it is in --help)"
        done
        for o in $got; do
                perfgate help "$c" | grep -q -- "$o" || err "perfgate $c --<TAB> offers $o, not in --help"
        done
done
expect "perfgate compare --str<TAB>" --strict "$(tab perfgate compare --str)"
expect "perfgate run --counters s<TAB>" "$(printf 'simulated\nsoftware')" "$(tab perfgate run --counters s)"
expect "perfgate baseline s<TAB>" "$(printf 'save\nshow')" "$(tab perfgate baseline s)"

# benchmark names: ./perfgate.json, or the manifest on the line; a name is a
# word offered, never something expanded
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
cat >perfgate.json <<'EOF'
// comments are allowed
{
  "defaults": {"repeat": 3},
  "benchmarks": [
    {"name": "alpha", "argv": ["./a"]},  // "name": "not-a-benchmark"
    {"name": "beta-2", "argv": ["./b"]},
    {"name": "$(touch pwned)", "argv": ["./c"]}
  ],
  "compare": {"benchmarks": {"alpha": {"gate": ["task-clock"]}}}
}
EOF
mkdir other && echo '{"benchmarks": [{"name": "gamma", "argv": ["./g"]}]}' >other/perfgate.json
# shellcheck disable=SC2016 # a literal $(...) is the point
expect "run --filter <TAB> (./perfgate.json)" "$(printf '$(touch pwned)\nalpha\nbeta-2')" "$(tab perfgate run --filter "")"
[[ -e pwned ]] && err "a benchmark name was expanded by the shell"
expect "run other/ --filter <TAB>" gamma "$(tab perfgate run other/ --filter "")"
expect "run --filter b<TAB>" beta-2 "$(tab perfgate run --filter b)"
expect "baseline show --benchmark a<TAB>" alpha "$(tab perfgate baseline show --benchmark a)"

# option values: directories for DIR, files for FILE
mkdir results-dir && touch results-file
expect "compare --results res<TAB>" results-dir "$(tab perfgate compare --results res)"
got=$(tab perfgate compare --markdown res)
grep -qx results-file <<<"$got" || err "compare --markdown res<TAB> does not offer the file"

# revisions where the help says an operand may be one
git init -q -b main repo && cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x
git tag v9.9.9
expect "compare ma<TAB> in a git repository" main "$(tab perfgate compare ma)"
expect "compare v9<TAB>" v9.9.9 "$(tab perfgate compare v9)"

[ $fail = 0 ] && echo "bash completion of $(command -v perfgate) ($file): ok"
exit $fail
