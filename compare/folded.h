/*
 * folded.h - reading folded-stack text (the format of stackcollapse-perf.pl
 * and `perfgate fold`): one `stack count` line per stack, frames root first
 * and separated by ';'. Also reads difffolded.pl's two-column form
 * `stack before after` (brendangregg/FlameGraph).
 *
 * Rules (documented in docs/flamegraph.md):
 *  - a line is "everything up to the last run of blanks, then a count"; a
 *    file is two-column only when EVERY counted line ends in two counts, so a
 *    frame name ending in " 123" in an ordinary file stays part of the name;
 *  - counts are decimal integers; a fractional count ("12.5") is truncated
 *    toward zero with one warning for the whole input;
 *  - blank lines are skipped silently; a trailing CR is dropped;
 *  - empty frames at the end of a stack are dropped, as flamegraph.pl's
 *    Perl split drops them ("a;" is "a"); an inner one stays (a frame
 *    without a name, as flamegraph.pl draws it);
 *  - other bad lines (no count, empty stack, a NUL byte in the stack,
 *    count too large) are skipped and reported once per kind with how many
 *    there were and the first line;
 *  - duplicate stacks are merged (counts summed) and the result is sorted
 *    frame by frame (pg_folded_key_cmp: siblings in byte order of their
 *    names, a stack before its extensions); stacks whose count is 0 are
 *    kept out.
 * The parser never prints: warnings come back as strings for cli/.
 */
#ifndef PG_COMPARE_FOLDED_H
#define PG_COMPARE_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"

struct pg_folded {
        bool two_column; /* difffolded form: "stack before after" */
        size_t nstacks;  /* one-column: the stacks; two-column: the "after" column */
        struct pg_stack *stacks;
        size_t nbefore; /* two-column only: the "before" column */
        struct pg_stack *before;
        uint64_t total;        /* sum of stacks[].count */
        uint64_t total_before; /* sum of before[].count */
        size_t nlines;         /* lines that held a stack (blank and bad lines excluded) */
        size_t nwarnings;
        char **warnings; /* "ignored 2 lines without a count (first: line 3)" */
};

/** Make @f empty. */
void pg_folded_init(struct pg_folded *f);
/** Free everything @f owns and make it empty again. */
void pg_folded_release(struct pg_folded *f);

/**
 * Parse @len bytes of folded text into @f (initialised; on error left empty).
 * @origin names the input in messages (a path, or "stdin").
 * Keys are copied as given (bytes are not re-encoded; the renderer sanitises).
 * Errors: PG_EINPUT when the counts of one column add up to more than
 * UINT64_MAX. An input without any stack is not an error here (nstacks == 0,
 * total == 0; callers decide).
 */
int pg_folded_parse(struct pg_folded *f, const char *text, size_t len, const char *origin);

/**
 * Order of folded keys frame by frame: bytes compared as unsigned with ';'
 * below every other byte, so "a;z" < "a b" < "ab" and a key comes before
 * the keys that extend it. Returns <0, 0 or >0 like strcmp. (Byte order of
 * whole keys would put "a b" before "a;z", splitting siblings.)
 */
int pg_folded_key_cmp(const char *a, size_t alen, const char *b, size_t blen);

/**
 * Read a profile from @path ("-" reads stdin): a perfgate result file (the
 * first non-blank byte is '{'; its profile's stacks, or with @off_cpu its
 * off-CPU profile's, weights in ns; through pg_result_from_json) or folded
 * text (pg_folded_parse).
 * @info: NULL, or receives a one-line description of a result's profile for
 *        a subtitle ("parse: 12,345 samples of cpu-clock at 999 Hz, commit
 *        9f1c2ab"), or NULL for folded text; the caller frees it.
 * Errors: PG_ENOTFOUND (no such file), PG_EIO, PG_EINPUT (an invalid result,
 * a result recorded without a profile (or, with @off_cpu, without --off-cpu),
 * counts beyond 2^64, @path a
 * directory). An input without samples is not an error here (f->total == 0
 * and f->total_before == 0).
 */
int pg_folded_load_profile(struct pg_folded *f, const char *path, bool off_cpu, char **info);

/** pg_folded_load_profile() of a result's (on-CPU) profile. */
int pg_folded_load(struct pg_folded *f, const char *path, char **info);

#endif
