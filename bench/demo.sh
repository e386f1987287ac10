#!/bin/sh
# demo.sh BUILD_DIR - the README's main command: measure the bundled benchmarks.
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/$build/perfgate"
echo "+ perfgate run bench/"
"$pg" run "$here/bench"
