#!/bin/bash
# test-annotate-sources.sh CC - `perfgate annotate` reads source files that
# whoever built the benchmark controls (the line table's paths, a PR's tree
# under --source-dir): a link to /dev/zero, a FIFO, and a sparse file far
# over the size limit (docs/limits.md) are not read; the hot lines are shown
# without their text, exit 0, and one warning says why. Each run is bounded
# in time and address space, so a regression fails instead of hanging or
# filling memory.
# shellcheck disable=SC2015  # A && B || err: err only reports
cc=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
src=$PG_SOURCE_DIR/tests/fixtures/record/hotline.c
hot=$(grep -n 'HOT LINE' "$src" | tail -1 | cut -d: -f1)
first_line() { awk '/^ Percent \| Source lines/{on=1; next} on && /%/ {print $3; exit}' "$1"; }
# annot NAME ARGS...: annotate, bounded (60 s, 1 GiB of address space; an
# AddressSanitizer build reserves terabytes of shadow address space, so there
# the sanitizer's own 1 GiB RSS limit bounds it instead)
asan=0
ldd "$pg" 2>/dev/null | grep -q libasan && asan=1
annot() {
        local name=$1; shift
        if [ $asan = 1 ]; then
                ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024:max_allocation_size_mb=1024" \
                        timeout 60 "$pg" annotate "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
        else
                (ulimit -v 1048576; timeout 60 "$pg" annotate "$@" >"$tmp/$name.out" 2>"$tmp/$name.err")
        fi
}

mkdir -p "$tmp/b" "$tmp/sd"
cp "$src" "$tmp/b/hotline.c"
(cd "$tmp/b" && "$cc" -O1 -g -fno-omit-frame-pointer hotline.c -o hotline) || { err "cannot build"; exit 1; }
"$pg" record -q -o "$tmp/r.json" -- "$tmp/b/hotline" 1 || { err "record"; exit 1; }
annot plain "$tmp/r.json" annotate_hot || err "annotate under the bounds: $(cat "$tmp/plain.err")"
grep -q 'HOT LINE' "$tmp/plain.out" || err "the source text is not shown"
mv "$tmp/b/hotline.c" "$tmp/hotline.c.orig"

# check NAME WHY: exit 0, the hot line first, no text, one warning saying WHY
check() {
        local st=$1 name=$2 why=$3
        [ "$st" -eq 0 ] || { err "$name: exit $st: $(head -c 400 "$tmp/$name.err")"; return; }
        [ "$(first_line "$tmp/$name.out")" = "hotline.c:$hot" ] || err "$name: hottest line: $(head -4 "$tmp/$name.out")"
        grep -q 'HOT LINE' "$tmp/$name.out" && err "$name: source text shown"
        [ "$(grep -c 'warning' "$tmp/$name.err")" -eq 1 ] && grep -q "$why" "$tmp/$name.err" ||
                err "$name: expected one warning saying '$why': $(cat "$tmp/$name.err")"
        echo "ok: $name: $(cat "$tmp/$name.err")"
}

# the file the line table names
ln -s /dev/zero "$tmp/b/hotline.c"
annot zero "$tmp/r.json" annotate_hot; check $? zero "not a regular file"
rm "$tmp/b/hotline.c"; mkfifo "$tmp/b/hotline.c"
annot fifo "$tmp/r.json" annotate_hot; check $? fifo "not a regular file"
rm "$tmp/b/hotline.c"; truncate -s 20G "$tmp/b/hotline.c"
annot sparse "$tmp/r.json" annotate_hot; check $? sparse "larger than"
rm "$tmp/b/hotline.c"

# under --source-dir (the named file is gone)
ln -s /dev/zero "$tmp/sd/hotline.c"
annot sdzero --source-dir "$tmp/sd" "$tmp/r.json" annotate_hot; check $? sdzero "not a regular file"
rm "$tmp/sd/hotline.c"; mkfifo "$tmp/sd/hotline.c"
annot sdfifo --source-dir "$tmp/sd" "$tmp/r.json" annotate_hot; check $? sdfifo "not a regular file"
rm "$tmp/sd/hotline.c"; cp "$tmp/hotline.c.orig" "$tmp/sd/hotline.c"
annot sdok --source-dir "$tmp/sd" "$tmp/r.json" annotate_hot
grep -q 'HOT LINE' "$tmp/sdok.out" && ! grep -q warning "$tmp/sdok.err" ||
        err "--source-dir with the real file: $(cat "$tmp/sdok.err")"

# a long file: the text of a line past the first few hundred is still found
mkdir -p "$tmp/long"
{ for _ in $(seq 700); do echo "/* padding */"; done; cat "$tmp/hotline.c.orig"; } >"$tmp/long/hotline.c"
(cd "$tmp/long" && "$cc" -O1 -g -fno-omit-frame-pointer hotline.c -o hotline) || err "cannot build long"
"$pg" record -q -o "$tmp/long.json" -- "$tmp/long/hotline" 1 || err "record long"
annot long "$tmp/long.json" annotate_hot
[ "$(first_line "$tmp/long.out")" = "hotline.c:$((hot + 700))" ] && grep -q 'HOT LINE' "$tmp/long.out" ||
        err "line $((hot + 700)) of a long file: $(head -4 "$tmp/long.out")"
echo "ok: long file: $(sed -n 3p "$tmp/long.out")"
exit $fail
