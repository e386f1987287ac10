#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2016 # "a && b || err": all checks hold or one fails; node code in single quotes
# check-deb.sh SOURCE_DIR - `make deb` as a user of a release tarball runs it:
# on a copy of the tree without .git (the version then comes from VERSION),
# building without the tests (cmocka is never looked for). Then the package:
# control fields (version = `perfgate --version`, runtime library
# dependencies only), the file list, the unpacked binary, man pages and
# completion working from the package's own paths, lintian without errors
# or warnings (when lintian is installed), and `git archive` tarballs
# carrying the exact version through export-subst.
set -u
src=$(cd "$1" && pwd) || exit 2
fail=0
err() { echo "check-deb: FAIL: $*" >&2; fail=1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
here=$(cd "$(dirname "$0")" && pwd)

# ---- the tarball: the files of the work tree as they are, no .git
mkdir "$scratch/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
        tar -xf - -C "$scratch/src" || { echo "check-deb: cannot copy the tree" >&2; exit 2; }
base=$(cat "$src/VERSION")
SECONDS=0
make -C "$scratch/src" deb DEB_BUILD="$scratch/build" JOBS=2 >"$scratch/make.log" 2>&1 ||
        { tail -30 "$scratch/make.log"; echo "check-deb: make deb failed" >&2; exit 1; }
echo "make deb: ${SECONDS}s"
grep -qi cmocka "$scratch/build/CMakeCache.txt" && err "the package build looked for cmocka (PERFGATE_TESTS=OFF must not)"
debs=("$scratch"/src/perfgate_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || { echo "check-deb: want one perfgate_*.deb, got: ${debs[*]}" >&2; exit 1; }
deb=${debs[0]}
echo "package: ${deb##*/}"

# ---- version: the VERSION file, exactly, in the binary, control and name
got=$("$scratch/build/perfgate" --version)
[ "$got" = "perfgate $base" ] || err "tarball build: --version '$got', want 'perfgate $base'"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = perfgate ] || err "Package: $(field Package)"
[ "$(field Version)" = "$base" ] || err "Version: '$(field Version)', want '$base'"
arch=$(dpkg --print-architecture)
[ "$(field Architecture)" = "$arch" ] || err "Architecture: $(field Architecture), want $arch"
. /etc/os-release
[ "${deb##*/}" = "perfgate_${base}_${ID}${VERSION_ID}_${arch}.deb" ] || err "file name ${deb##*/}"
deps=$(field Depends)
echo "Depends: $deps"
for lib in libc6 libdw1 libelf1 libcjson1 libgit2- libcapstone libncursesw; do
        [[ $deps == *"$lib"* ]] || err "Depends lacks $lib"
done
# only the shared libraries the binary needs: no -dev package, no compiler
# (zlib1g: zlib's library package, linked for reading git objects)
for d in ${deps//,/ }; do
        [[ $d == lib* || $d == zlib1g || $d == \(* || $d == *\) ]] || err "Depends names a non-library '$d'"
        [[ $d == *-dev* ]] && err "Depends names a -dev package '$d'"
done
[ -n "$(field Maintainer)" ] && [ -n "$(field Description)" ] || err "Maintainer or Description missing"

# ---- contents
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$scratch/files"
cmds=$("$scratch/build/perfgate" help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
want="/usr/bin/perfgate /usr/share/man/man1/perfgate.1.gz
/usr/share/bash-completion/completions/perfgate
/usr/share/doc/perfgate/copyright /usr/share/doc/perfgate/changelog.gz /usr/share/doc/perfgate/README.md
/usr/share/perfgate/ci/github/action.yml /usr/share/perfgate/ci/gitlab/perfgate.gitlab-ci.yml
/usr/share/perfgate/ci/perfgate-ci.sh /usr/share/perfgate/ci/install-deps.sh
/usr/share/perfgate/ci/install-perfgate.sh"
for c in $cmds; do want="$want /usr/share/man/man1/perfgate-$c.1.gz /usr/share/doc/perfgate/$c.md"; done
for f in $want; do grep -qx -- "$f" "$scratch/files" || err "the package lacks $f"; done
grep -v '^/usr/' "$scratch/files" | grep -vx '/' && err "files outside /usr"
grep -q '^/usr/local' "$scratch/files" && err "files under /usr/local"
# the one header is the region-of-interest markers benchmarks include
# (/usr/include/perfgate.h, docs/run.md), as valgrind ships valgrind.h
grep -qx /usr/include/perfgate.h "$scratch/files" || err "the package lacks /usr/include/perfgate.h"
grep -vx /usr/include/perfgate.h "$scratch/files" | grep -Eq '\.(c|h|o|a|cmake)$|CMakeFiles|/build' &&
        err "build files in the package: $(grep -vx /usr/include/perfgate.h "$scratch/files" | grep -E '\.(c|h|o|a|cmake)$|CMakeFiles|/build' | head -3)"

# ---- unpacked: the binary, man pages and completion at their paths
dpkg-deb -x "$deb" "$scratch/root"
got=$("$scratch/root/usr/bin/perfgate" --version)
[ "$got" = "perfgate $base" ] || err "packaged binary: --version '$got'"
file "$scratch/root/usr/bin/perfgate" | grep -q ', stripped' || err "the binary is not stripped"
"$here/check-man.sh" "$scratch/root/usr/bin/perfgate" "$scratch/root/usr/share/man" || fail=1
bash "$here/check-completion.sh" "$scratch/root/usr/bin" "$scratch/root/usr/share/bash-completion/completions/perfgate" || fail=1

# ---- ci/install-perfgate.sh finds this package by the name `make deb` gave it
mkdir -p "$scratch/rel/v$base" "$scratch/rel/v7.7.7" "$scratch/dl"
cp "$deb" "$scratch/rel/v$base/"
cp "$deb" "$scratch/rel/v7.7.7/perfgate_7.7.7_${ID}${VERSION_ID}_${arch}.deb"
inst() { PERFGATE_RELEASE_URL="file://$scratch/rel" "$src/ci/install-perfgate.sh" "$@"; }
got=$(inst --download "$scratch/dl" "v$base" 2>"$scratch/inst.err")
st=$?
[ $st = 0 ] && [ "$got" = "$scratch/dl/${deb##*/}" ] && cmp -s "$got" "$deb" ||
        err "install-perfgate.sh --download v$base: exit $st, '$got' $(cat "$scratch/inst.err")"
inst --download "$scratch/dl" 9.9.9 2>"$scratch/inst.err"
st=$?
[ $st = 1 ] && grep -q "no release package file://$scratch/rel/v9.9.9/perfgate_9.9.9_${ID}${VERSION_ID}_${arch}.deb" "$scratch/inst.err" ||
        err "install-perfgate.sh without the asset: exit $st (want 1: build from source), $(cat "$scratch/inst.err")"
inst --download "$scratch/dl" 7.7.7 2>"$scratch/inst.err"
st=$?
[ $st = 4 ] && grep -q "is not perfgate 7.7.7" "$scratch/inst.err" ||
        err "install-perfgate.sh with another version's package: exit $st (want 4), $(cat "$scratch/inst.err")"
# a user who is not root and has no password-less sudo (a self-hosted
# runner's): exit 4 before apt-get, saying what to do instead
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        cp "$src/ci/install-perfgate.sh" "$scratch/inst.sh"
        chmod 755 "$scratch" "$scratch/inst.sh" "$scratch/rel" "$scratch/rel/v$base"
        chmod 644 "$scratch/rel/v$base/"*
        setpriv --reuid 65534 --regid 65534 --clear-groups env -i PATH=/usr/bin:/bin TMPDIR=/tmp \
                HOME=/tmp PERFGATE_RELEASE_URL="file://$scratch/rel" sh "$scratch/inst.sh" "v$base" \
                >/dev/null 2>"$scratch/inst.err"
        st=$?
        [ $st = 4 ] && grep -q "needs root or password-less sudo.*sudo ci/install-perfgate.sh $base" \
                "$scratch/inst.err" ||
                err "install-perfgate.sh as a user without sudo: exit $st (want 4), $(cat "$scratch/inst.err")"
fi
for bad in "" "latest" "--download"; do
        inst "$bad" >/dev/null 2>&1
        st=$?
        [ $st = 2 ] || err "install-perfgate.sh '$bad': exit $st, want 2"
done

# ---- lintian: no errors, no warnings
if command -v lintian >/dev/null 2>&1; then
        lintian --fail-on error,warning "$deb" >"$scratch/lintian" 2>&1
        st=$?
        grep -v 'running with root privileges' "$scratch/lintian"
        [ $st = 0 ] || err "lintian (exit $st)"
        echo "lintian: exit $st"
else
        echo "check-deb: lintian not installed, not run (ci/install-deps.sh test installs it)"
fi

# ---- git archive: export-subst gives the tarball the exact version
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        sha=$(git -C "$src" rev-parse --short=7 HEAD)
        if d=$(git -C "$src" describe --tags --long --match 'v[0-9]*' HEAD 2>/dev/null); then
                n=${d%-g*}; n=${n##*-}; t=${d%-*-g*}; t=${t#v}
                if [ "$n" = 0 ]; then want_v=$t; else want_v="$t+$n.g$sha"; fi
        else
                want_v="$(cat "$src/VERSION")+g$sha"
        fi
        mkdir "$scratch/arch"
        git -C "$src" archive HEAD VERSION packaging | tar -x -C "$scratch/arch"
        got=$(cmake -DSRC="$scratch/arch" -P "$src/packaging/version.cmake")
        [ "$got" = "$want_v" ] || err "git archive of HEAD: version '$got', want '$want_v'"
fi
[ $fail = 0 ] && echo "check-deb: ${deb##*/} ok"
exit $fail
