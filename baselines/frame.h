/*
 * frame.h - the annotations of a frame in a folded stack, as Brendan
 * Gregg's stackcollapse-perf.pl writes them (--kernel, --jit, --inline) and
 * flamegraph.pl colours them: "_[k]" a kernel frame, "_[i]" an inlined one,
 * "_[j]" JIT code; no suffix for any other frame. The one place that knows
 * the spelling: the folders write it (runner/fold.h), `show` and the flame
 * graphs read it.
 */
#ifndef PG_BASELINES_FRAME_H
#define PG_BASELINES_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hashmap.h"

enum pg_frame_kind {
        PG_FRAME_USER = 0, /* no annotation */
        PG_FRAME_KERNEL,   /* "_[k]" */
        PG_FRAME_INLINED,  /* "_[i]" */
        PG_FRAME_JIT       /* "_[j]" */
};

/** The suffix written after a frame of @kind ("" for PG_FRAME_USER); static. */
const char *pg_frame_suffix(enum pg_frame_kind kind);

/**
 * The kind of the frame name @name (@len bytes, not NUL-terminated) from its
 * suffix, into *kind; returns the length of the name without it (@len when
 * it has none).
 */
size_t pg_frame_strip(const char *name, size_t len, enum pg_frame_kind *kind);

/** Whether frame @s (@len bytes, not NUL-terminated) ends in the inlined
 * annotation "_[i]" (pg_frame_suffix(PG_FRAME_INLINED)). */
bool pg_frame_is_inlined(const char *s, size_t len);

/**
 * The frame of folded @stack (@len bytes, root first, the comm frame first)
 * that a sample of that stack counts as "self" for: the innermost frame that
 * is not an inlined one ("_[i]"), i.e. the function whose machine code the
 * sampled address lies in, as perf report --no-children charges Self to the
 * symbol (tools/perf/util/hist.c; inlined functions appear only in call
 * chains, perf report --inline). Kernel ("_[k]") and JIT ("_[j]") frames are
 * functions of their own. When every frame after the comm is inlined, the
 * leaf. Returns the frame's offset in @stack and its length (suffix
 * included) in *@frame_len; a stack without ';' is its own leaf.
 */
size_t pg_frame_self(const char *stack, size_t len, size_t *frame_len);

/* Bytes of Go's cgo hash in a wrapper name: "_cgo_" 12 hex digits "_". */
#define PG_FRAME_CGO_HASH 13

/**
 * The comparison key of frame @name (@len bytes, not NUL-terminated): the
 * one rule by which a frame of a base profile is the same function as one of
 * head (hotspots, paired hotspot confirmation, differential flame graphs):
 *  - without the inlined annotation "_[i]": a function inlined on one side
 *    and not on the other is one function (inlining decisions change
 *    whenever a function grows or shrinks);
 *  - a cgo wrapper "_cgo_<12 hex digits>_<rest>" as "_cgo_<rest>": cmd/cgo
 *    names the C side of a cgo call "_cgo" + cPrefix + n.Mangle, where
 *    cPrefix is "_" and the first 6 bytes of a SHA-256 of the cgo input
 *    files in hex (go/src/cmd/cgo/main.go; the wrapper is written in
 *    cmd/cgo/out.go, writeOutputFunc()), so any edit to a Go file with
 *    import "C" renames every wrapper of its package.
 * Kernel ("_[k]") and JIT ("_[j]") annotations stay part of the key.
 * Returns the key: @name itself (its first *key_len bytes) when only the
 * annotation goes, else @buf (room for @len bytes) holding it.
 */
const char *pg_frame_key(const char *name, size_t len, char *buf, size_t *key_len);

/** Whether frames @a and @b (not NUL-terminated) have the same pg_frame_key(). */
bool pg_frame_same(const char *a, size_t alen, const char *b, size_t blen);

/*
 * Which frames of two profiles (side 0 the base, side 1 head) the comparison
 * key may pair (docs/compare.md, Hotspots; docs/diff.md). pg_frame_key()
 * leaves out the hash of a cgo wrapper so that a wrapper renamed by an edit
 * of its package is one function across the two builds; but two cgo
 * packages that call a C function of one name (C.free is in every one) have
 * two wrappers of one key in the SAME profile, which must stay two
 * functions. The rule, over the cgo wrapper names of both profiles (without
 * "_[i]"):
 *  - a name present on both sides keys by itself;
 *  - a name on one side only keys by pg_frame_key() when its key has exactly
 *    one such name on each side (the wrapper renamed), else by itself.
 * So two names present in one profile never share a key. Frames that are no
 * cgo wrapper key by pg_frame_key() (their name without "_[i]").
 * Use: zero-initialise (PG_FRAME_PAIRING_INIT), pg_frame_pairing_add_stack()
 * every stack of both profiles (or pg_frame_pairing_add() every frame), then
 * pg_frame_pairing_finish(); look up with pg_frame_pair_key() /
 * pg_frame_pair_same(); pg_frame_pairing_release().
 */
struct pg_frame_pairing {
        struct pg_strmap names; /* cgo wrapper names, without "_[i]" */
        uint8_t *flags;         /* per name: 1 in base, 2 in head, 4 keys by pg_frame_key() */
        size_t cap;
};

#define PG_FRAME_PAIRING_INIT                                                                      \
        {                                                                                          \
                PG_STRMAP_INIT, NULL, 0                                                            \
        }

/** Note frame @name (@len bytes, not NUL-terminated) as present on @side (0 or 1). */
void pg_frame_pairing_add(struct pg_frame_pairing *fp, int side, const char *name, size_t len);

/** pg_frame_pairing_add() of every frame of folded stack @stack (@len bytes;
 * its first frame, the comm, included: it is no cgo wrapper). */
void pg_frame_pairing_add_stack(struct pg_frame_pairing *fp, int side, const char *stack,
                                size_t len);

/** Decide, once every frame of both sides was added, which names pair by key. */
void pg_frame_pairing_finish(struct pg_frame_pairing *fp);

/**
 * The comparison key of frame @name (@len bytes) under @fp: pg_frame_key()
 * for a frame that is no cgo wrapper or one that @fp pairs; the name
 * without "_[i]" for any other cgo wrapper (one never added included). @fp
 * NULL: pg_frame_key(). Same return and @buf contract as pg_frame_key().
 */
const char *pg_frame_pair_key(const struct pg_frame_pairing *fp, const char *name, size_t len,
                              char *buf, size_t *key_len);

/** Whether frames @a and @b have the same pg_frame_pair_key() under @fp
 * (@fp NULL: pg_frame_same()). */
bool pg_frame_pair_same(const struct pg_frame_pairing *fp, const char *a, size_t alen,
                        const char *b, size_t blen);

/** Free what @fp owns and leave it empty. */
void pg_frame_pairing_release(struct pg_frame_pairing *fp);

#endif
