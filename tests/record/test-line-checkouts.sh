#!/bin/bash
# test-line-checkouts.sh - "grew most at FILE:LINE (+N pp)" when the
# baseline and the head were built in two checkouts of one project in
# different directories (self-hosted runners, a baseline saved from a
# developer's clone). One git project (cpp/geo.cpp, rs/src/main.rs) is
# cloned twice; each clone is built there (clang++ with the relative source
# name, g++ with the absolute one as CMake passes it, Debian's rustc from
# the crate's directory), run by `perfgate run` from inside it, and the two
# results compared. Oracles: the line keys of both results are relative to
# the project's root (cpp/geo.cpp:N, rs/src/main.rs:N, never the clone's
# path), and the change compare prints for the line equals the difference
# of the line's two shares computed from the results (the line's samples
# over all samples of each side). A baseline written with absolute keys
# (by an older perfgate) gives the same change. A missing compiler skips
# its part (exit 77 when all are missing: ci/install-deps.sh lists them).
# shellcheck disable=SC2015  # A && B || err: err only reports
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
ran=0
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

src=$tmp/src
mkdir -p "$src/cpp" "$src/rs/src"
cat >"$src/cpp/geo.cpp" <<'CPP'
#include <cstdlib>
namespace geo {
__attribute__((noinline)) double smooth(const double *v, long n, long passes)
{
        double s = 0;
        for (long p = 0; p < passes; p++)
                for (long i = 1; i + 1 < n; i++)
                        s += (v[i - 1] + 2 * v[i] + v[i + 1]) * 0.25; // SMOOTH LINE
        return s;
}
__attribute__((noinline)) double other(const double *v, long n)
{
        double s = 1;
        for (long r = 0; r < 40; r++)
                for (long i = 0; i < n; i++)
                        s = s * 0.999 + v[i] / (s + 1.5);
        return s;
}
} // namespace geo
int main(int argc, char **argv)
{
        long n = 200000, passes = argc > 1 ? atol(argv[1]) : 30;
        double *v = new double[n];
        for (long i = 0; i < n; i++)
                v[i] = (double) (i % 97);
        double s = geo::smooth(v, n, passes) + geo::other(v, n);
        delete[] v;
        return s == 42.0;
}
CPP
cat >"$src/rs/src/main.rs" <<'RS'
#[inline(never)]
fn mix(v: &[u64], passes: u64) -> u64 {
    let mut h = 0u64;
    for _ in 0..passes {
        for x in v {
            h = (h ^ x).wrapping_mul(0x100000001b3).rotate_left(7); // MIX LINE
        }
    }
    h
}
#[inline(never)]
fn other(v: &[u64]) -> u64 {
    let mut s = 1u64;
    for _ in 0..40 {
        for x in v {
            s = s.wrapping_mul(31).wrapping_add(x / (s % 7 + 1));
        }
    }
    s
}
fn main() {
    let passes: u64 = std::env::args().nth(1).map_or(30, |a| a.parse().unwrap());
    let v: Vec<u64> = (0..200000u64).map(|i| i % 97).collect();
    std::process::exit((mix(&v, passes) ^ other(&v) == 42) as i32);
}
RS
printf '{"benchmarks": [{"name": "b", "argv": ["../bin/b", "%s"]}]}\n' 30 >"$src/bench.json"
git -C "$src" init -q && git -C "$src" add -A && git -C "$src" commit -qm p || { err "git"; exit 1; }
git clone -q "$src" "$tmp/base-checkout" && git clone -q "$src" "$tmp/ci/_work/head" || { err "clone"; exit 1; }

# check NAME FUNCTION FILE MARK BUILD: build in both clones with BUILD (run
# in the clone), run there (head with more passes), compare, assert
check() {
        local name=$1 fn=$2 file=$3 mark=$4 build=$5 line rep d
        line=$(grep -n "$mark" "$src/$file" | cut -d: -f1)
        for d in "$tmp/base-checkout" "$tmp/ci/_work/head"; do
                mkdir -p "$d/bin" "$d/m"
                (cd "$d" && eval "$build") >"$d/build.log" 2>&1 || { err "$name: build: $(cat "$d/build.log")"; return; }
        done
        printf '{"benchmarks": [{"name": "b", "argv": ["../bin/b", "30"]}]}\n' >"$tmp/base-checkout/m/perfgate.json"
        printf '{"benchmarks": [{"name": "b", "argv": ["../bin/b", "90"]}]}\n' >"$tmp/ci/_work/head/m/perfgate.json"
        (cd "$tmp/base-checkout" && "$pg" run -q --repeat 3 --warmup 0 --out "$tmp/$name-base" m) 2>/dev/null ||
                { err "$name: run base"; return; }
        (cd "$tmp/ci/_work/head" && "$pg" run -q --repeat 3 --warmup 0 --out "$tmp/$name-head" m) 2>/dev/null ||
                { err "$name: run head"; return; }
        for d in "$tmp/$name-base" "$tmp/$name-head"; do
                grep -q "\"$file:$line\"" "$d/b.json" || err "$name: $d/b.json has no key $file:$line"
                grep -o "\"[^\"]*$(basename "$file"):[0-9]*\"" "$d/b.json" | grep -v "\"$file:" &&
                        err "$name: a key of $(basename "$file") not relative to the project's root"
        done
        want=$(python3 - "$tmp/$name-base/b.json" "$tmp/$name-head/b.json" "$fn" "$file:$line" <<'PY'
import json, sys
# samples inlined from another file count for their call site (compare's
# rule, docs/compare.md)
def share(path, fn, key):
    p = json.load(open(path))['profile']
    total = sum(p['stacks'].values())
    n = 0
    for e in p['addresses']:
        if e['function'] != fn:
            continue
        n += e.get('lines', {}).get(key, 0)
        for i in e.get('inlined', []):
            n += i['samples'] * ((i['site'] == key) - (i['line'] == key))
    return 100.0 * n / total
print('%+.2f' % (share(sys.argv[2], sys.argv[3], sys.argv[4]) - share(sys.argv[1], sys.argv[3], sys.argv[4])))
PY
)
        (cd "$tmp/ci/_work/head" && "$pg" compare --results "$tmp/$name-head" "$tmp/$name-base") >"$tmp/$name.txt" 2>&1
        rep=$(grep 'grew most at' "$tmp/$name.txt" | head -1)
        echo "$name: $rep (shares from the results: $want pp)"
        case $rep in
        *"grew most at $file:$line ($want pp"*) ;;
        *) err "$name: compare does not name $file:$line with $want pp"; cat "$tmp/$name.txt" >&2 ;;
        esac
        # a baseline written with the clone's absolute paths (an older
        # perfgate) meets the head's relative keys line for line
        python3 - "$tmp/$name-base/b.json" "$tmp/base-checkout/" >"$tmp/$name-old.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in r['profile']['addresses']:
    if 'lines' in e:
        e['lines'] = {(k if k.startswith('/') else sys.argv[2] + k): v for k, v in e['lines'].items()}
    for i in e.get('inlined', []):
        for f in ('site', 'line'):
            if not i[f].startswith('/'):
                i[f] = sys.argv[2] + i[f]
json.dump(r, sys.stdout)
PY
        mkdir -p "$tmp/$name-old" && mv "$tmp/$name-old.json" "$tmp/$name-old/b.json"
        grep -q "\"$tmp/base-checkout/$file:$line\"" "$tmp/$name-old/b.json" || err "$name: old-style baseline not written"
        (cd "$tmp/ci/_work/head" && "$pg" compare --results "$tmp/$name-head" "$tmp/$name-old") >"$tmp/$name-old.txt" 2>&1
        grep -qF "grew most at $file:$line ($want pp" "$tmp/$name-old.txt" ||
                { err "$name: against an absolute-keyed baseline"; cat "$tmp/$name-old.txt" >&2; }
        ran=$((ran + 1))
}

if command -v clang++ >/dev/null; then
        check clang 'geo::smooth' cpp/geo.cpp 'SMOOTH LINE' \
                'clang++ -O2 -g -fno-omit-frame-pointer -o bin/b cpp/geo.cpp'
else
        echo "skipped clang++: not installed (apt-get install clang)"
fi
if command -v g++ >/dev/null; then
        # shellcheck disable=SC2016  # $PWD expands in the clone (eval)
        check gcc 'geo::smooth' cpp/geo.cpp 'SMOOTH LINE' \
                'g++ -O2 -g -fno-omit-frame-pointer -o bin/b "$PWD/cpp/geo.cpp"'
else
        echo "skipped g++: not installed (apt-get install g++)"
fi
if [ -x /usr/bin/rustc ]; then
        check rust 'main::mix' rs/src/main.rs 'MIX LINE' \
                '(cd rs && /usr/bin/rustc -O -g -C force-frame-pointers=yes -o ../bin/b src/main.rs)'
else
        echo "skipped Rust: no /usr/bin/rustc (apt-get install rustc)"
fi
[ "$ran" -gt 0 ] || exit 77
exit "$fail"
