#!/usr/bin/env bash
# test-safe-directory.sh - perfgate opens a repository another user owns
# exactly when git does (git-config(1), "safe.directory" and "ENVIRONMENT").
# Real repositories are given to uid 65534; for every configuration below the
# git CLI, run with the same environment (`git -C DIR rev-parse HEAD`), is the
# oracle, and perfgate's answer (`perfgate baseline list`: exit 0, or exit 2
# naming safe.directory) must be the same. Each case also states what git
# 2.39 answers, so that both answers are exercised. Needs root (to give the
# repositories away and to run as uid 65534).
. "${PG_SOURCE_DIR:-$(dirname "$0")/../..}/tests/ci/lib.sh"

pg=${PERFGATE_BIN:?PERFGATE_BIN is not set (run through ctest)}
if [ "$(id -u)" != 0 ]; then
        echo "skipped: needs root to give repositories to another user"
        exit 77
fi
chmod 755 "$scratch" # uid 65534 reads the repositories below it
export GIT_CONFIG_NOSYSTEM=1
unset GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT GIT_CONFIG_PARAMETERS XDG_CONFIG_HOME \
        SUDO_UID

mkdir -p "$scratch/p" && cd "$scratch/p" || exit 1
git init -q . && git commit -q --allow-empty -m one
git worktree add -q "$scratch/linked" 2>/dev/null
git clone -q --bare "$scratch/p" "$scratch/mine" # root's own, for the unprivileged case
mkdir sub
head=$(git rev-parse HEAD)
chown -R 65534 "$scratch/p" "$scratch/linked"
cd "$scratch" || exit 1
mkdir -p "$scratch/home/.config/git"
gcfg="$scratch/home/.gitconfig"
xcfg="$scratch/home/.config/git/config"
real=$(realpath "$scratch/p")
ln -s "$scratch/p" "$scratch/alias"

# verdict DIR [VAR=VALUE...] [-- RUNNER...]: "accept" or "refuse" from git,
# then from perfgate, one line each
verdict() {
        local dir=$1 out="$scratch/pg.out"
        shift
        local envs=() runner=()
        while [ $# -gt 0 ] && [ "$1" != -- ]; do
                envs+=("$1")
                shift
        done
        [ "${1:-}" = -- ] && shift && runner=("$@")
        if env "${envs[@]}" "${runner[@]}" git -C "$dir" rev-parse HEAD >/dev/null 2>&1; then
                echo accept
        else echo refuse; fi
        (cd "$dir" && env "${envs[@]}" "${runner[@]}" "$pg" baseline list) >"$out" 2>&1
        local rc=$?
        case $rc in
        0) echo accept ;;
        2) if grep -q 'safe.directory\|git refuses to run' "$out"; then echo refuse; else
                echo "exit 2 without safe.directory: $(head -c 300 "$out")"
        fi ;;
        *) echo "exit $rc: $(head -c 300 "$out")" ;;
        esac
}
# same NAME EXPECTED DIR [VAR=VALUE...]: git answers EXPECTED, perfgate the same
same() {
        local name=$1 want=$2 dir=$3 answers
        shift 3
        answers=$(verdict "$dir" "$@")
        check_eq "$name: git says $want" "$want" "$(sed -n 1p <<<"$answers")"
        check_eq "$name: perfgate agrees with git" "$(sed -n 1p <<<"$answers")" \
                "$(sed -n 2p <<<"$answers")"
        rm -f "$gcfg" "$xcfg"
}
H="HOME=$scratch/home"
printf '[safe]\n\tdirectory = *\n' >"$scratch/star"

same "nothing configured" refuse p "$H"
printf '[safe]\n\tdirectory = *\n' >"$gcfg"
same "'*' in ~/.gitconfig" accept p "$H"
printf '[safe]\n\tdirectory = %s\n' "$real" >"$gcfg"
same "the path in ~/.gitconfig" accept p "$H"
printf '[safe]\n\tdirectory = %s\n' "$real" >"$gcfg"
same "the path in ~/.gitconfig, opened from a subdirectory" accept p/sub "$H"
printf '[safe]\n\tdirectory = %s\n' "$real" >"$gcfg"
same "started inside .git: the work tree's path does not count" refuse p/.git/refs "$H"
printf '[safe]\n\tdirectory = %s/.git\n' "$real" >"$gcfg"
same "started inside .git: its own path counts" accept p/.git/refs "$H"
printf '[safe]\n\tdirectory = %s\n' "$real" >"$xcfg"
same "the path in the XDG file" accept p "$H"
printf '[safe]\n\tdirectory = *\n' >"$scratch/xdg-alt-config"
mkdir -p "$scratch/xdg-alt/git" && mv "$scratch/xdg-alt-config" "$scratch/xdg-alt/git/config"
same "'*' in \$XDG_CONFIG_HOME/git/config" accept p "$H" "XDG_CONFIG_HOME=$scratch/xdg-alt"
printf '[safe]\n\tdirectory = %s\n' "$real" >"$scratch/global"
same "the path in GIT_CONFIG_GLOBAL's file" accept p "$H" "GIT_CONFIG_GLOBAL=$scratch/global"
printf '[safe]\n\tdirectory = *\n' >"$gcfg"
same "GIT_CONFIG_GLOBAL replaces ~/.gitconfig" refuse p "$H" "GIT_CONFIG_GLOBAL=/dev/null"
printf '[safe]\n\tdirectory = *\n' >"$xcfg"
same "GIT_CONFIG_GLOBAL replaces the XDG file" refuse p "$H" "GIT_CONFIG_GLOBAL=/dev/null"
same "GIT_CONFIG_COUNT with '*'" accept p "$H" GIT_CONFIG_COUNT=1 \
        GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
same "GIT_CONFIG_COUNT, key in another case" accept p "$H" GIT_CONFIG_COUNT=2 \
        GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x \
        GIT_CONFIG_KEY_1=Safe.Directory GIT_CONFIG_VALUE_1="$real"
same "GIT_CONFIG_COUNT=0" refuse p "$H" GIT_CONFIG_COUNT=0 \
        GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
same "GIT_CONFIG_PARAMETERS (git -c) with '*'" accept p "$H" \
        "GIT_CONFIG_PARAMETERS='safe.directory'='*'"
same "GIT_CONFIG_PARAMETERS, the older 'key=value' form" accept p "$H" \
        "GIT_CONFIG_PARAMETERS='safe.directory=*'"
same "GIT_CONFIG_PARAMETERS, a quote inside a value" accept p "$H" \
        "GIT_CONFIG_PARAMETERS='user.name'='a'\\''b' 'safe.directory'='$real'"
same "GIT_CONFIG_PARAMETERS, a key with no value resets" refuse p "$H" \
        GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' \
        "GIT_CONFIG_PARAMETERS='safe.directory'"
same "GIT_CONFIG_PARAMETERS unquoted: git stops" refuse p "$H" \
        "GIT_CONFIG_PARAMETERS=safe.directory=*"
same "GIT_CONFIG_COUNT with a key missing: git stops" refuse p "$H" \
        GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
same "the command line comes after the files: a reset there wins" refuse p "$H" \
        GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0= \
        "GIT_CONFIG_GLOBAL=$scratch/star"
same "GIT_CONFIG_COUNT is read before GIT_CONFIG_PARAMETERS" refuse p "$H" \
        GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' \
        "GIT_CONFIG_PARAMETERS='safe.directory'=''"
same "the system file (GIT_CONFIG_SYSTEM)" accept p "$H" GIT_CONFIG_NOSYSTEM=0 \
        "GIT_CONFIG_SYSTEM=$scratch/star"
same "GIT_CONFIG_NOSYSTEM skips the system file" refuse p "$H" GIT_CONFIG_NOSYSTEM=true \
        "GIT_CONFIG_SYSTEM=$scratch/star"
printf '[include]\n\tpath = star\n' >"$scratch/incl"
same "'*' through include.path" accept p "$H" "GIT_CONFIG_GLOBAL=$scratch/incl"
printf '[safe]\n\tdirectory = *\n\tdirectory =\n' >"$gcfg"
same "an empty value forgets '*' before it" refuse p "$H"
printf '[safe]\n\tdirectory =\n\tdirectory = %s\n' "$real" >"$gcfg"
same "a value after the reset counts" accept p "$H"
printf '[safe]\n\tdirectory = *\n\tdirectory\n' >"$gcfg"
same "a key with no value forgets too" refuse p "$H"
printf '[safe]\n\tdirectory = %s/\n' "$real" >"$gcfg"
same "a trailing '/' does not match" refuse p "$H"
printf '[safe]\n\tdirectory = %s/*\n' "$(dirname "$real")" >"$gcfg"
same "no patterns: DIR/* is a literal path" refuse p "$H"
printf '[safe]\n\tdirectory = %s\n' "$scratch/alias" >"$gcfg"
same "a symbolic link to the repository does not match its real path" refuse alias "$H"
printf '[safe]\n\tdirectory = ~/../p\n' >"$gcfg"
same "~ expands, but ../ is not resolved" refuse p "HOME=$scratch/home"
mkdir -p "$scratch/h2" && printf '[safe]\n\tdirectory = ~/p\n' >"$scratch/h2/.gitconfig"
same "'~/p' expands from \$HOME" accept p "HOME=$scratch" "GIT_CONFIG_GLOBAL=$scratch/h2/.gitconfig"
printf '[safe]\n\tdirectory = /elsewhere\n' >"$gcfg"
same "another path listed: still refused" refuse p "$H"
same "root, with SUDO_UID naming the owner" accept p "$H" SUDO_UID=65534
same "root, with SUDO_UID naming someone else" refuse p "$H" SUDO_UID=1234
printf '[safe]\n\tdirectory = %s\n' "$(realpath "$scratch/linked")" >"$gcfg"
same "a linked work tree, its top listed" accept linked "$H"
printf '[safe]\n\tdirectory = %s\n' "$real" >"$gcfg"
same "a linked work tree, only the main one listed" refuse linked "$H"

# as uid 65534, root's bare repository: no root shortcut
nob=(setpriv --reuid 65534 --regid 65534 --clear-groups)
answers=$(verdict "$scratch/mine" "$H" -- "${nob[@]}")
check_eq "uid 65534, root's repository: git refuses, perfgate too" "refuse refuse" "$(tr '\n' ' ' <<<"$answers" | sed 's/ $//')"
answers=$(verdict "$scratch/mine" "$H" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory \
        GIT_CONFIG_VALUE_0="$(realpath "$scratch/mine")" -- "${nob[@]}")
check_eq "uid 65534, root's bare repository listed: both accept" "accept accept" "$(tr '\n' ' ' <<<"$answers" | sed 's/ $//')"

# git would stop at the configuration itself: perfgate says what is wrong
(cd p && GIT_CONFIG_COUNT=x "$pg" baseline list) >"$scratch/bad" 2>&1
check_eq "GIT_CONFIG_COUNT=x: exit 2" 2 $?
check_grep "GIT_CONFIG_COUNT=x: says so" "GIT_CONFIG_COUNT='x' is not a count" "$scratch/bad"

# the refusal names the directory to list, and the listing it asks for works
(cd p/sub && HOME="$scratch/home" "$pg" baseline list) >"$scratch/refused" 2>&1
check_grep "the refusal names the top directory" \
        "git config --global --add safe.directory '$real'" "$scratch/refused"
HOME="$scratch/home" git config --global --add safe.directory "$real"
(cd p && HOME="$scratch/home" "$pg" baseline list) >/dev/null 2>&1
check_eq "following the refusal's advice: accepted" 0 $?
rm -f "$gcfg"

# run: the results record the commit git names (and none when git refuses)
printf '#!/bin/sh\nexit 0\n' >"$scratch/spin" && chmod 755 "$scratch/spin"
(cd p && HOME="$scratch/home" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory \
        GIT_CONFIG_VALUE_0='*' "$pg" run -q --repeat 2 --no-profile --out "$scratch/o1" \
        -- "$scratch/spin") 2>/dev/null
check_grep "run with '*': the result records HEAD" "\"commit\": \"$head\"" "$scratch/o1/spin.json"
(cd p && HOME="$scratch/home" "$pg" run -q --repeat 2 --no-profile --out "$scratch/o2" \
        -- "$scratch/spin") >"$scratch/run2" 2>&1
check_grep "run, refused: the warning names safe.directory" "safe.directory" "$scratch/run2"
check_nogrep "run, refused: no commit recorded" '"commit"' "$scratch/o2/spin.json"

finish
