#!/usr/bin/env bash
# fresh-deb.sh FRESH_MACHINE - the Debian package on a brand-new Debian 12
# root. FRESH_MACHINE is a tool run as `FRESH_MACHINE REPO -- COMMAND` that
# clones REPO's committed HEAD into a minimal new root and runs COMMAND
# there (apt, git, make and sudo only); this script then runs itself inside
# with --inside:
#   1. `make deb` (ci/install-deps.sh deb installs what it needs), then every
#      package the build installed is purged again;
#   2. `apt install ./perfgate_*.deb` installs perfgate and runtime libraries
#      only (no -dev package, no compiler, no build tool);
#   3. perfgate --version (exactly the package's version), man -w
#      perfgate-compare, the man pages and bash completion checks
#      (check-man.sh, check-completion.sh, the completion found by
#      bash-completion's loader), perfgate doctor (exit 0);
#   4. purging perfgate and the libraries it pulled in leaves the file
#      system as it was before (every path outside /proc, /sys, /dev, /run,
#      /tmp, /root and apt/dpkg's own state and caches);
#   5. the same package installed the way the GitHub action does
#      (ci/install-perfgate.sh from a file:// release), and purged.
# Exit status: the inside run's (0 all passed); 2 usage.
set -u
if [ "${1:-}" != --inside ]; then
        tool=${1:?usage: fresh-deb.sh FRESH_MACHINE}
        here=$(cd "$(dirname "$0")" && pwd)
        repo=$(git -C "$here" rev-parse --show-toplevel) || exit 2
        SECONDS=0
        "$tool" "$repo" -- 'bash tests/pkg/fresh-deb.sh --inside'
        st=$?
        echo "fresh-deb: exit $st after ${SECONDS}s (root creation, installs and build included)"
        exit $st
fi

set -eo pipefail
export DEBIAN_FRONTEND=noninteractive
fail=0
err() { echo "fresh-deb: FAIL: $*" >&2; fail=1; }
say() { echo "== $* (${SECONDS}s)"; }
pkgs() { dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | sed -n 's/^ii  *//p' | sort; }
snap() {
        find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
                -o -path /var/tmp -o -path /root -o -path /var/cache -o -path /var/log \
                -o -path /var/lib/apt -o -path /var/lib/dpkg \) -prune -o -print | sort
}
purge() { # PACKAGE... and whatever only they needed
        apt-get purge -y -qq "$@" >/dev/null
        apt-get autoremove --purge -y -qq >/dev/null
}
SECONDS=0

say "tools a user has: man-db, bash-completion, curl"
apt-get update -qq
apt-get install -y -qq --no-install-recommends man-db bash-completion curl >/dev/null
pkgs >/tmp/pkgs0

say "make deb (log: /tmp/make-deb.log)"
make deb >/tmp/make-deb.log 2>&1 || { tail -40 /tmp/make-deb.log; exit 1; }
grep '^built ' /tmp/make-deb.log
deb=$(ls perfgate_*.deb)
ver=$(dpkg-deb -f "$deb" Version)
mv "$deb" /tmp/
deb=/tmp/$deb
build_pkgs=$(comm -13 /tmp/pkgs0 <(pkgs))
say "purging the $(echo "$build_pkgs" | wc -w) packages the build installed"
# shellcheck disable=SC2086 # package names
purge $build_pkgs
pkgs >/tmp/pkgs1
cmp -s /tmp/pkgs0 /tmp/pkgs1 || err "the build packages are not all gone: $(comm -3 /tmp/pkgs0 /tmp/pkgs1 | tr '\n' ' ')"
snap >/tmp/snap0

say "apt install ./${deb##*/}"
(cd /tmp && apt-get install -y -qq --no-install-recommends "./${deb##*/}" >/dev/null)
new=$(comm -13 /tmp/pkgs1 <(pkgs))
echo "installed: ${new//$'\n'/ }"
for p in $new; do
        case $p in
        perfgate) ;;
        *-dev | *-dev:* | gcc* | cpp* | cmake* | make | pkg-config | pkgconf*) err "apt pulled in a build package: $p" ;;
        lib*) ;;
        *) err "apt pulled in a package that is not a library: $p" ;;
        esac
done

say "perfgate --version"
got=$(perfgate --version)
echo "$got"
[ "$got" = "perfgate $ver" ] || err "perfgate --version: '$got', package version $ver"
say "man -w perfgate-compare"
got=$(man -w perfgate-compare) || true
echo "$got"
[ "$got" = /usr/share/man/man1/perfgate-compare.1.gz ] || err "man -w perfgate-compare: '$got'"
sh tests/pkg/check-man.sh /usr/bin/perfgate /usr/share/man || fail=1
say "bash completion"
# shellcheck disable=SC2016 # for the inner bash
got=$(bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader perfgate; complete -p perfgate' 2>&1) || true
echo "bash-completion's loader: $got"
[ "$got" = "complete -F _perfgate perfgate" ] || err "bash-completion does not load perfgate's completion"
# shellcheck disable=SC2016
got=$(bash -c 'COMP_WORDS=(perfgate comp); COMP_CWORD=1; . /usr/share/bash-completion/completions/perfgate; _perfgate perfgate comp perfgate; echo "${COMPREPLY[*]}"')
echo "perfgate comp<TAB> -> $got"
[ "$got" = compare ] || err "perfgate comp<TAB>: '$got'"
bash tests/pkg/check-completion.sh /usr/bin /usr/share/bash-completion/completions/perfgate || fail=1
say "perfgate doctor"
st=0
perfgate doctor >/tmp/doctor.txt 2>&1 || st=$?
tail -5 /tmp/doctor.txt
[ $st = 0 ] || err "perfgate doctor: exit $st"

say "apt purge perfgate"
purge perfgate
dpkg-query -W perfgate >/dev/null 2>&1 && err "perfgate is still known to dpkg"
cmp -s /tmp/pkgs1 <(pkgs) || err "packages differ after the purge: $(comm -3 /tmp/pkgs1 <(pkgs) | tr '\n' ' ')"
snap >/tmp/snap1
if ! cmp -s /tmp/snap0 /tmp/snap1; then
        err "the purge left the file system changed:"
        diff /tmp/snap0 /tmp/snap1 | head -20 >&2
fi
left=$(find / -xdev -path /proc -prune -o -path /root/project -prune -o -path /tmp -prune -o -name '*perfgate*' -print)
if [ -z "$left" ]; then echo "nothing named perfgate left outside the clone"; else err "left behind: $left"; fi

say "ci/install-perfgate.sh $ver (the action's way) from a file:// release"
mkdir -p "/tmp/rel/v$ver"
cp "$deb" "/tmp/rel/v$ver/"
got=$(PERFGATE_RELEASE_URL=file:///tmp/rel ci/install-perfgate.sh "$ver")
echo "install-perfgate.sh -> $got: $("$got" --version)"
[ "$got" = /usr/bin/perfgate ] || err "install-perfgate.sh printed '$got'"
purge perfgate
snap >/tmp/snap2
cmp -s /tmp/snap0 /tmp/snap2 || err "install-perfgate.sh + purge left the file system changed"

[ $fail = 0 ] && say "fresh-deb: all checks passed"
exit $fail
