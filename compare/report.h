/*
 * report.h - the reports of `perfgate compare` (DESIGN.md section 7): text
 * for the terminal, Markdown for the PR/MR comment, a JSON verdict
 * (docs/compare.md has its schema), JUnit XML and OpenMetrics text for
 * GitLab's metrics report. Each writer appends to a struct pg_buf; the
 * caller writes the file atomically. Output is deterministic for the same
 * comparison, and no writer ever prints NaN or Inf.
 *
 * Names (benchmarks, metrics, functions) are outside input: every writer
 * escapes them for its format, and control bytes are shown as \n, \t, \xNN
 * so a name can never start a new line, table row, tag or label.
 */
#ifndef PG_COMPARE_REPORT_H
#define PG_COMPARE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "compare/verdict.h"

#define PG_COMPARE_SCHEMA "perfgate/compare/1"

struct pg_report_opts {
        const char *link_base;   /* NULL, or URL prefix under which flame graph files are served */
        bool color;              /* text: ANSI colours */
        size_t max_hotspots;     /* hotspot rows per benchmark; 0: 5 */
        const char *history_url; /* NULL, or URL of a `perfgate history --html` site: the
                                    Markdown links each benchmark to its page there */
        const char *flamegraph_dir; /* NULL, or the --flamegraph-dir as given: the text report
                                       names the flame graph files by their path under it */
};

/** Text report for stdout (one line per benchmark, then details). */
void pg_report_text(struct pg_buf *out, const struct pg_comparison *c,
                    const struct pg_report_opts *o);

/** Markdown PR/MR comment body, starting with the "<!-- perfgate -->" marker. */
/**
 * Append the PR/MR comment for "no baseline yet": the marker, that nothing
 * was compared for @rev on @machine, and how the baseline gets recorded, or,
 * when @others (NULL or ", "-separated machine names) have a baseline there,
 * that the machine names of the two jobs differ.
 */
void pg_report_markdown_no_baseline(struct pg_buf *out, const char *rev, const char *machine,
                                    const char *others);

void pg_report_markdown(struct pg_buf *out, const struct pg_comparison *c,
                        const struct pg_report_opts *o);

/**
 * JSON verdict (schema PG_COMPARE_SCHEMA, docs/compare.md).
 * Errors: PG_EINPUT if a number is non-finite (a bug upstream).
 */
int pg_report_json(struct pg_buf *out, const struct pg_comparison *c,
                   const struct pg_report_opts *o);

/** JUnit XML: one testcase per benchmark; a regression or failure is a <failure>. */
void pg_report_junit(struct pg_buf *out, const struct pg_comparison *c,
                     const struct pg_report_opts *o);

/** OpenMetrics text exposition (GitLab metrics report): head medians and changes. */
void pg_report_openmetrics(struct pg_buf *out, const struct pg_comparison *c,
                           const struct pg_report_opts *o);

/* Shared formatting helpers (report_text.c). */

/** Append @v in @unit readably: "412.1 ms", "1.23 M", "64.0 MiB", "2.10", "1.04%" (rates). */
void pg_report_fmt_value(struct pg_buf *out, double v, const char *unit, bool rate);

/** Append the change of @j: "+25.3%" or "+2.00 pp"; "n/a" when undefined. */
void pg_report_fmt_change(struct pg_buf *out, const struct pg_judgement *j);

/** Append the threshold of @j's rule: "10%" or "0.5 pp". */
void pg_report_fmt_threshold(struct pg_buf *out, const struct pg_metric_rule *r);

/**
 * Append @s with control bytes shown as \n, \t, \r, \xNN, and the bidi
 * controls U+202A..U+202E and U+2066..U+2069 (which would reorder the rest
 * of a line) as \uXXXX (no other change).
 */
void pg_report_escape_ctl(struct pg_buf *out, const char *s);

/** @v with a negative zero (from rounding) made +0, for "%+.1f" output. */
double pg_report_unsigned_zero(double v, double resolution);

/** Whether @j's values are rates, shown as percentages ("-rate" metrics, pp thresholds). */
bool pg_report_is_rate(const struct pg_judgement *j);

/**
 * Append where regression @j comes from (its causes; nothing when it has
 * none), in one line of plain text: "branch-miss-rate 1.20% -> 9.80%:
 * +3.10 M branch-misses in `classify()` (tokenize.c:41), +0.20 M in
 * `main()` (main.c:9)". @markdown: function names in code spans, the rest
 * escaped by @md_escape (may be NULL for text, where control bytes are
 * shown escaped).
 */
void pg_report_fmt_causes(struct pg_buf *out, const struct pg_judgement *j,
                          void (*md_escape)(struct pg_buf *, const char *));

/** Number of items to show: o->max_hotspots or the default. */
size_t pg_report_max_hotspots(const struct pg_report_opts *o);

/**
 * Whether @j is one of the metrics a benchmark's one-line summary shows,
 * given that @shown are already shown: a change must be defined, and after
 * the first only what changed or gates is worth the room.
 */
bool pg_report_summary_metric(const struct pg_judgement *j, size_t shown);

/**
 * The word a benchmark's one-line summary (text and Markdown) puts after
 * @j's change, or NULL for none (unchanged, not judged): its outcome when
 * the metric gates ("regression", "improvement", "inconclusive"); for a
 * metric that does not gate, what the change is without calling it a
 * verdict: "worse, not gating", "better, not gating", "inconclusive, not
 * gating" (docs/compare.md, "Outcome of a metric"); for a stored regression
 * or inconclusive result that --confirm's paired runs cleared (struct
 * pg_judgement.unconfirmed), "vs stored baseline, not confirmed by paired
 * runs"; for a stored regression the paired runs left undecided, "vs stored
 * baseline, paired runs inconclusive". Static storage.
 */
const char *pg_report_summary_word(const struct pg_judgement *j);

/**
 * Why @j is unchanged although its change is beyond its threshold, or NULL:
 * its reason ("possible improvement, within noise: 3 x relative MAD =
 * 18.0%", "informational: the metric has no direction, ..."), which a
 * benchmark's one-line summary (text and Markdown) puts after the change, so
 * that it is not read as a bug. Borrowed from @j.
 */
const char *pg_report_unchanged_why(const struct pg_judgement *j);

/**
 * The verdict column of @j's row in the detail tables (text and Markdown):
 * pg_report_summary_word() when it has one (so a metric that does not gate
 * reads "worse, not gating" there as in the summary), else its outcome's
 * name. Static storage.
 */
const char *pg_report_detail_word(const struct pg_judgement *j);

/**
 * Append which sides of @b had processes left running when the benchmark
 * exited (struct pg_result.leftovers; their CPU time is counted on that
 * side): "baseline disturbed: 1 process it started was still running at
 * its exit in 6 of 6 runs, its CPU time counted" (pg_leftovers_describe()),
 * then "; head disturbed:
 * ..." as the case may be; nothing when neither side had any. Returns how
 * many sides.
 */
size_t pg_report_leftovers(struct pg_buf *out, const struct pg_bench_cmp *b);

/**
 * Append, when a benchmark of @c shows a paired-run interval (compare
 * --confirm), why their levels differ (pg_confirm_levels_note()), @md_escape'd
 * when not NULL (Markdown), then a newline. Returns whether it did.
 */
bool pg_report_confirm_levels(struct pg_buf *out, const struct pg_comparison *c,
                              void (*md_escape)(struct pg_buf *, const char *));

/**
 * The part of hotspot call path @path (folded frames, ';'-separated, root
 * first) that the text and Markdown reports show, newly allocated: from the
 * last frame named `main` on, and when Rust's runtime follows it (std::rt::
 * lang_start, catch_unwind, panicking::try, ... down to a frame holding
 * `__rust_begin_short_backtrace`, and the FnOnce::call_once that calls the
 * program's main), "main;...;" then the frames after those: the program's
 * own main and what it called. @path itself when it
 * has no `main` frame (or nothing after the runtime). The JSON keeps the
 * whole path.
 */
char *pg_report_path_shown(const char *path);

/** Where the detail sections (text and Markdown) list a metric. */
enum pg_report_section {
        PG_REPORT_SECTION_NONE = 0,  /* unchanged or not judged: the summary line says enough */
        PG_REPORT_SECTION_GATING,    /* "Regressions and inconclusive results": it can fail
                                       the benchmark or keep it undecided */
        PG_REPORT_SECTION_NOT_GATING /* "Changes that do not gate": a metric that does not
                                        gate moved beyond its threshold (worse, better or
                                        inconclusive), information that fails nothing */
};

/**
 * The detail section of @j (docs/compare.md, "Outcome of a metric"): a
 * gating metric that regressed or is inconclusive, or is not judged although
 * the baseline had it, is GATING, unless paired runs cleared it
 * (struct pg_judgement.unconfirmed: NONE); a metric that does not gate and has a
 * summary word (pg_report_summary_word()) is NOT_GATING; anything else NONE.
 * Both the text report and the Markdown comment place metrics by it.
 */
enum pg_report_section pg_report_metric_section(const struct pg_judgement *j);

/**
 * Whether @b lists a hotspot that regressed or is new while its hotspots do
 * not gate (perfgate.json "compare": {"hotspots": {"gate": false}}, the
 * default) and no hotspot confirmed by paired runs made its verdict (one
 * that did gates: struct pg_bench_confirm.hotspot_gated): the reports then
 * say once per table that they do not gate.
 */
bool pg_report_hotspots_not_gating(const struct pg_bench_cmp *b);

/** How a report escapes a name it prints (pg_report_escape_ctl(), Markdown's). */
typedef void (*pg_report_escape_fn)(struct pg_buf *out, const char *s);

/**
 * Append @b's host notes (struct pg_bench_cmp.host_notes), texts escaped by
 * @esc: the host differences joined by "; " after @hosts ("hosts differ: "),
 * then @end; the machine's load (kind PG_HOST_NOTE_LOAD, always the last
 * note) apart, after @load, then @end: it is no host difference. Nothing
 * for a benchmark without notes.
 */
void pg_report_host_notes(struct pg_buf *out, const struct pg_bench_cmp *b, pg_report_escape_fn esc,
                          const char *hosts, const char *load, const char *end);

/**
 * Append hotspot @h's line that grew most, names escaped by @esc:
 * "FILE:LINE (+12.30 pp)", or with the inlined code that grew there
 * "FILE:LINE (+15.86 pp, in inlined core::num::<impl u64>::rotate_left at
 * uint_macros.rs:212)". Nothing when @h has no line.
 */
void pg_report_grew_line(struct pg_buf *out, const struct pg_hotspot *h, pg_report_escape_fn esc);

/**
 * Append to @out (names escaped by @esc) the metrics of @b that
 * were not judged although the baseline had them (judgement.blocks), and
 * the gating metrics not judged or not comparable whatever the baseline had
 * (instructions "status 'not-supported' in the baseline, 'ok' in head"), with
 * their reasons, grouped by reason: "task-clock, cycles (zero baseline), ipc
 * (present in the baseline, missing in head)"; nothing when there are
 * none. Returns how many metrics.
 */
size_t pg_report_not_judged(struct pg_buf *out, const struct pg_bench_cmp *b,
                            pg_report_escape_fn esc);

/** Whether hotspot @h is worth listing (changed or hot, not tiny/unchanged noise). */
bool pg_report_hotspot_listed(const struct pg_hotspot *h);

/**
 * Whether the reports show @h's inclusive share rather than its self share:
 * a new or vanished function is judged on its inclusive share
 * (docs/compare.md, "Hotspots"), and its self share may be 0 on both sides
 * (a function that only calls others). Then @base, @head (percent) and @pp
 * are the inclusive figures, else the self ones; est. and own time stay
 * self-based and the z test's p (on the self counts) judges nothing.
 */
bool pg_report_hotspot_shares(const struct pg_hotspot *h, double *base, double *head, double *pp);

#endif
