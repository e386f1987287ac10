/*
 * profile.h - per-function figures of one sampled profile (folded stacks),
 * computed once for `perfgate show` (cli/print_result.c) and for the hotspot
 * comparison (compare/hotspot.h):
 *
 *  - self: samples of the stacks the function is the self frame of: the
 *    innermost frame that is not inlined ("_[i]"), so a sample in code
 *    inlined into a function counts for that function, as perf report's
 *    Self does (pg_frame_self() in baselines/frame.h); the inlined frames
 *    themselves have no self, only inclusive samples;
 *  - inclusive ("children" in perf report): samples of the stacks that
 *    contain it, each stack counted once however often the function appears
 *    in it (recursion);
 *  - the hottest stack through it: among the stacks that contain it, those
 *    it is the self frame of first, then the one with most samples (first in the
 *    profile's order on a tie);
 *  - the heaviest stack holding it: the one with most samples among those
 *    that contain it (first in the profile's order on a tie);
 *  - the hottest callee path (pg_profile_callee_path()).
 *
 * The first frame of a folded stack is the process name (comm), not a
 * function; it is skipped. Function names are compared as bytes, annotations
 * included ("f" and "f_[k]" are two functions), except by
 * pg_profile_funcs_scan_pair() (pg_frame_key()).
 *
 * Ownership: struct pg_profile_funcs owns its table; it borrows nothing from
 * the profile except through hot_stack / heavy_stack indexes.
 * pg_profile_funcs_release().
 */
#ifndef PG_COMPARE_PROFILE_H
#define PG_COMPARE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "common/buf.h"
#include "common/hashmap.h"

/* 40 bytes per function and side (a profile of a million distinct functions
 * is scanned twice by `compare`); stack indexes and key offsets are 32-bit:
 * the loader refuses profiles beyond that (baselines/result.h). */
struct pg_profile_func {
        uint64_t self;        /* samples of stacks it is the self frame of */
        uint64_t incl;        /* samples of stacks containing it (once per stack) */
        uint32_t hot_stack;   /* index in the profile's stacks of its hottest stack */
        uint32_t hot_end;     /* bytes of that stack's key up to the end of its outermost frame */
        uint32_t heavy_stack; /* the stack with most samples holding it, wherever it is in it
                                (first in the profile's order on a tie) */
        uint32_t heavy_end;   /* as hot_end, for heavy_stack */
        uint32_t last_stack;  /* stack index + 1 that last counted incl (scan only) */
        /* scan only: hot_stack's and heavy_stack's samples, PG_COUNT15_MAX for
         * that many or more (saves reading a far stack for every comparison) */
        uint16_t hot_count : 15;
        uint16_t hot_is_self : 1; /* the function is hot_stack's self frame */
        uint16_t heavy_count : 15;
};

/* The largest count pg_profile_func keeps in hot_count and heavy_count. */
#define PG_COUNT15_MAX 32767u

/** The functions of one profile; function i is names.keys[i] and funcs[i] (but see
 * pg_profile_funcs_scan_pair()). */
struct pg_profile_funcs {
        struct pg_strmap names;
        struct pg_profile_func *funcs; /* n entries */
        size_t n;                      /* names.n (of the first of a pair) */
        size_t cap;
        uint64_t total; /* samples of all stacks */
        /* pg_profile_funcs_scan_paths() only (NULL otherwise): every stack as
         * the function ids of its frames, root first, the comm frame left out;
         * stack i is ids[starts[i]] .. ids[starts[i + 1] - 1] (profile order) */
        uint32_t *ids;
        size_t *starts;
        /* pg_profile_funcs_scan_pair() only, in out[0] (NULL otherwise): which
         * cgo wrappers of the two profiles pair by key (baselines/frame.h) */
        struct pg_frame_pairing *pairing;
};

/**
 * Count the functions of @p (NULL or absent: none) into @out (overwritten).
 * Never fails; allocation failure aborts.
 */
void pg_profile_funcs_scan(struct pg_profile_funcs *out, const struct pg_profile *p);
/**
 * pg_profile_funcs_scan(), also keeping every stack as an array of function
 * ids (ids, starts: 4 bytes per frame and 8 per stack more), which
 * pg_profile_callee_path() walks without hashing a name again.
 */
void pg_profile_funcs_scan_paths(struct pg_profile_funcs *out, const struct pg_profile *p);

/**
 * pg_profile_funcs_scan() of two profiles with one name table, so a function
 * has one index on both sides; the table is keyed by pg_frame_pair_key()
 * (baselines/frame.h: "f_[i]" and "f" are one function, a cgo wrapper's hash
 * is left out where that pairs one renamed wrapper, never merging two names
 * of one profile; out[0].pairing), not by exact names: a function's name as a side spells it is
 * the frame ending at hot_end in its hot_stack. out[0].names holds the functions of @a and
 * then those only in @b; out[0].funcs and out[1].funcs both have
 * out[0].names.n entries (all zero for a function the side lacks);
 * out[1].names stays empty. Release both.
 * Self differs from pg_profile_funcs_scan()'s in one case, so that an
 * inlining decision that flipped between the two builds moves no samples
 * between functions: a sample whose leaf is inlined counts for the frame
 * pg_profile_pair_self() gives, the own-call set built from both profiles
 * (pg_profile_own_calls()). So F inlined into main in @a and a function of
 * its own called from main in @b counts F's samples for F on both sides
 * (main's own time does not fall on one side and grow on the other); code
 * inlined on both sides and never a function of its own (a
 * std::unordered_map lookup) still counts for its caller, and so does code
 * inlined into hot whose only namesake with code of its own is called from
 * elsewhere (two static helpers of two files). docs/compare.md, Hotspots.
 */
void pg_profile_funcs_scan_pair(struct pg_profile_funcs out[2], const struct pg_profile *a,
                                const struct pg_profile *b);
/**
 * Intern into @own (added to what it holds) the call sites at which a
 * function has code of its own in @p (NULL or absent: none): for every
 * frame F of a stack that is not inlined ("_[i]") and has a caller frame X
 * (the frame before it; the comm frame is no caller), the key "X;F", both
 * frames by pg_frame_pair_key() under @pair (baselines/frame.h; NULL:
 * pg_frame_key(); an inlined caller "X_[i]" is X) joined by ';'. Allocation
 * failure aborts.
 */
void pg_profile_own_calls(struct pg_strmap *own, const struct pg_frame_pairing *pair,
                          const struct pg_profile *p);

/**
 * The frame of folded stack @k (@kl bytes, comm frame first) whose self a
 * sample counts for when two profiles are compared (inlining flips, see
 * pg_profile_funcs_scan_pair()): pg_frame_self()'s frame (the innermost not
 * inlined), unless an inlined frame "F_[i]" below it, called from frame X
 * (the frame before it), has "X;F" in @own (pg_profile_own_calls() of both
 * profiles, under the same @pair: F is a function of its own at that call site in either build,
 * its inlining flipped); then the innermost such frame. The call site, not
 * the name alone, decides: another function F with code of its own called
 * from elsewhere is a namesake, not a flip. Returns the frame's offset in
 * @k and its length (suffix included) in *@len; 0 for the comm alone.
 */
size_t pg_profile_pair_self(const char *k, size_t kl, const struct pg_frame_pairing *pair,
                            const struct pg_strmap *own, size_t *len);

/** Free what @pf owns and leave it empty. */
void pg_profile_funcs_release(struct pg_profile_funcs *pf);

/**
 * The call path ending at a function's frame in stack @stack of @p, as
 * pg_profile_func's hot_stack/hot_end or heavy_stack/heavy_end give it: the
 * key's bytes up to @end, the comm frame left out ("main;parse" of
 * "app;main;parse;copy" cut after parse). A new string (free()).
 */
char *pg_profile_path_to(const struct pg_profile *p, size_t stack, size_t end);

/** Samples of all stacks of @p (0 for NULL). */
uint64_t pg_profile_total(const struct pg_profile *p);

/**
 * The hottest callee path below function @fn of @pf (scanned from @p with
 * pg_profile_funcs_scan_paths(); without its ids there is no path: 0): from
 * the function's outermost occurrence in each stack, follow the heaviest
 * next frame (samples summed over the stacks still on the path; ties: the
 * bytewise first name) while it carries at least a tenth of the function's
 * inclusive samples, at most @max_depth steps.
 * @path: room for @max_depth function indexes, the steps in order.
 * *cut: a further step was there when @max_depth was reached.
 * *weight: samples of the last step.
 * Returns the number of steps (0: no callee carries a tenth).
 */
size_t pg_profile_callee_path(const struct pg_profile_funcs *pf, const struct pg_profile *p,
                              size_t fn, size_t max_depth, size_t *path, bool *cut,
                              uint64_t *weight);

#endif
