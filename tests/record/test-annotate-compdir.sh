#!/bin/bash
# test-annotate-compdir.sh CC... - `perfgate annotate` finds a source file
# the line table names by a relative path (`cc -g src/hotline.c` run in the
# project directory) under its compile unit's DW_AT_comp_dir, as perf
# annotate and gdb do, when run from another directory; the order is
# --source-dir, then the compile directory, then the current directory
# (docs/annotate.md).
# shellcheck disable=SC2015  # A && B || err: err only reports
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
src=$PG_SOURCE_DIR/tests/fixtures/record/hotline.c
for cc in "$@"; do
        [ -n "$cc" ] || continue
        name=$(basename "$cc")
        proj=$tmp/$name/proj
        mkdir -p "$proj/src" "$tmp/$name/elsewhere/src" "$tmp/$name/sd/src"
        cp "$src" "$proj/src/hotline.c"
        (cd "$proj" && "$cc" -O1 -g -fno-omit-frame-pointer src/hotline.c -o hotline) ||
                { err "$name: cannot build"; continue; }
        "$pg" record -q -o "$tmp/$name/r.json" -- "$proj/hotline" 1 || { err "$name: record"; continue; }
        # from another directory, which has no src/hotline.c: found in the compile directory
        (cd "$tmp/$name/elsewhere" && "$pg" annotate "$tmp/$name/r.json" annotate_hot) \
                >"$tmp/out" 2>"$tmp/err" || err "$name: annotate: $(cat "$tmp/err")"
        grep -q 'HOT LINE' "$tmp/out" && ! grep -q 'source not found' "$tmp/out" ||
                err "$name: the compile directory's source is not shown: $(head -8 "$tmp/out")"
        # a src/hotline.c in the current directory: the compile directory's comes first
        sed 's/HOT LINE/CWD COPY/' "$src" >"$tmp/$name/elsewhere/src/hotline.c"
        (cd "$tmp/$name/elsewhere" && "$pg" annotate "$tmp/$name/r.json" annotate_hot) >"$tmp/out" 2>&1
        grep -q 'HOT LINE' "$tmp/out" && ! grep -q 'CWD COPY' "$tmp/out" ||
                err "$name: the current directory's copy was read before the compile directory's"
        # --source-dir comes before both
        sed 's/HOT LINE/SOURCE DIR/' "$src" >"$tmp/$name/sd/src/hotline.c"
        (cd "$tmp/$name/elsewhere" &&
                "$pg" annotate --source-dir "$tmp/$name/sd" "$tmp/$name/r.json" annotate_hot) >"$tmp/out" 2>&1
        grep -q 'SOURCE DIR' "$tmp/out" || err "$name: --source-dir is not looked at first"
        # the compile directory gone: the current directory's copy, when the
        # line table's path is relative (gcc: directory entry "src"; clang
        # names src/hotline.c under directory 0, the compile directory, which
        # libdw joins into an absolute path)
        mv "$proj/src/hotline.c" "$proj/src/hotline.c.gone"
        (cd "$tmp/$name/elsewhere" && "$pg" annotate "$tmp/$name/r.json" annotate_hot) >"$tmp/out" 2>&1
        if readelf --debug-dump=line "$proj/hotline" | grep -qE '[[:space:]]src$'; then
                how="relative"
                grep -q 'CWD COPY' "$tmp/out" || err "$name: the current directory is not looked at last"
        else
                how="absolute"
                grep -q 'source not found' "$tmp/out" || err "$name: $(head -6 "$tmp/out")"
        fi
        [ $fail = 0 ] && echo "ok: $name: the source is found ($how path in the line table)"
done
exit $fail
