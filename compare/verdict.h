/*
 * verdict.h - the judgement of a whole run against its baseline (DESIGN.md
 * section 6): per benchmark a verdict (regression / improvement / unchanged /
 * inconclusive / new / missing / failed) with its metric judgements and
 * hotspot changes, and the overall exit status (DESIGN.md section 2).
 *
 * Benchmark verdict, in order: failed (head has no counted metric: nothing
 * to judge, a regression cannot be ruled out); regression (a gating metric,
 * or a hotspot when hotspots gate, regressed); inconclusive (a gating metric
 * inconclusive, or not judged although the baseline had it); improvement (a
 * gating metric improved); unchanged. New: only in head. Missing: only in the
 * baseline.
 *
 * Ownership: struct pg_comparison owns its benchmarks, judgements and
 * hotspots; the results it points to are borrowed from the caller's result
 * sets, which must outlive it. pg_comparison_release() frees.
 */
#ifndef PG_COMPARE_VERDICT_H
#define PG_COMPARE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/result.h"
#include "compare/confirm.h"
#include "compare/hotspot.h"
#include "compare/offcpu.h"
#include "compare/rules.h"

/* Ordered worst first: reports sort by it. */
enum pg_verdict {
        PG_VERDICT_REGRESSION = 0,
        PG_VERDICT_FAILED,
        PG_VERDICT_INCONCLUSIVE,
        PG_VERDICT_MISSING,
        PG_VERDICT_IMPROVEMENT,
        PG_VERDICT_NEW,
        PG_VERDICT_UNCHANGED,
        PG_VERDICT_COUNT
};

/** Name of @v as written in reports and JSON ("regression", ...). */
const char *pg_verdict_name(enum pg_verdict v);

/** What a host note (struct pg_bench_cmp.host_notes) is about. */
enum pg_host_note_kind {
        PG_HOST_NOTE_KERNEL_RELEASE = 0, /* the kernel releases differ */
        PG_HOST_NOTE_KERNEL_FRAMES,      /* kernel frames are in only one side's profile */
        PG_HOST_NOTE_LOAD /* the machine's other load differed (pg_load_differs()), or
                                            saturated it (pg_load_saturated()) */
};

/*
 * The advice that ends a load note and a time metric's reason demoted by a
 * saturated runner (pg_load_differs(), pg_load_saturated()): stored batches
 * minutes apart cannot tell the machine from the change, paired runs can.
 * pg_bench_confirm_reword() replaces it once the pairs ran.
 */
#define PG_CONFIRM_ADVICE "; --confirm measures both sides together"

/** JSON name of @k: "kernel_release", "kernel_frames", "load" (docs/compare.md). */
const char *pg_host_note_kind_name(enum pg_host_note_kind k);

/** A host difference that leaves verdicts as they are. */
struct pg_host_note {
        enum pg_host_note_kind kind;
        char *text; /* owned: one line for a reader */
};

#define PG_HOST_NOTES_MAX 3

/**
 * Whether the other load recorded with @base and @head (struct pg_load;
 * either may be absent) differs enough to note (docs/compare.md, "Host
 * fingerprint"): both present, both windows at least 0.25 s, and other
 * work's CPUs differ by at least max(0.5, @cpus / 10) or the steal
 * fractions by at least 0.05. @cpus: the host's online CPUs (0: unknown).
 * When it does and @text is not NULL, *@text is a new string naming the
 * busier side: "the runner was busier during head: other work kept 1.6 of 2
 * CPUs busy (baseline 0.1), steal 9% (0%): time metrics may have moved with
 * the machine; --confirm measures both sides together" (", steal ..."
 * left out when both round to 0%).
 */
bool pg_load_differs(const struct pg_load *base, const struct pg_load *head, uint64_t cpus,
                     char **text);

/**
 * Whether the runner was saturated while a benchmark's measured repetitions
 * ran (docs/compare.md, "Runner load"): @load present with a window of at
 * least 0.25 s, other work kept at least max(0.5, @cpus / 10) CPUs busy,
 * and other work, the benchmark itself (@own_cpus: its CPU time over the
 * window, in CPUs) and steal (as a fraction of @cpus) together kept at
 * least 90% of the @cpus online CPUs busy. False when @cpus is 0 (unknown).
 * Then a regression of a time metric within the threshold plus the 100%
 * that batches move under saturation is inconclusive.
 */
bool pg_load_saturated(const struct pg_load *load, double own_cpus, uint64_t cpus);

struct pg_bench_cmp {
        char *name;
        enum pg_verdict verdict;
        char *reason;                 /* one line: why this verdict (owned, may be NULL) */
        const struct pg_result *base; /* borrowed; NULL when new */
        const struct pg_result *head; /* borrowed; NULL when missing */
        char *host_diff;              /* NULL or what differs between the hosts */
        char *host_note;              /* NULL, or the texts of host_notes joined by "; " */
        size_t nhost_notes;           /* host differences that leave verdicts as they are */
        struct pg_host_note host_notes[PG_HOST_NOTES_MAX]; /* one per kind at most */
        size_t njudgements;
        struct pg_judgement *judgements; /* sorted: gating first, then worst, then name */
        struct pg_hotspots hotspots;
        bool hotspots_gate; /* a regressed hotspot fails it (perfgate.json hotspots.gate) */
        struct pg_offcpu_cmp offcpu;      /* blocking paths (compare/offcpu.h); a regressed one
                                        fails the benchmark */
        char *flamegraph_diff;            /* file name of the differential SVG, when written */
        char *flamegraph_base;            /* file name of the baseline-shape SVG, when written */
        char *flamegraph_image;           /* file name of the static image of the differential SVG
                                   (for PR/MR comments), when written */
        char *flamegraph_focus;           /* file name of its focus view, when written */
        struct pg_bench_confirm *confirm; /* NULL, or the paired confirmation (owned) */
};

/**
 * Which sides of @b (base and head both present) ran on a saturated runner
 * (pg_load_saturated(), with the benchmark's own CPUs over the load's
 * window and the host's online CPUs from its results): 0 neither, 1 the
 * baseline, 2 head, 3 both.
 */
int pg_bench_saturated(const struct pg_bench_cmp *b);

/**
 * After paired runs of @b measured base and head together (b->confirm with
 * an interval), replace PG_CONFIRM_ADVICE in @b's reason, its judgements'
 * reasons and its host notes (and their joined host_note) by what the pairs
 * found, "; paired runs +0.96% [-1.12%, +3.38%]: no regression"
 * (pg_bench_confirm_result()): advice to run what just ran would mislead.
 * Nothing when the pairs did not run.
 */
void pg_bench_confirm_reword(struct pg_bench_cmp *b);

/*
 * The whole run moved alike (docs/compare.md, "The whole run moved"): of
 * the n >= 8 benchmarks whose gating metric @metric was judged, at least
 * 90% changed in the same direction, and the median of their changes is
 * within the between-batch drift measured on shared runners (15%). Each
 * regression of that metric whose change relative to the common shift is
 * within the threshold is then inconclusive.
 */
struct pg_run_drift {
        char *metric;    /* owned */
        size_t n;        /* benchmarks whose gating @metric was judged */
        size_t same_way; /* of them, how many changed in the direction of shift */
        double shift;    /* median of their relative changes (0.092 = +9.2%) */
        size_t demoted;  /* regressions made inconclusive by it */
};

struct pg_comparison {
        size_t ndrifts;
        struct pg_run_drift *drifts; /* owned; at most one per gating metric */
        size_t n;
        struct pg_bench_cmp *benches; /* sorted worst first, then by name */
        size_t counts[PG_VERDICT_COUNT];
        bool strict;
        bool fail_on_missing;
        char *base_label;  /* what the baseline is ("main @ 1a2b3c4", a path) */
        int failed_status; /* nonzero: a step after the comparison failed with this exit
                            * status (--confirm refused: 2; the base build failed: 3),
                            * which is then what perfgate exits with */
        char *failed;      /* owned; with failed_status, what failed (the error message) */
};

void pg_comparison_init(struct pg_comparison *c);
void pg_comparison_release(struct pg_comparison *c);

/**
 * Compare every benchmark of @head with @base under @rules into @out
 * (initialised by the caller). Both sets stay owned by the caller and must
 * outlive @out. Never fails (bad data gives "not judged" with reasons).
 * Applies the run-wide drift rule (struct pg_run_drift) before the
 * benchmark verdicts, recording it in out->drifts.
 */
void pg_compare_sets(const struct pg_result_set *base, const struct pg_result_set *head,
                     const struct pg_rules *rules, struct pg_comparison *out);

/**
 * Exit status for @c (DESIGN.md section 2): c->failed_status when a step
 * after the comparison failed (--confirm: 2 or 3, docs/compare.md); else 1
 * when a benchmark regressed or failed, or inconclusive under c->strict, or
 * missing under c->fail_on_missing; else 0.
 */
int pg_comparison_exit_status(const struct pg_comparison *c);

/**
 * One line: "2 regressions in 7 benchmarks" or "no regression in 7
 * benchmarks (1 new)". What fails the build besides regressions leads, so
 * a failing exit status never reads "no regression ...": "1 benchmark
 * failed (no metrics measured), 0 regressions in 3 benchmarks (1 new)";
 * likewise inconclusive under c->strict and missing under
 * c->fail_on_missing. A failed step after the comparison (c->failed) leads
 * all: "not confirmed (exit 3): the build of base commit ... failed ...;
 * no regression in 1 benchmark".
 */
char *pg_comparison_summary(const struct pg_comparison *c);

/** pg_comparison_summary() without what c->failed leads it with. */
char *pg_comparison_summary_counts(const struct pg_comparison *c);

/**
 * The one line that reports drift @d (text and Markdown, unescaped): "the
 * whole run moved +9.2% in task-clock (49 of 50 benchmarks the same way):
 * ...; 5 regressions within the threshold of that shift are inconclusive".
 * Returns a new string.
 */
char *pg_run_drift_note(const struct pg_run_drift *d);

/** Sort c->benches worst first again and recount c->counts (after verdicts changed). */
void pg_comparison_resort(struct pg_comparison *c);

#endif
