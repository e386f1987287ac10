#!/bin/bash
# test-lazy-libdw.sh BUSY - elfutils' libdw and libelf are loaded when first
# used (runner/libdw.h), not at start-up: only symbolization, annotate and
# doctor read ELF and DWARF.
#  1. The benchmark of a `run --no-profile` reads the memory maps of the
#     processes above it (perfgate's spawner and perfgate, told by their
#     names) while it runs: each maps perfgate's linked libraries (libcjson)
#     and neither libdw, libelf nor zlib (baselines/repostate.c loads it
#     after the benchmark).
#  2. A profiled run of BUSY (a C program) still names its functions.
#  3. With an empty file named as each soname first on LD_LIBRARY_PATH
#     (dlopen(3) fails "file too short"): `run --no-profile` works; a profiled
#     run still counts, warns that it stored no profile and names the library
#     and the Debian package; annotate exits 4 saying the same; doctor exits
#     0 with the libdw check and the binary check missing.
# Waits are bounded, never timed.
busy=$1
. "$(dirname "$0")/lib.sh"
# A sanitizer build links libdw and libelf (CMakeLists.txt: LeakSanitizer
# crashes scanning a dlopen()ed library's dynamic TLS), so nothing here holds
if ldd "$pg" | grep -q libasan; then echo "skip: a sanitizer build links libdw"; exit 77; fi
cd "$tmp" || exit 1

cat >maps.sh <<'EOF'
#!/bin/bash
# each ancestor whose name starts with perfgate: "== NAME" then its mapped files
pid=$PPID
for _ in 1 2 3 4; do
        [ "$pid" -gt 1 ] 2>/dev/null || break
        comm=$(cat "/proc/$pid/comm")
        case $comm in perfgate*) echo "== $comm"; awk '$6 ~ /^\// { print $6 }' "/proc/$pid/maps" | sort -u ;; esac
        pid=$(awk '{ print $4 }' "/proc/$pid/stat")
done >"$MAPS_OUT"
EOF
chmod +x maps.sh
printf '{"benchmarks": [{"name": "maps", "argv": ["%s"]}]}\n' "$tmp/maps.sh" >maps.json
printf '{"benchmarks": [{"name": "busy", "argv": ["%s", "300"]}]}\n' "$busy" >busy.json

# 1. nothing of elfutils mapped while the benchmark of a --no-profile run runs
MAPS_OUT=$tmp/maps.out "$pg" run -q --repeat 1 --warmup 0 --no-profile --out o1 maps.json 2>run1.err ||
        err "run --no-profile: $(cat run1.err)"
for name in perfgate-spawn perfgate; do
        sed -n "/^== $name\$/,/^== /p" maps.out | grep -v '^== ' >"maps.$name"
        if ! grep -q . "maps.$name"; then
                err "the benchmark found no ancestor named $name: $(cat maps.out)"
        elif ! grep -q '/libcjson\.so' "maps.$name"; then
                err "$name's maps do not show its linked libcjson (not its maps?): $(cat "maps.$name")"
        elif grep -E '/lib(dw|elf|z)[-.]' "maps.$name"; then
                err "$name maps libdw, libelf or libz before the benchmark of a --no-profile run"
        else
                echo "ok: $name maps $(wc -l <"maps.$name") files before the benchmark, libcjson but not libdw, libelf or libz"
        fi
done

# 2. a profiled run loads them and names the functions
"$pg" run -q --repeat 1 --warmup 0 --counters software --freq 999 --min-samples 1 --out o2 busy.json 2>run2.err ||
        err "profiled run: $(cat run2.err)"
grep -q 'busy_loop\|"main' o2/busy.json 2>/dev/null && echo "ok: a profiled run names the benchmark's functions" ||
        err "profiled run: no function of busy in o2/busy.json: $(ls o2; cat run2.err)"

# 3. without them
for broken in libdw.so.1 libelf.so.1; do
        rm -rf broken && mkdir broken && : >"broken/$broken"
        export LD_LIBRARY_PATH=$tmp/broken
        "$pg" run -q --repeat 1 --warmup 0 --no-profile --out o3 busy.json 2>run3.err &&
                [ -s o3/busy.json ] && echo "ok: run --no-profile works without $broken" ||
                err "run --no-profile without $broken: $(cat run3.err)"
        "$pg" run -q --repeat 1 --warmup 0 --counters software --freq 999 --min-samples 1 --out o4 busy.json 2>run4.err
        rc=$?
        if [ $rc -eq 0 ] && [ -s o4/busy.json ] && grep -q "no profile stored: cannot load $broken" run4.err &&
                grep -q 'apt-get install libdw1 libelf1' run4.err; then
                echo "ok: a profiled run without $broken counts and says: $(grep 'no profile' run4.err)"
        else
                err "profiled run without $broken: exit $rc: $(cat run4.err)"
        fi
        "$pg" annotate o2/busy.json main >ann.out 2>ann.err
        rc=$?
        [ $rc -eq 4 ] && grep -q "cannot load $broken" ann.err && grep -q 'apt-get install libdw1' ann.err &&
                echo "ok: annotate without $broken exits 4: $(cat ann.err)" ||
                err "annotate without $broken: exit $rc: $(cat ann.out ann.err)"
        "$pg" doctor "$busy" >doc.out 2>&1
        rc=$?
        [ $rc -eq 0 ] && grep -q "^missing libdw: cannot load $broken" doc.out &&
                grep -q "^missing binary:$busy: cannot inspect: libdw is not loaded" doc.out &&
                echo "ok: doctor without $broken reports it" ||
                err "doctor without $broken: exit $rc: $(cat doc.out)"
        unset LD_LIBRARY_PATH
done
"$pg" doctor "$busy" >doc.out 2>&1
grep -q '^ok *libdw: libdw\.so\.1 and libelf\.so\.1' doc.out && echo "ok: doctor finds libdw" ||
        err "doctor with libdw: $(cat doc.out)"
exit $fail
