#!/bin/sh
# install-deps.sh - install the Debian packages perfgate needs, if missing.
#   ci/install-deps.sh build   what building perfgate needs
#   ci/install-deps.sh test    that plus what the test suite uses
#   ci/install-deps.sh ci      build plus what ci/perfgate-ci.sh uses (curl, jq)
#   ci/install-deps.sh ci-tools  only what ci/perfgate-ci.sh uses, for a runner
#                              whose perfgate is installed (the .deb, PERFGATE)
#   ci/install-deps.sh deb     build plus what `make deb` uses (dpkg-shlibdeps, file)
# Idempotent: installs only what dpkg does not already list. Works as root or
# through sudo; otherwise prints the exact apt-get command and exits 1.
set -eu
what=${1:-build}
# One list per purpose, all from Debian 12's own archive: perfgate and the
# demo need only the first.
pkgs="cmake make gcc pkg-config git libelf-dev libdw-dev zlib1g-dev libcjson-dev libgit2-dev libiberty-dev libcapstone-dev libncurses-dev"
[ "$what" = ci-tools ] && pkgs="git"
if [ "$what" = test ]; then
  # unit tests (cmocka) and the sanitizer build
  pkgs="$pkgs libcmocka-dev clang libclang-rt-14-dev"
  # fixtures, symbolization (dwz: DWZ alternate debug files) and the simulated counters
  pkgs="$pkgs binutils g++ libc6-dbg valgrind time dwz"
  # file capabilities for the unprivileged-user tests (setcap)
  pkgs="$pkgs libcap2-bin"
  # symbolization of other toolchains (lld, Rust, Go) checked against perf; cargo for doctor's Cargo build
  pkgs="$pkgs lld rustc cargo golang-go linux-perf llvm"
  # docs, schema and SVG checks
  pkgs="$pkgs libxml2-utils cmark-gfm"
  # npm test tools (tests/node) and the browser test
  pkgs="$pkgs nodejs npm chromium"
  # CI scripts: gitlab-ci-local needs rsync
  pkgs="$pkgs rsync shellcheck"
  # the format check of .ci/run
  pkgs="$pkgs clang-format"
fi
if [ "$what" = deb ] || [ "$what" = test ]; then
  pkgs="$pkgs dpkg-dev file"
fi
if [ "$what" = test ]; then
  pkgs="$pkgs lintian man-db"
fi
if [ "$what" = ci ] || [ "$what" = ci-tools ] || [ "$what" = test ]; then
  pkgs="$pkgs curl jq ca-certificates librsvg2-bin"
fi
# node and npm may come from elsewhere than Debian (NodeSource's nodejs
# bundles npm and conflicts with Debian's npm): what counts is the commands.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  pkgs=$(echo "$pkgs" | sed 's/ nodejs / /; s/ npm / /')
fi
missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo"
else
  echo "perfgate: these Debian packages are missing:$missing" >&2
  echo "perfgate: user $(id -un 2>/dev/null || id -u) is not root and has no password-less sudo;" \
    "install them as root (on a CI runner whose jobs run as this user: once, as its admin)," \
    "then run this command again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "perfgate: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
