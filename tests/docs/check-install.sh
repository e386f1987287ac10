#!/bin/sh
# check-install.sh BUILD_DIR - `cmake --install` into a temporary prefix puts
# perfgate and its docs there, and the installed binary runs.
set -eu
bd=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$bd" --prefix "$prefix" >/dev/null
"$prefix/bin/perfgate" --version
"$prefix/bin/perfgate" help run >/dev/null
ls "$prefix/share/doc/perfgate/run.md" >/dev/null
echo "installed and ran $prefix/bin/perfgate"
