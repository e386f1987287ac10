#!/bin/sh
# install-perfgate.sh [--download DIR] VERSION - install perfgate VERSION
# from the .deb attached to its release, for this machine's distribution
# and architecture, with apt-get (which pulls in only the runtime libraries).
#   ci/install-perfgate.sh 0.2.0            (v0.2.0 works too)
#   ci/install-perfgate.sh --download . 0.2.0   fetch and check it, no install
# The release of VERSION is the tag vVERSION; its asset is named as
# `make deb` names packages (packaging/cpack-config.cmake):
#   perfgate_<VERSION>_<ID><VERSION_ID>_<arch>.deb    (/etc/os-release, dpkg)
# fetched with curl from
#   $PERFGATE_RELEASE_URL/v<VERSION>/<asset>
# where PERFGATE_RELEASE_URL defaults to
#   https://github.com/$PERFGATE_REPOSITORY/releases/download
# (any URL curl takes, file:// included).
# Exit status: 0 done, the path of the binary (or of the downloaded .deb)
# on stdout; 1 no such asset for this machine, or not a Debian-like system:
# build from source instead; 2 usage; 4 the package is not the one asked
# for, or installing it failed (also: not root and no password-less sudo).
set -eu
prog=install-perfgate
dl=""
if [ "${1:-}" = --download ]; then
  [ $# -ge 2 ] || { echo "$prog: --download needs a directory" >&2; exit 2; }
  dl=$2; shift 2
fi
if [ $# != 1 ] || [ -z "$1" ]; then
  echo "usage: install-perfgate.sh [--download DIR] VERSION" >&2
  exit 2
fi
v=${1#v}
case $v in
  [0-9]*) ;;
  *) echo "$prog: '$1' is not a release version (X.Y.Z or vX.Y.Z)" >&2; exit 2 ;;
esac
base=${PERFGATE_RELEASE_URL:-}
if [ -z "$base" ]; then
  [ -n "${PERFGATE_REPOSITORY:-}" ] || {
    echo "$prog: set PERFGATE_REPOSITORY (owner/perfgate) or PERFGATE_RELEASE_URL" >&2; exit 2; }
  base="https://github.com/$PERFGATE_REPOSITORY/releases/download"
fi
if [ ! -r /etc/os-release ] || ! command -v dpkg >/dev/null 2>&1; then
  echo "$prog: not a Debian-like system (no /etc/os-release or dpkg): no package to install" >&2
  exit 1
fi
# shellcheck disable=SC1091
. /etc/os-release
asset="perfgate_${v}_${ID}${VERSION_ID:-}_$(dpkg --print-architecture).deb"
url="$base/v$v/$asset"
if [ -n "$dl" ]; then
  dir=$dl
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
if ! command -v curl >/dev/null 2>&1; then
  echo "$prog: curl is missing: cannot fetch $url" >&2
  exit 1
fi
if ! curl -fsSL --retry 3 -o "$dir/$asset" "$url"; then
  rm -f "$dir/$asset"
  echo "$prog: no release package $url" >&2
  exit 1
fi
got=$(dpkg-deb -f "$dir/$asset" Package Version 2>/dev/null | tr '\n' ' ') || got=""
if [ "$got" != "Package: perfgate Version: $v " ]; then
  echo "$prog: $url is not perfgate $v (control: ${got:-unreadable})" >&2
  exit 4
fi
if [ -n "$dl" ]; then
  echo "$dir/$asset"
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
    echo "$prog: installing $asset needs root or password-less sudo: user $(id -un 2>/dev/null || id -u) is not root and has no password-less sudo;" \
      "install it once as root (sudo ci/install-perfgate.sh $v)," \
      "then give its /usr/bin/perfgate to the job (the action's 'perfgate' input, PERFGATE on GitLab)" >&2
    exit 4
  fi
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# apt-get takes a local .deb by path and installs the libraries it depends on
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "$dir/$asset"; } >&2; then
  echo "$prog: apt-get could not install $asset" >&2
  exit 4
fi
have=$(/usr/bin/perfgate --version 2>/dev/null || true)
if [ "$have" != "perfgate $v" ]; then
  echo "$prog: installed, but /usr/bin/perfgate says '$have', not 'perfgate $v'" >&2
  exit 4
fi
echo /usr/bin/perfgate
