# lib.sh - what the tests/confirm scripts share, sourced by POSIX sh after
# `set -eu` with the script's own arguments:
#   pg       the perfgate under test (the script's first argument)
#   here     the scripts' directory (absolute)
#   fail MSG print "FAIL: MSG" on stderr and exit 1
#   scratch  make dir a new temporary directory named after the script
#            (removed when the script exits)
# shellcheck shell=sh disable=SC2034  # pg, here: used by the sourcing script
pg=$1
here=$(cd "$(dirname "$0")" && pwd)
fail() {
        echo "FAIL: $*" >&2
        exit 1
}
scratch() {
        dir=$(mktemp -d "${TMPDIR:-/tmp}/pg-$(basename "$0" .sh).XXXXXX")
        trap 'rm -rf "$dir"' EXIT
}
