#!/bin/bash
# test-user-messages.sh - two messages a new user meets, with real builds:
#   - a perfgate.json whose argv[0] does not exist: the error says that
#     argv[0] is relative to perfgate.json's directory (and names it), the
#     usual mistake being a path written relative to the working directory;
#     exit 2 (docs/run.md);
#   - doctor on a binary built by Debian's rustc with frame pointers: the
#     precompiled standard library has none, so frame-pointer chains stop
#     in its runtime (perf record -g shows __libc_start_call_main >
#     std::rt::lang_start_internal, without main and std::rt::lang_start):
#     doctor says where they stop instead of "reach main". A C binary built
#     with frame pointers still reads "reach main". Missing compilers skip
#     their part (exit 77 when both are missing).
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
ran=0

# ---- argv[0] relative to perfgate.json's directory
mkdir -p "$tmp/proj/bench/bin"
cp /bin/true "$tmp/proj/bench/bin/t"
printf '{"benchmarks": [{"name": "t", "argv": ["bench/bin/t"]}]}\n' >"$tmp/proj/bench/perfgate.json"
(cd "$tmp/proj" && "$pg" run -q --no-profile --repeat 1 --warmup 0 --out "$tmp/r" bench/perfgate.json) \
        >"$tmp/argv.out" 2>"$tmp/argv.err"
st=$?
[ "$st" = 2 ] || err "argv: exit $st, not 2"
grep -q "benchmark path 'bench/bench/bin/t' does not exist" "$tmp/argv.err" || err "argv: $(cat "$tmp/argv.err")"
grep -qF "argv[0] is relative to the directory of perfgate.json ('$tmp/proj/bench/')" "$tmp/argv.err" ||
        err "argv: no hint: $(cat "$tmp/argv.err")"
echo "argv: $(cat "$tmp/argv.err")"
# written relative to perfgate.json, it runs
printf '{"benchmarks": [{"name": "t", "argv": ["bin/t"]}]}\n' >"$tmp/proj/bench/perfgate.json"
(cd "$tmp/proj" && "$pg" run -q --no-profile --repeat 1 --warmup 0 --out "$tmp/r" bench/perfgate.json) \
        >/dev/null 2>"$tmp/argv2.err" || err "argv relative to perfgate.json: $(cat "$tmp/argv2.err")"

# ---- doctor's frame-pointer line
if [ -x /usr/bin/rustc ]; then
        printf '#[inline(never)]\nfn work(n: u64) -> u64 { (0..n).fold(0, |a, x| a ^ x.wrapping_mul(31)) }\nfn main() { std::process::exit((work(1000) == 7) as i32); }\n' >"$tmp/r.rs"
        /usr/bin/rustc -O -g -C force-frame-pointers=yes -o "$tmp/rbin" "$tmp/r.rs" 2>"$tmp/rustc.log" || err "rustc: $(cat "$tmp/rustc.log")"
        "$pg" doctor "$tmp/rbin" >"$tmp/doc-rust.txt" 2>&1
        line=$(grep -A1 "rbin:frame-pointers" "$tmp/doc-rust.txt")
        echo "rust: $line"
        echo "$line" | grep -q "reach main" && err "rust: doctor says the chains reach main"
        echo "$line" | grep -qF "stop in the precompiled Rust standard library" || err "rust: doctor does not say where chains stop"
        ran=$((ran + 1))
else
        echo "skipped Rust: no /usr/bin/rustc (apt-get install rustc)"
fi
if command -v gcc >/dev/null; then
        printf 'int __attribute__((noinline)) work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }\nint main(void) { return work(1000) == 7; }\n' >"$tmp/c.c"
        gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/cbin" "$tmp/c.c" || err "gcc"
        "$pg" doctor "$tmp/cbin" >"$tmp/doc-c.txt" 2>&1
        line=$(grep -A1 "cbin:frame-pointers" "$tmp/doc-c.txt")
        echo "c: $line"
        echo "$line" | grep -q "reach main" || err "c: doctor no longer says the chains reach main"
        ran=$((ran + 1))
fi
[ "$ran" -gt 0 ] || exit 77
exit "$fail"
