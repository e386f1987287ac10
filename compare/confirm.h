/*
 * confirm.h - the sequential paired test that confirms or clears a suspected
 * regression from interleaved runs of base and head (runner/paired.h), and
 * the paired test of hotspot shares.
 *
 * Data: per pair i, d_i = log(head_i / base_i) of task-clock. The effect is
 * the Hodges-Lehmann estimate of the centre of d (the median of the Walsh
 * averages (d_i + d_j) / 2, i <= j), with the distribution-free interval of
 * the Wilcoxon signed-rank test (Hodges & Lehmann, "Estimates of location
 * based on rank tests", Ann. Math. Statist. 34:598-611, 1963; Hollander &
 * Wolfe, Nonparametric Statistical Methods, 2nd ed., section 3.3). It
 * assumes d is symmetric about its centre, which a ratio of two runs of
 * the same program in random order is.
 *
 * Sequential looks: the interval is looked at after 8, 12, 16, 24, 32, 48,
 * 64, ... pairs (look k), each at level 1 - alpha_k with alpha_k = alpha *
 * 6 / (pi^2 k^2), so sum alpha_k = alpha: by the union bound the intervals
 * of all looks hold together with probability >= 1 - alpha, and stopping at
 * whichever look is decisive cannot inflate the error (an alpha-spending
 * form of an anytime-valid confidence sequence: Howard, Ramdas, McAuliffe &
 * Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
 * sequences", Ann. Statist. 49(2), 2021; Johari, Pekelis & Walsh, "Always
 * valid inference", 2017). A final look made when the budget runs out
 * between scheduled looks spends the next alpha_k.
 *
 * Outcome against the floor f (a fraction, +1% = 0.01): regression when
 * the interval lies above log(1 + f); no regression when it lies below;
 * otherwise undecided (more pairs, or inconclusive at the budget).
 *
 * Hotspots: for each candidate function, per pair the difference of its
 * self share (head - base) is tested with the one-sided Wilcoxon
 * signed-rank test (exact, mid-ranks for ties, zeros dropped), and the
 * p-values of all candidates are adjusted with Holm's step-down procedure
 * (Holm, "A simple sequentially rejective multiple test procedure", Scand.
 * J. Statist. 6:65-70, 1979).
 *
 * Nothing here allocates what the caller must free except where said; no
 * function returns NaN or Inf.
 */
#ifndef PG_COMPARE_CONFIRM_H
#define PG_COMPARE_CONFIRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "common/buf.h"

/** Default floor: a change must exceed +1% to be confirmed as a regression. */
#define PG_CONFIRM_DEFAULT_FLOOR 0.01
/** Default total error of all looks (two-sided). */
#define PG_CONFIRM_DEFAULT_ALPHA 0.05
/** Noise multiplier k of floor = max(user floor, k x paired noise) (docs/compare.md). */
#define PG_CONFIRM_NOISE_K 1.0

enum pg_confirm_outcome {
        PG_CONFIRM_UNDECIDED = 0, /* keep sampling (or inconclusive at the budget) */
        PG_CONFIRM_REGRESSION,    /* interval above +floor */
        PG_CONFIRM_NO_REGRESSION, /* interval below +floor */
        PG_CONFIRM_INCONCLUSIVE,  /* budget spent, still undecided */
        PG_CONFIRM_NOT_CONFIRMED  /* no confirmation could be made (build failed, ...) */
};

/** Name of @o in reports: "regression", "no regression", "inconclusive", ... */
const char *pg_confirm_outcome_name(enum pg_confirm_outcome o);

/** Pairs at scheduled look @k (1-based): 8, 12, 16, 24, 32, 48, 64, ... */
size_t pg_confirm_look_pairs(unsigned k);

/** alpha_k = @alpha * 6 / (pi^2 k^2) for look @k >= 1. */
double pg_confirm_look_alpha(double alpha, unsigned k);

/** One-sample Hodges-Lehmann estimate with its Wilcoxon signed-rank interval. */
struct pg_hl1 {
        double estimate; /* median of the Walsh averages */
        double lo, hi;   /* interval for the centre */
        double conf;     /* its exact coverage under the null (>= the asked level if n allows) */
};

/**
 * Hodges-Lehmann estimate and interval for the centre of @n values @d
 * (@n >= 1): lo = W_(c), hi = W_(M+1-c) of the M = n(n+1)/2 sorted Walsh
 * averages, c the largest integer with P(T+ <= c - 1) <= (1 - @conf) / 2
 * under the exact null distribution of the signed-rank statistic T+
 * (Hollander & Wolfe section 3.3; c >= 1, so tiny samples give the full
 * range and out->conf says what it covers).
 * Errors: PG_EINPUT when @n is 0 or above 2000, or @conf not in (0, 1).
 */
int pg_stats_hl_signed_rank(const double *d, size_t n, double conf, struct pg_hl1 *out);

/**
 * One-sided Wilcoxon signed-rank p-value for "the centre of @d is > 0":
 * zeros are dropped, tied |d| get mid-ranks, and the exact conditional null
 * distribution of the sum of positive (doubled) ranks is used. Returns 1
 * when no value is non-zero or @n > 2000.
 */
double pg_stats_signed_rank_greater(const double *d, size_t n);

/**
 * Holm's step-down adjustment of @n p-values @p into @adj (may alias @p):
 * adj_(i) = max_{j <= i} min(1, (n - j + 1) p_(j)) in ascending order of p.
 * Reject hypothesis i at family-wise level a when adj[i] <= a.
 */
void pg_stats_holm(const double *p, size_t n, double *adj);

struct pg_confirm_opts {
        double floor; /* fraction > 0 (0.01 = +1%) */
        double alpha; /* total two-sided error of all looks, in (0, 1) */
};

/** The state of a confirmation after a look. */
struct pg_confirm_look {
        unsigned look;   /* 1-based look index */
        size_t pairs;    /* pairs used */
        double level;    /* confidence level of this look's interval */
        double estimate; /* Hodges-Lehmann change of head vs base, fraction (exp(HL) - 1) */
        double lo, hi;   /* its interval, fractions */
        enum pg_confirm_outcome outcome;
};

/**
 * Look @look (1-based) at the @n pairs' log ratios @d: the interval at
 * level 1 - alpha_look, the estimate, and the outcome against o->floor
 * (UNDECIDED when neither side is cleared).
 * Errors: PG_EINPUT for @n == 0 or bad options.
 */
int pg_confirm_judge(const double *d, size_t n, unsigned look, const struct pg_confirm_opts *o,
                     struct pg_confirm_look *out);

/** A function's paired self-share test (pg_confirm_hotspots). */
struct pg_confirm_hotspot {
        char *function;         /* owned */
        double base_share;      /* median self share over base runs, fraction */
        double head_share;      /* ... over head runs */
        double p_value;         /* one-sided signed-rank, share grew */
        double p_holm;          /* Holm-adjusted */
        double self_growth_ns;  /* median over pairs of the change of its own time, ns */
        double incl_growth_ns;  /* median over pairs of the change of its inclusive time (the
                                   samples of the stacks it is in, each counted once), ns */
        double total_growth_ns; /* median over pairs of the change of the run's time, ns */
        bool confirmed;         /* p_holm <= alpha and its own time grew */
        bool cause;             /* confirmed, and its own time grew by most (> 1/2) of the
                                   benchmark's growth */
        bool moved;             /* confirmed, own time beyond the floor, inclusive time not:
                                   work moved into it from its callees; it does not gate
                                   (set by the caller that knows the floor) */
        bool grew;              /* not confirmed (its share is flat: a function that is most
                                   of the run keeps its share when it gets slower), but the
                                   pairs confirmed the benchmark's regression and its own time
                                   grew beyond the floor and by most (> 1/2) of the run's
                                   growth: named as the cause by own time; it does not gate
                                   (set by the caller that knows the outcome and the floor) */
        char *caller;           /* owned; NULL, or, for a function of another module than the
                                   benchmark's executable (a libc memcmp), the nearest caller
                                   in that executable: pg_confirm_hotspots_callers() */
        char *caller_module;    /* owned; with @caller, that executable's path */
};

struct pg_confirm_hotspots {
        size_t pairs;
        size_t n;
        struct pg_confirm_hotspot *items; /* sorted: confirmed first, then by self growth */
};

void pg_confirm_hotspots_release(struct pg_confirm_hotspots *h);

/**
 * Paired hotspot test over @npairs pairs of per-run profiles (@base[i] and
 * @head[i] ran next to each other). Candidates: the @max_candidates
 * functions with the largest self share in the pooled head profiles,
 * leaving out, when @floor > 0, those whose own time (median over pairs of
 * the pair's mean) is below @floor / 2 of the run time (the same way):
 * such a function can be neither the cause of a growth above the floor
 * (its own growth would be more than half of it) nor a hotspot that gates
 * (own growth above the floor), and testing it would only raise Holm's
 * multiplier. Pair means do not change when a pair's runs are swapped, so
 * with no change the choice is independent of the signs the test ranks.
 * A run's time is its sample count / the sampling frequency, so a
 * function's own time in a run is its self samples / frequency.
 * A function is a comparison key (pg_frame_key(): one candidate however
 * many spellings head has, named as head first spells it), and its self
 * samples are counted as pg_profile_funcs_scan_pair() counts them
 * (compare/profile.h, pg_profile_pair_self()): a sample in inlined code
 * counts for the innermost inlined function that has code of its own at
 * the same call site (same caller) in any of the runs, so an inlining
 * decision that flipped between base and head moves nothing, and a
 * namesake called from elsewhere takes nothing.
 * Its inclusive time in a run is the samples of the stacks with a frame
 * that is the function (pg_frame_pair_same(), inlined or not), each stack
 * counted once, / frequency: incl_growth_ns is the median over pairs of
 * its change, which stays flat when work only moved into the function
 * from its callees (and equals the self growth for a leaf).
 * @alpha: family-wise level for Holm. @out is filled (release it).
 * Errors: PG_EINPUT when @npairs < 2 or a profile has no samples.
 */
int pg_confirm_hotspots(const struct pg_profile *base, const struct pg_profile *head, size_t npairs,
                        size_t max_candidates, double floor, double alpha,
                        struct pg_confirm_hotspots *out);

/**
 * Name, for each confirmed hotspot of @h that is not code of the
 * benchmark's executable @exe (an absolute path, as the kernel names a
 * mapped file: no symlinks), its nearest caller that is: the heaviest of
 * the stacks whose self frame is the function (pg_frame_self(), matched by
 * pg_frame_same()), pooled over the @n head profiles @head, is walked from
 * that frame toward the root, and the first frame that is not inlined
 * ("_[i]"), kernel or JIT code and whose symbol the address histograms
 * (profile.addresses[].module) place in @exe goes to the hotspot's caller
 * (and @exe to its caller_module).
 * A frame the histograms do not know (it had no samples of its own) is
 * passed over. Left NULL when the function is @exe's own, when none is
 * found (a chain cut short: frame-pointer unwinding loses the caller of a
 * leaf that sets up no frame, such as glibc's memcmp, and stops in code
 * built without frame pointers; --call-graph dwarf reaches it), or when
 * @exe is NULL or the profiles have no address histograms.
 */
void pg_confirm_hotspots_callers(struct pg_confirm_hotspots *h, const struct pg_profile *head,
                                 size_t n, const char *exe);

/** What confirming one benchmark found (owned by its struct pg_bench_cmp). */
struct pg_bench_confirm {
        enum pg_confirm_outcome outcome;
        char *stored;       /* the stored-baseline verdict it started from ("regression") */
        char *note;         /* NULL, or why unconfirmed / what else happened (owned) */
        double floor;       /* the floor used, fraction */
        size_t pairs;       /* pairs used */
        size_t discarded;   /* pairs dropped (runs on different CPUs) */
        double estimate;    /* Hodges-Lehmann change, fraction */
        double lo, hi;      /* its interval, fractions */
        double level;       /* the interval's confidence level */
        unsigned look;      /* the look of the sequential test that gave it (1-based) */
        double seconds;     /* wall time spent measuring pairs (build excluded) */
        double hot_seconds; /* of which in the sampled pairs of the hotspot test */
        int *cpus;          /* ncpus CPUs both sides were pinned to, ascending (owned) */
        size_t ncpus;       /* 0: not pinned (pairs kept within one CPU) */
        bool has_interval;  /* estimate/lo/hi/level are set */
        bool hotspot_gated; /* a confirmed hotspot made the verdict a regression
                               (it gates whatever hotspots.gate says) */
        struct pg_confirm_hotspots hotspots; /* pairs == 0: not tested */
};

/** A new, empty confirmation (outcome NOT_CONFIRMED, not pinned). */
struct pg_bench_confirm *pg_bench_confirm_new(void);

/** Free @c and what it owns (NULL-safe). */
void pg_bench_confirm_free(struct pg_bench_confirm *c);

/**
 * Append @n CPU numbers (ascending) as a Linux CPU list (the format of
 * /sys/devices/system/cpu/online, cpuset(7) "List format": runs of
 * consecutive CPUs as "first-last", separated by commas, "0,2-3").
 * Nothing when @n is 0.
 */
void pg_cpu_list_format(struct pg_buf *out, const int *cpus, size_t n);

/**
 * Append "pinned to CPU 3" or "pinned to CPUs 0-1": "pinned to CPU(s) "
 * and pg_cpu_list_format() of the @n CPUs. Nothing when @n is 0.
 */
void pg_pinned_format(struct pg_buf *out, const int *cpus, size_t n);

/**
 * Append the paired runs' answer in a few words: "paired runs +5.61%
 * [+4.90%, +6.30%]: regression" (the estimate and interval of
 * log(head/base), in percent; "unconfirmed" for a confirmation that
 * stopped). Nothing when @c is NULL or has no interval.
 */
void pg_bench_confirm_result(struct pg_buf *out, const struct pg_bench_confirm *c);

/**
 * pg_bench_confirm_result() followed by "; ", for a report's one-line
 * summary of a benchmark. Nothing when @c is NULL or has no interval.
 */
void pg_bench_confirm_brief(struct pg_buf *out, const struct pg_bench_confirm *c);

/**
 * Append why paired-run intervals of one report differ in level, in one
 * sentence without a newline: each is at the level of the look that stopped
 * it (alpha spending, pg_confirm_look_alpha() with @alpha: 97% at look 1,
 * 99.9% at look 5 for 0.05), all looks together erring at most @alpha.
 */
void pg_confirm_levels_note(struct pg_buf *out, double alpha);

/**
 * Append one line describing @c: "confirmed regression: +2.3% [+1.5%,
 * +3.1%] (99.7% interval, look 4), 24 pairs in 41 s, floor +1.0%, pinned to
 * CPUs 0-1; cause `f`: own
 * time +6.1 ms of +6.5 ms", or "unconfirmed: <note>". Names go through
 * @esc (NULL: as they are). A note of several lines (a failed build's
 * log tail) ends the text: its first line where the note goes, each
 * further line after @newline (NULL: "\n"), each escaped on its own.
 */
void pg_bench_confirm_describe(struct pg_buf *out, const struct pg_bench_confirm *c,
                               void (*esc)(struct pg_buf *, const char *), const char *newline);

#endif
