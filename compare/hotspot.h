/*
 * hotspot.h - where the time went, and where it moved (DESIGN.md section 6):
 * per function, from the folded stacks of the baseline and head profiles, the
 * self share (samples whose self frame is the function, the innermost frame
 * not inlined as in compare/profile.h, / all samples) and the
 * inclusive share (samples whose stack contains the function at least once,
 * so recursion counts once), their change in percentage points, a
 * two-proportion z test on the self counts, new and vanished functions, the
 * estimated time moved (self share change x median task-clock of head) and
 * the hottest call path to the function.
 *
 * The first frame of a folded stack is the process name (comm), not a
 * function; it is skipped. Shares are fractions of all samples of the
 * profile; a profile with 0 samples is not compared (never a division by 0).
 *
 * Ownership: struct pg_hotspots owns everything; pg_hotspots_release().
 */
#ifndef PG_COMPARE_HOTSPOT_H
#define PG_COMPARE_HOTSPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "compare/rules.h"

enum pg_hotspot_kind {
        PG_HOTSPOT_REGRESSED = 0,   /* self share grew beyond the threshold, significant */
        PG_HOTSPOT_NEW,             /* absent in the baseline, >= new_pp in head */
        PG_HOTSPOT_IMPROVED,        /* self share shrank beyond the threshold, significant */
        PG_HOTSPOT_VANISHED,        /* present in the baseline, absent in head */
        PG_HOTSPOT_NOT_SIGNIFICANT, /* changed beyond the threshold, test not significant */
        PG_HOTSPOT_TINY,            /* below min_samples on both sides: never judged */
        PG_HOTSPOT_UNCHANGED,
        PG_HOTSPOT_SHIFTED,  /* share moved only because others changed: own time did not
                              move beyond the threshold (x task-clock) in that direction */
        PG_HOTSPOT_GREW,     /* set by pg_hotspots_mark_grew() only: its own time holds
                               (with at most two others') most of a regression its share
                               cannot show (it is most of the run, or all grew alike) */
        PG_HOTSPOT_INTERRUPT /* would be regressed or new, but a kernel frame whose hottest
                                stack runs in interrupt context (pg_stack_in_interrupt()):
                                time the benchmark did not cause; never gates */
};

/**
 * Whether the call path @frames[0 .. @len) (folded frames, ';'-separated, root
 * first) passes through an interrupt entry of the Linux kernel: a kernel frame
 * (`_[k]`) of x86-64's entry code (arch/x86/include/asm/idtentry.h:
 * asm_common_interrupt, asm_sysvec_*, asm_spurious_interrupt; before Linux 5.8
 * common_interrupt, do_IRQ and the *_interrupt entries), arm64's
 * (arch/arm64/kernel/entry-common.c: el0/el1 irq and interrupt entries), or
 * the generic irq exit that runs softirqs on the way out (kernel/softirq.c:
 * irq_exit, irq_exit_rcu). Everything called below such a frame is the work
 * of an interrupt that happened to arrive while the benchmark ran.
 */
bool pg_stack_in_interrupt(const char *frames, size_t len);

/** Name of @k as written in reports ("regressed", "new", ...). */
const char *pg_hotspot_kind_name(enum pg_hotspot_kind k);

struct pg_hotspot {
        char *function;
        enum pg_hotspot_kind kind;
        enum pg_hotspot_kind grew_from;          /* PG_HOTSPOT_GREW: the kind it had before
                                           pg_hotspots_mark_grew() */
        uint64_t base_self, head_self;           /* samples with the function as self frame */
        uint64_t base_incl, head_incl;           /* samples with the function anywhere (once) */
        double base_self_share, head_self_share; /* fractions of all samples */
        double base_incl_share, head_incl_share;
        double delta_self_pp; /* (head - base) self share, percentage points */
        double delta_incl_pp;
        double p_value;       /* two-proportion test on the self counts, scaled for
                               * the variation between sampling runs when both
                               * profiles stored it (pg_stats_two_proportion_runs()) */
        double phi;           /* that scale (>= 1); 0: the plain test (a side without
                               * per-run counts, or fewer than 4 runs) */
        unsigned df;          /* its degrees of freedom (0 with phi 0) */
        bool has_est;         /* est_ms is defined (head task-clock known) */
        double est_ms;        /* delta self share x median head task-clock, ms */
        bool has_self_time;   /* self_time_ms is defined (task-clock known on both sides) */
        double self_time_ms;  /* estimated change of the function's own time, ms:
                                head share x head task-clock - base share x base
                                task-clock; unlike est_ms it does not move when
                                only other functions changed */
        char *path;           /* hottest call path ending at the function, root first,
                               ';'-separated, comm excluded (head, or baseline if vanished);
                               NULL unless pg_hotspot_kind_listed(kind) */
        char *line;           /* regressed or new: the source line ("file:line") whose
                                self share grew most, from the profiles' address
                                histograms (docs/result-format.md), a line of code
                                inlined from another file counting for its call site
                                in the function's own file; NULL when they have none
                                for the function */
        double line_delta_pp; /* that growth, percentage points of all samples */
        char *line_callee;    /* NULL, or when @line is a call site whose inlined code
                                 (from another file: a header, Rust's core) grew, all of
                                 it by at least half of @line_delta_pp: the function inlined
                                 there whose line grew most ... */
        char *line_callee_at; /* ... and that line ("file:line") */
        size_t heavy_stack;   /* when head_incl > 0: head's stack with most samples holding
                                 the function, and the key's bytes up to the end of its
                                 outermost frame there (compare/profile.h) */
        size_t heavy_end;
};

struct pg_hotspots {
        bool judged;  /* false: see reason */
        char *reason; /* why not judged ("baseline profile has 0 samples ...") */
        uint64_t base_total, head_total;
        double base_task_clock_ns, head_task_clock_ns; /* medians the estimates used; 0: none */
        struct pg_hotspot_rule rule; /* the rule they were judged by (pg_hotspots_mark_grew()
                                        after `compare --confirm` takes it again) */
        size_t n;
        struct pg_hotspot *items; /* sorted: kind first (regressed, new, ...), then |delta| */
        int kernel_side;          /* 0: both profiles or neither hold kernel frames; 1: only the
                          * baseline's, 2: only head's (exclude_kernel differed). Then
                          * kernel frames ("_[k]") that appear or vanish are artifacts
                          * of that and left out of items. */
        bool head_lost;           /* not judged because head's profile is missing although its run
                         * sampled (pg_profile.missing) or has 0 samples, while the
                         * baseline's has samples: with hotspots.gate the benchmark cannot
                         * be judged (docs/compare.md, "Verdict per benchmark") */
};

void pg_hotspots_init(struct pg_hotspots *h);
void pg_hotspots_release(struct pg_hotspots *h);

/**
 * Compare the profiles of @base and @head (either may have no profile) into
 * @out (initialised by the caller). @base_task_clock_ns and
 * @head_task_clock_ns: median task-clock of each side, or <= 0 when unknown
 * (then no time estimates needing them). Not comparable
 * profiles (absent, 0 samples, different events) give out->judged = false
 * and the reason, never an error.
 */
void pg_hotspots_compare(const struct pg_profile *base, const struct pg_profile *head,
                         double base_task_clock_ns, double head_task_clock_ns,
                         const struct pg_hotspot_rule *rule, struct pg_hotspots *out);

/**
 * pg_hotspots_compare(), keeping only the items a verdict and its reports
 * can use: those pg_hotspot_kind_listed() lists, and the unchanged and
 * shifted ones with at least @rule->min_samples self samples in head (the
 * functions pg_hotspots_mark_grew() may pick with that min_samples). Tiny
 * functions and the other unchanged or shifted ones are left out; the kept
 * items, their figures and their order are those pg_hotspots_compare()
 * gives. For a profile of a million functions, nearly all of them tiny,
 * this keeps a handful of items instead of a million.
 */
void pg_hotspots_compare_verdict(const struct pg_profile *base, const struct pg_profile *head,
                                 double base_task_clock_ns, double head_task_clock_ns,
                                 const struct pg_hotspot_rule *rule, struct pg_hotspots *out);

/**
 * The function a reader should look at first: the first regressed, new or
 * grew (own time) hotspot of @h (the items are sorted worst first), or NULL.
 * Borrowed from @h.
 */
const char *pg_hotspots_culprit(const struct pg_hotspots *h);

/** The most functions pg_hotspots_mark_grew() names in one benchmark. */
#define PG_HOTSPOT_GREW_MAX 3

/**
 * When a benchmark regressed in time and no function's share regressed or is
 * new (a function that is most of the run keeps its share when it gets
 * slower; a slowdown spread evenly keeps every share), name the functions
 * that hold the growth: the fewest, largest own-time growth first (self share
 * x median task-clock, ms), that together hold more than half of
 * (@head_task_clock_ns - @base_task_clock_ns), at most PG_HOTSPOT_GREW_MAX;
 * each must have at least @rule->min_samples self samples in head and an
 * own-time growth above the floor a share change must pass to count as its
 * own (more than @rule->threshold_pp % of the base task-clock and more than
 * 15% of its own base time: task-clock's drift between batches). When no
 * such set exists (the growth is spread wider, or others got faster) none is
 * named. Their kind becomes PG_HOTSPOT_GREW, their path the heaviest stack
 * of @head that holds them (comm excluded, cut after it; @h must come from
 * pg_hotspots_compare() or pg_hotspots_compare_verdict() with this @head),
 * and @h is sorted again (the largest growth first among them, so
 * pg_hotspots_culprit() returns it). Call it only for a benchmark whose
 * task-clock regressed, or rose significantly beyond its threshold but was
 * made inconclusive (the runner's load, drift, spread), or whose regression
 * `compare --confirm` confirmed: own time moves with task-clock's noise, so
 * on its own it proves nothing (docs/compare.md). Nothing changes when @h
 * is not judged, has a culprit, or task-clock did not grow.
 */
void pg_hotspots_mark_grew(struct pg_hotspots *h, const struct pg_profile *head,
                           double base_task_clock_ns, double head_task_clock_ns,
                           const struct pg_hotspot_rule *rule);

/**
 * Undo pg_hotspots_mark_grew() on @h: each PG_HOTSPOT_GREW item gets back
 * the kind it had, and @h is sorted again. For a benchmark whose time
 * regression `compare --confirm`'s paired runs did not confirm: the growth
 * those functions were named for was not there.
 */
void pg_hotspots_unmark_grew(struct pg_hotspots *h);

/** Whether the hotspot changes of @h warrant a flame graph (any regressed/new/improved/vanished). */
bool pg_hotspots_changed(const struct pg_hotspots *h);

/**
 * Whether reports list a hotspot of @kind (regressed, new, improved,
 * vanished, not significant): only those carry a path.
 */
bool pg_hotspot_kind_listed(enum pg_hotspot_kind kind);

#endif
