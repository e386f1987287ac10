/*
 * verdict.c - per-benchmark verdicts and the overall exit status
 * (verdict.h). Benchmarks are matched by name between the two sets; metrics
 * by name between the two results (their union, plus derived ratios that are
 * undefined on both sides so the report can say why).
 */
#include "compare/verdict.h"
#include <inttypes.h>
#include <math.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "compare/stats.h"

static const char *const pg_verdict_names[] = { "regression",  "failed", "inconclusive", "missing",
                                                "improvement", "new",    "unchanged" };

const char *pg_verdict_name(enum pg_verdict v)
{
        if ((size_t) v < PG_VERDICT_COUNT)
                return pg_verdict_names[v];
        return "unknown";
}

void pg_comparison_init(struct pg_comparison *c)
{
        memset(c, 0, sizeof(*c));
}

void pg_comparison_release(struct pg_comparison *c)
{
        for (size_t i = 0; i < c->n; i++) {
                struct pg_bench_cmp *b = &c->benches[i];
                free(b->name);
                free(b->reason);
                free(b->host_diff);
                free(b->host_note);
                for (size_t k = 0; k < b->nhost_notes; k++)
                        free(b->host_notes[k].text);
                for (size_t j = 0; j < b->njudgements; j++)
                        pg_judgement_release(&b->judgements[j]);
                free(b->judgements);
                pg_hotspots_release(&b->hotspots);
                pg_offcpu_cmp_release(&b->offcpu);
                free(b->flamegraph_diff);
                free(b->flamegraph_base);
                free(b->flamegraph_image);
                free(b->flamegraph_focus);
                pg_bench_confirm_free(b->confirm);
        }
        for (size_t i = 0; i < c->ndrifts; i++)
                free(c->drifts[i].metric);
        free(c->drifts);
        free(c->benches);
        free(c->base_label);
        free(c->failed);
        memset(c, 0, sizeof(*c));
}

static bool pg_str_eq(const char *a, const char *b)
{
        return strcmp(a ? a : "", b ? b : "") == 0;
}

/*
 * What differs between the hosts of @base and @head that makes verdicts
 * unreliable (CPU model, architecture, online CPU count, PMU list, counters
 * mode, exclude_kernel), as a new string, or NULL when they match.
 * *cpu_differs: the CPU model, architecture or CPU count differs, which
 * makes every verdict unreliable (docs/compare.md, "Host fingerprint"). A
 * CPU count of 0 (not recorded) matches any.
 */
static char *pg_host_diff(const struct pg_result *base, const struct pg_result *head,
                          bool *cpu_differs)
{
        struct pg_buf b = PG_BUF_INIT;
        bool pmu_same = base->host.npmu == head->host.npmu;

        *cpu_differs = false;
        if (!pg_str_eq(base->host.cpu, head->host.cpu)) {
                *cpu_differs = true;
                pg_buf_printf(&b, "cpu model '%s' vs '%s'", base->host.cpu ? base->host.cpu : "",
                              head->host.cpu ? head->host.cpu : "");
        }
        if (!pg_str_eq(base->host.arch, head->host.arch)) {
                *cpu_differs = true;
                pg_buf_printf(&b, "%sarch '%s' vs '%s'", b.len ? ", " : "",
                              base->host.arch ? base->host.arch : "",
                              head->host.arch ? head->host.arch : "");
        }
        if (base->host.cpus && head->host.cpus && base->host.cpus != head->host.cpus) {
                *cpu_differs = true;
                pg_buf_printf(&b, "%s%" PRIu64 " vs %" PRIu64 " online CPUs", b.len ? ", " : "",
                              base->host.cpus, head->host.cpus);
        }
        for (size_t i = 0; pmu_same && i < base->host.npmu; i++)
                pmu_same = pg_str_eq(base->host.pmu[i], head->host.pmu[i]);
        if (!pmu_same) {
                pg_buf_printf(&b, "%spmu [", b.len ? ", " : "");
                for (size_t i = 0; i < base->host.npmu; i++)
                        pg_buf_printf(&b, "%s%s", i ? " " : "", base->host.pmu[i]);
                pg_buf_puts(&b, "] vs [");
                for (size_t i = 0; i < head->host.npmu; i++)
                        pg_buf_printf(&b, "%s%s", i ? " " : "", head->host.pmu[i]);
                pg_buf_puts(&b, "]");
        }
        if (!pg_str_eq(base->counters, head->counters))
                pg_buf_printf(&b, "%scounters '%s' vs '%s'", b.len ? ", " : "",
                              base->counters ? base->counters : "",
                              head->counters ? head->counters : "");
        if (base->host.exclude_kernel != head->host.exclude_kernel)
                pg_buf_printf(&b, "%sexclude_kernel %s vs %s", b.len ? ", " : "",
                              base->host.exclude_kernel ? "true" : "false",
                              head->host.exclude_kernel ? "true" : "false");
        if (!b.len)
                return NULL;
        return pg_buf_detach(&b, NULL);
}

const char *pg_host_note_kind_name(enum pg_host_note_kind k)
{
        switch (k) {
        case PG_HOST_NOTE_KERNEL_FRAMES:
                return "kernel_frames";
        case PG_HOST_NOTE_LOAD:
                return "load";
        default:
                return "kernel_release";
        }
}

/* Add note @text (taken) of kind @k to @b, and join all into b->host_note. */
static void pg_host_note_add(struct pg_bench_cmp *b, enum pg_host_note_kind k, char *text)
{
        char *joined = b->host_note ? pg_xasprintf("%s; %s", b->host_note, text) : NULL;

        b->host_notes[b->nhost_notes].kind = k;
        b->host_notes[b->nhost_notes++].text = text;
        free(b->host_note);
        b->host_note = joined ? joined : pg_xstrdup(text);
}

/*
 * A difference between the hosts of @b's results that is reported but
 * changes no verdict: the kernel release (a runner image's kernel update
 * would otherwise make every comparison against older baselines
 * inconclusive until new ones are saved).
 */
static void pg_host_note_kernel(struct pg_bench_cmp *b)
{
        const struct pg_result *base = b->base, *head = b->head;

        if (!base->host.kernel || !head->host.kernel ||
            pg_str_eq(base->host.kernel, head->host.kernel))
                return;
        pg_host_note_add(b, PG_HOST_NOTE_KERNEL_RELEASE,
                         pg_xasprintf("kernel '%s' vs '%s' (verdicts kept)", base->host.kernel,
                                      head->host.kernel));
}

/*
 * The rule (docs/compare.md, "Host fingerprint"). /proc/stat counts in
 * clock ticks (USER_HZ, 100 per second on Linux), so a window under 0.25 s
 * holds too few ticks per CPU to tell half a CPU apart; half a CPU, or a
 * tenth of a larger host, is what other work must add before it is worth a
 * reader's attention (it shares the caches, memory bandwidth and, past the
 * free CPUs, the CPUs themselves); 5 points of steal is 5% of every CPU.
 */
#define PG_LOAD_WINDOW_MIN_NS 250000000ull
#define PG_LOAD_CPUS_MIN      0.5
#define PG_LOAD_STEAL_MIN     0.05

/* Other work's CPUs that matter on a host of @cpus: half a CPU, or a
 * tenth of a larger host. */
static double pg_load_cpus_min(uint64_t cpus)
{
        return cpus / 10.0 > PG_LOAD_CPUS_MIN ? cpus / 10.0 : PG_LOAD_CPUS_MIN;
}

bool pg_load_differs(const struct pg_load *base, const struct pg_load *head, uint64_t cpus,
                     char **text)
{
        double cpus_min = pg_load_cpus_min(cpus);
        const struct pg_load *busy, *quiet;
        struct pg_buf t = PG_BUF_INIT;

        if (text)
                *text = NULL;
        if (!base->present || !head->present || base->window_ns < PG_LOAD_WINDOW_MIN_NS ||
            head->window_ns < PG_LOAD_WINDOW_MIN_NS)
                return false;
        if (fabs(head->other_cpus - base->other_cpus) < cpus_min &&
            fabs(head->steal - base->steal) < PG_LOAD_STEAL_MIN)
                return false;
        if (!text)
                return true;
        /* the busier side lost more CPU to others: other work plus steal */
        bool head_busier = head->other_cpus + head->steal * (double) cpus >=
                           base->other_cpus + base->steal * (double) cpus;
        busy = head_busier ? head : base;
        quiet = head_busier ? base : head;
        pg_buf_printf(&t, "the runner was busier during %s: other work kept %.1f ",
                      head_busier ? "head" : "the baseline", busy->other_cpus);
        if (cpus)
                pg_buf_printf(&t, "of %" PRIu64 " ", cpus);
        pg_buf_printf(&t, "CPUs busy (%s %.1f)", head_busier ? "baseline" : "head",
                      quiet->other_cpus);
        /* steal that rounds to 0% on both sides is left unsaid */
        if (busy->steal >= 0.005 || quiet->steal >= 0.005)
                pg_buf_printf(&t, ", steal %.0f%% (%.0f%%)", busy->steal * 100, quiet->steal * 100);
        pg_buf_puts(&t, ": time metrics may have moved with the machine" PG_CONFIRM_ADVICE);
        *text = pg_buf_detach(&t, NULL);
        return true;
}

/*
 * The saturation rule (docs/compare.md, "Runner load"): other work took at
 * least the note's half a CPU (or a tenth of the host), and other work, the
 * benchmark itself and steal together kept at least 90% of the CPUs busy,
 * so the benchmark waited for a CPU and shared its caches with whatever ran
 * between its time slices. A benchmark that fills the CPUs by itself is not
 * saturated by others.
 */
#define PG_LOAD_BUSY_MIN 0.9

bool pg_load_saturated(const struct pg_load *load, double own_cpus, uint64_t cpus)
{
        double cpus_min = pg_load_cpus_min(cpus);

        if (!load->present || load->window_ns < PG_LOAD_WINDOW_MIN_NS || !cpus ||
            load->other_cpus < cpus_min || !(own_cpus >= 0))
                return false;
        return load->other_cpus + own_cpus + load->steal * (double) cpus >=
               PG_LOAD_BUSY_MIN * (double) cpus;
}

/* CPUs @r's measured repetitions kept busy themselves: their task-clock
 * (all threads' CPU time) over the load's window; 0 when either is absent. */
static double pg_own_cpus(const struct pg_result *r)
{
        const struct pg_metric *tc = pg_result_find_metric(r, "task-clock");
        double sum = 0;

        if (!tc || tc->status != PG_METRIC_OK || !r->load.present || !r->load.window_ns)
                return 0;
        for (size_t i = 0; i < tc->nvalues; i++)
                sum += tc->values[i];
        return sum / (double) r->load.window_ns;
}

/* The host's online CPUs as @b's results recorded them (0: unknown). */
static uint64_t pg_bench_cpus(const struct pg_bench_cmp *b)
{
        return b->head->host.cpus ? b->head->host.cpus : b->base->host.cpus;
}

int pg_bench_saturated(const struct pg_bench_cmp *b)
{
        uint64_t cpus = pg_bench_cpus(b);

        return (pg_load_saturated(&b->base->load, pg_own_cpus(b->base), cpus) ? 1 : 0) |
               (pg_load_saturated(&b->head->load, pg_own_cpus(b->head), cpus) ? 2 : 0);
}

/* "head", "the baseline" or "both sides" for pg_bench_saturated()'s @sides. */
static const char *pg_sides_name(int sides)
{
        return sides == 3 ? "both sides" : sides == 2 ? "head" : "the baseline";
}

/* "other work kept 1.8 of 2 CPUs busy besides the benchmark in head, 1.7 in
 * the baseline": the figures behind a saturation note or demotion, of the
 * sides that recorded their load (cpus: the host's, 0 unknown). */
static char *pg_saturation_figures(const struct pg_bench_cmp *b)
{
        uint64_t cpus = pg_bench_cpus(b);
        const struct pg_load *bl = &b->base->load, *hl = &b->head->load;
        const struct pg_load *first = hl->present ? hl : bl;
        struct pg_buf t = PG_BUF_INIT;

        pg_buf_printf(&t, "other work kept %.1f ", first->other_cpus);
        if (cpus)
                pg_buf_printf(&t, "of %" PRIu64 " ", cpus);
        pg_buf_printf(&t, "CPUs busy besides the benchmark in %s",
                      hl->present ? "head" : "the baseline");
        if (hl->present && bl->present)
                pg_buf_printf(&t, ", %.1f in the baseline", bl->other_cpus);
        if (bl->steal >= 0.005 || hl->steal >= 0.005) {
                pg_buf_printf(&t, "; steal %.0f%% in %s", first->steal * 100,
                              hl->present ? "head" : "the baseline");
                if (hl->present && bl->present)
                        pg_buf_printf(&t, ", %.0f%% in the baseline", bl->steal * 100);
        }
        return pg_buf_detach(&t, NULL);
}

/*
 * A note when the machine's other load differed between the sides, or
 * when it saturated the runner on either side: two saturated sides have
 * alike figures however crowded the run queue was, and the times of a
 * saturated batch move by more than its spread shows.
 */
static void pg_host_note_load(struct pg_bench_cmp *b)
{
        char *text, *fig;
        int sat;

        if (pg_load_differs(&b->base->load, &b->head->load, pg_bench_cpus(b), &text)) {
                pg_host_note_add(b, PG_HOST_NOTE_LOAD, text);
                return;
        }
        sat = pg_bench_saturated(b);
        if (!sat)
                return;
        fig = pg_saturation_figures(b);
        pg_host_note_add(b, PG_HOST_NOTE_LOAD,
                         pg_xasprintf("the runner was saturated during %s: %s: time metrics may "
                                      "have moved with the machine" PG_CONFIRM_ADVICE,
                                      pg_sides_name(sat), fig));
        free(fig);
}

/*
 * The saturation rule for verdicts (docs/compare.md, "Runner load"): when
 * either side ran on a saturated runner, a regression of a time metric
 * (unit ns, measured) is inconclusive unless its change exceeds the
 * threshold by more than the between-batch movement measured under
 * saturation, (1 + change) / (1 + PG_LOAD_DRIFT_MAX) - 1 > threshold: A/A
 * batches of the bundled benchmarks on a saturated 2-CPU VM moved by up to
 * +52%; the allowance is about twice that (a doubling).
 */
#define PG_LOAD_DRIFT_MAX 1.0

static void pg_load_demote(struct pg_bench_cmp *b)
{
        int sat = pg_bench_saturated(b);
        char *fig = NULL;

        if (!sat)
                return;
        for (size_t i = 0; i < b->njudgements; i++) {
                struct pg_judgement *j = &b->judgements[i];
                if (j->outcome != PG_OUTCOME_REGRESSION || j->rule.deterministic || !j->has_rel ||
                    j->rule.kind != PG_THRESHOLD_RELATIVE || !j->unit ||
                    strcmp(j->unit, "ns") != 0 ||
                    (1 + j->rel_change) / (1 + PG_LOAD_DRIFT_MAX) - 1 > j->rule.threshold)
                        continue;
                if (!fig)
                        fig = pg_saturation_figures(b);
                j->outcome = PG_OUTCOME_INCONCLUSIVE;
                free(j->reason);
                j->reason = pg_xasprintf(
                    "the runner was saturated during %s (%s): the times of batches taken under "
                    "such load move by tens of percent whatever the spread inside each, so a "
                    "change under %+.0f%% is not told from that" PG_CONFIRM_ADVICE,
                    pg_sides_name(sat), fig,
                    100 * ((1 + j->rule.threshold) * (1 + PG_LOAD_DRIFT_MAX) - 1));
        }
        free(fig);
}

/* *@s (owned, may be NULL) with every PG_CONFIRM_ADVICE replaced by @with. */
static void pg_replace_advice(char **s, const char *with)
{
        struct pg_buf t = PG_BUF_INIT;
        const char *p = *s, *at;

        if (!p || !strstr(p, PG_CONFIRM_ADVICE))
                return;
        while ((at = strstr(p, PG_CONFIRM_ADVICE))) {
                pg_buf_add(&t, p, (size_t) (at - p));
                pg_buf_puts(&t, with);
                p = at + strlen(PG_CONFIRM_ADVICE);
        }
        pg_buf_puts(&t, p);
        free(*s);
        *s = pg_buf_detach(&t, NULL);
}

void pg_bench_confirm_reword(struct pg_bench_cmp *b)
{
        struct pg_buf with = PG_BUF_INIT;

        if (!b->confirm || !b->confirm->has_interval)
                return;
        pg_buf_puts(&with, "; ");
        pg_bench_confirm_result(&with, b->confirm);
        pg_replace_advice(&b->reason, with.ptr);
        pg_replace_advice(&b->host_note, with.ptr);
        for (size_t k = 0; k < b->nhost_notes; k++)
                pg_replace_advice(&b->host_notes[k].text, with.ptr);
        for (size_t i = 0; i < b->njudgements; i++)
                pg_replace_advice(&b->judgements[i].reason, with.ptr);
        pg_buf_release(&with);
}

/* Derived ratios and the metric whose zero makes them undefined. */
static const char *const pg_ratio_denominators[][2] = {
        { "ipc", "cycles" },
        { "branch-miss-rate", "branches" },
        { "cache-miss-rate", "cache-references" },
        { "L1-dcache-miss-rate", "L1-dcache-loads" },
        { "LLC-miss-rate", "LLC-loads" },
        { "cpus-utilized", "duration_time" },
};

static const char *pg_denominator_of(const char *ratio)
{
        for (size_t i = 0; i < sizeof(pg_ratio_denominators) / sizeof(pg_ratio_denominators[0]);
             i++)
                if (strcmp(pg_ratio_denominators[i][0], ratio) == 0)
                        return pg_ratio_denominators[i][1];
        return NULL;
}

/* Why a ratio is absent from @r: "'cycles' is 0", "'cycles' not-supported". */
static char *pg_ratio_why(const struct pg_result *r, const char *den)
{
        const struct pg_metric *m = r ? pg_result_find_metric(r, den) : NULL;

        if (!m)
                return pg_xasprintf("'%s' not measured", den);
        if (m->status != PG_METRIC_OK)
                return pg_xasprintf("'%s' %s", den, pg_metric_status_name(m->status));
        for (size_t i = 0; i < m->nvalues; i++)
                if (m->values[i] == 0)
                        return pg_xasprintf("'%s' is 0", den);
        return pg_xasprintf("'%s' unusable", den);
}

static int pg_outcome_rank(enum pg_outcome o)
{
        static const int rank[] = { 0, 2, 5, 1, 3, 4, 6 };
        return rank[o];
}

static int pg_judgement_cmp(const void *a, const void *b)
{
        const struct pg_judgement *x = a, *y = b;

        if (x->rule.gate != y->rule.gate)
                return x->rule.gate ? -1 : 1;
        if (x->outcome != y->outcome)
                return pg_outcome_rank(x->outcome) - pg_outcome_rank(y->outcome);
        if (x->badness != y->badness) {
                double ax = x->badness < 0 ? -x->badness : x->badness;
                double ay = y->badness < 0 ? -y->badness : y->badness;
                if (ax != ay)
                        return ax > ay ? -1 : 1;
        }
        return strcmp(x->metric, y->metric);
}

static bool pg_has_name(char **names, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i], s) == 0)
                        return true;
        return false;
}

static int pg_cause_cmp(const void *a, const void *b)
{
        const struct pg_cause *x = a, *y = b;
        double dx = x->head_count - x->base_count, dy = y->head_count - y->base_count;
        if (dx != dy)
                return dx > dy ? -1 : 1;
        return strcmp(x->function, y->function);
}

/* At most this many functions are named per regressed metric. */
#define PG_MAX_CAUSES 3

/*
 * Where a regression of @j comes from: the functions whose count of the
 * metric's counter (pg_metric_cause_counter) grew most between the two
 * per-function cost tables, largest growth first, growth > 0 only. Why
 * absolute growth rather than growth of share: "+3.1 M branch-misses in
 * classify()" is what moved the total; a function whose share grew only
 * because others shrank did not make anything slower.
 */
static void pg_find_causes(struct pg_judgement *j, const struct pg_result *base,
                           const struct pg_result *head)
{
        const struct pg_functions *fb = &base->functions, *fh = &head->functions;
        const char *counter = pg_metric_cause_counter(j->metric);
        int cb, ch;
        double tb = 0, th = 0;
        struct pg_cause *all;
        size_t n = 0;

        if (!counter || !fb->present || !fh->present)
                return;
        cb = pg_functions_counter_index(fb, counter);
        ch = pg_functions_counter_index(fh, counter);
        if (cb < 0 || ch < 0)
                return;
        for (size_t i = 0; i < fb->n; i++)
                tb += (double) fb->items[i].counts[cb];
        for (size_t i = 0; i < fh->n; i++)
                th += (double) fh->items[i].counts[ch];
        all = pg_xcalloc(fh->n + 1, sizeof(*all));
        for (size_t i = 0; i < fh->n; i++) {
                const struct pg_function *h = &fh->items[i];
                const struct pg_function *bf = pg_functions_find(fb, h->name);
                double hc = (double) h->counts[ch], bc = bf ? (double) bf->counts[cb] : 0;
                struct pg_cause *c;
                if (!(hc > bc))
                        continue;
                c = &all[n++];
                c->function = h->name; /* borrowed until copied below */
                c->file = h->file;
                c->line = h->line;
                c->base_count = bc;
                c->head_count = hc;
                c->base_share = tb > 0 ? bc / tb : 0;
                c->head_share = th > 0 ? hc / th : 0;
        }
        qsort(all, n, sizeof(*all), pg_cause_cmp);
        if (n > PG_MAX_CAUSES)
                n = PG_MAX_CAUSES;
        /* a function that added under 5% of the largest growth explains nothing */
        while (n > 1 && all[n - 1].head_count - all[n - 1].base_count <
                            0.05 * (all[0].head_count - all[0].base_count))
                n--;
        for (size_t i = 0; i < n; i++) {
                all[i].function = pg_xstrdup(all[i].function);
                all[i].file = all[i].file ? pg_xstrdup(all[i].file) : NULL;
        }
        if (!n) {
                free(all);
                return;
        }
        j->causes = all;
        j->ncauses = n;
        j->cause_counter = pg_xstrdup(counter);
}

static bool pg_is_simulated(const struct pg_result *r)
{
        return r->counters && strcmp(r->counters, "simulated") == 0;
}

/* One side simulated, the other measured: never compare those counts. */
static void pg_refuse_mixed(struct pg_judgement *j, const struct pg_result *base,
                            const struct pg_result *head)
{
        free(j->reason);
        j->outcome = PG_OUTCOME_INCONCLUSIVE;
        j->badness = 0;
        j->blocks = true;
        j->reason = pg_xasprintf("'%s' counters in the baseline, '%s' in head: simulated counts "
                                 "are never compared with measured ones; record the baseline "
                                 "with the same --counters",
                                 base->counters ? base->counters : "",
                                 head->counters ? head->counters : "");
}

/* Median task-clock of @r in ns, 0 when it has none. */
static double pg_median_task_clock(const struct pg_result *r)
{
        const struct pg_metric *tc = pg_result_find_metric(r, "task-clock");
        if (tc && tc->status == PG_METRIC_OK)
                return pg_stats_median(tc->values, tc->nvalues);
        return 0;
}

static void pg_judge_bench(struct pg_bench_cmp *b, const struct pg_rules *rules)
{
        const struct pg_result *base = b->base, *head = b->head;
        size_t cap = base->nmetrics + head->nmetrics + 8, nn = 0;
        char **names = pg_xcalloc(cap, sizeof(char *));
        bool cpu_diff = false;
        double head_tc, base_tc;
        bool both_sim = pg_is_simulated(base) && pg_is_simulated(head);
        bool mixed_sim = pg_is_simulated(base) != pg_is_simulated(head);

        b->host_diff = pg_host_diff(base, head, &cpu_diff);
        pg_host_note_kernel(b);
        for (size_t i = 0; i < head->nmetrics; i++)
                names[nn++] = head->metrics[i].name;
        for (size_t i = 0; i < base->nmetrics; i++)
                if (!pg_has_name(names, nn, base->metrics[i].name))
                        names[nn++] = base->metrics[i].name;
        b->judgements = pg_xcalloc(cap, sizeof(*b->judgements));
        for (size_t i = 0; i < nn; i++) {
                struct pg_metric_rule rule;
                struct pg_judgement *j = &b->judgements[b->njudgements++];
                const struct pg_metric *bm = pg_result_find_metric(base, names[i]);
                const struct pg_metric *hm = pg_result_find_metric(head, names[i]);
                const char *den = pg_denominator_of(names[i]);

                if (both_sim)
                        pg_rules_get_simulated(rules, b->name, names[i], &rule);
                else
                        pg_rules_get(rules, b->name, names[i], &rule);
                pg_judge_metric(names[i], bm, hm, &rule, b->host_diff, cpu_diff, j);
                if (mixed_sim && pg_metric_is_simulated(names[i]) &&
                    ((bm && bm->status == PG_METRIC_OK) || (hm && hm->status == PG_METRIC_OK))) {
                        pg_refuse_mixed(j, base, head);
                        continue;
                }
                if (j->outcome == PG_OUTCOME_REGRESSION)
                        pg_find_causes(j, base, head);
                if (den && (!bm || !hm)) {
                        char *w = pg_ratio_why(bm ? head : base, den);
                        char *r = pg_xasprintf("%s (%s)", j->reason, w);
                        free(j->reason);
                        free(w);
                        j->reason = r;
                }
        }
        /* ratios undefined on both sides: say so rather than stay silent */
        for (size_t i = 0; i < sizeof(pg_ratio_denominators) / sizeof(pg_ratio_denominators[0]);
             i++) {
                const char *ratio = pg_ratio_denominators[i][0], *den = pg_ratio_denominators[i][1];
                const struct pg_metric *db = pg_result_find_metric(base, den);
                const struct pg_metric *dh = pg_result_find_metric(head, den);
                struct pg_judgement *j;
                char *wb, *wh;
                if (pg_has_name(names, nn, ratio) ||
                    !((db && db->status == PG_METRIC_OK) || (dh && dh->status == PG_METRIC_OK)))
                        continue;
                j = &b->judgements[b->njudgements++];
                memset(j, 0, sizeof(*j));
                j->metric = pg_xstrdup(ratio);
                j->unit = pg_xstrdup("ratio");
                if (both_sim)
                        pg_rules_get_simulated(rules, b->name, ratio, &j->rule);
                else
                        pg_rules_get(rules, b->name, ratio, &j->rule);
                j->outcome = PG_OUTCOME_NOT_COMPARABLE;
                wb = pg_ratio_why(base, den);
                wh = pg_ratio_why(head, den);
                j->reason =
                    pg_xasprintf("undefined on both sides (baseline: %s; head: %s)", wb, wh);
                free(wb);
                free(wh);
        }
        free(names);

        head_tc = pg_median_task_clock(head);
        base_tc = pg_median_task_clock(base);
        pg_hotspots_init(&b->hotspots);
        b->hotspots_gate = rules->hotspots.gate;
        pg_hotspots_compare_verdict(&base->profile, &head->profile, base_tc, head_tc,
                                    &rules->hotspots, &b->hotspots);
        if (b->hotspots.kernel_side)
                pg_host_note_add(
                    b, PG_HOST_NOTE_KERNEL_FRAMES,
                    pg_xasprintf("kernel frames (_[k]) are in %s profile only (one side could "
                                 "not sample the kernel): not listed as new or vanished hotspots",
                                 b->hotspots.kernel_side == 1 ? "the baseline's" : "head's"));
        pg_host_note_load(b); /* last: the reports print it on a line of its own */
        pg_load_demote(b);
        pg_offcpu_cmp_init(&b->offcpu);
        if (base->offcpu.present || head->offcpu.present)
                pg_offcpu_compare(&base->offcpu, &head->offcpu, &rules->offcpu, &b->offcpu);
}

/* Whether @b's task-clock regressed: significant, beyond its threshold and
 * its noise. With @demoted, also when it is inconclusive in the bad
 * direction although significant: p below its alpha and the median beyond
 * the threshold, made inconclusive by the runner's load or the run-wide
 * drift (pg_load_demote(), the drift rule) or the spread within a side; not
 * the "too few runs" or "not significant" kind. The functions whose own time holds such a
 * rise are named "grew (own time)" (docs/compare.md, Hotspots). */
static bool pg_task_clock_grew(const struct pg_bench_cmp *b, bool demoted)
{
        for (size_t i = 0; i < b->njudgements; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                if (strcmp(j->metric, "task-clock") != 0)
                        continue;
                if (j->outcome == PG_OUTCOME_REGRESSION)
                        return true;
                return demoted && j->outcome == PG_OUTCOME_INCONCLUSIVE && !j->blocks && j->has_p &&
                       j->p_value < j->rule.alpha && j->badness > 1 && !j->rule.deterministic;
        }
        return false;
}

/* The verdict of @b from its judgements, hotspots and off-CPU paths (after
 * pg_judge_bench() and the run-wide drift rule). */
static void pg_decide_bench(struct pg_bench_cmp *b, const struct pg_rules *rules)
{
        const struct pg_result *base = b->base, *head = b->head;
        bool any_ok = false, reg = false, inc = false, imp = false;
        double head_tc = pg_median_task_clock(head), base_tc = pg_median_task_clock(base);
        const char *why = NULL;
        char *why_owned = NULL;

        qsort(b->judgements, b->njudgements, sizeof(*b->judgements), pg_judgement_cmp);
        for (size_t i = 0; i < head->nmetrics; i++)
                if (head->metrics[i].status == PG_METRIC_OK)
                        any_ok = true;
        if (!any_ok) {
                b->verdict = PG_VERDICT_FAILED;
                b->reason = pg_xstrdup("head has no measured metric (did the benchmark run?)");
                return;
        }
        for (size_t i = 0; i < b->njudgements; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                if (!j->rule.gate)
                        continue;
                if (j->outcome == PG_OUTCOME_REGRESSION) {
                        if (!reg)
                                why = j->metric;
                        reg = true;
                } else if (j->outcome == PG_OUTCOME_INCONCLUSIVE ||
                           ((j->outcome == PG_OUTCOME_NOT_JUDGED ||
                             j->outcome == PG_OUTCOME_NOT_COMPARABLE) &&
                            j->blocks)) {
                        if (!inc) {
                                free(why_owned);
                                why_owned = pg_xasprintf("%s: %s", j->metric,
                                                         j->reason ? j->reason : "inconclusive");
                        }
                        inc = true;
                } else if (j->outcome == PG_OUTCOME_IMPROVEMENT) {
                        imp = true;
                }
        }
        /* like a gating metric that vanished from head: the baseline had a
         * profile, head lost its own (not --no-profile), so the gate cannot
         * judge (docs/compare.md, step 3) */
        if (rules->hotspots.gate && !b->hotspots.judged && b->hotspots.head_lost) {
                if (!inc) {
                        free(why_owned);
                        why_owned = pg_xasprintf("hotspots not compared: %s", b->hotspots.reason);
                }
                inc = true;
        }
        if (rules->hotspots.gate && b->hotspots.judged)
                for (size_t i = 0; i < b->hotspots.n; i++)
                        if (b->hotspots.items[i].kind == PG_HOTSPOT_REGRESSED) {
                                if (!reg)
                                        why_owned = (free(why_owned),
                                                     pg_xasprintf("hotspot '%s' grew",
                                                                  b->hotspots.items[i].function));
                                reg = true;
                                break;
                        }
        if (pg_offcpu_culprit(&b->offcpu)) {
                const struct pg_offcpu_path *p = pg_offcpu_culprit(&b->offcpu);
                if (!reg)
                        why_owned = (free(why_owned),
                                     pg_xasprintf("off-CPU time grew by %.1f ms per run (%.1f -> "
                                                  "%.1f ms) blocked in %s",
                                                  p->delta_ms, p->base_ms, p->head_ms, p->path));
                reg = true;
        }
        if (reg) {
                /* a function that is most of the run keeps its share when it
                 * gets slower: name the ones whose own time holds the growth,
                 * when that growth is task-clock's regression (significant,
                 * beyond threshold and noise); another metric's regression or
                 * an off-CPU path leaves task-clock's rise, and every own
                 * time with it, noise */
                if (pg_task_clock_grew(b, false) && base_tc > 0 && head_tc > 0)
                        pg_hotspots_mark_grew(&b->hotspots, &head->profile, base_tc, head_tc,
                                              &rules->hotspots);
                b->verdict = PG_VERDICT_REGRESSION;
                b->reason = why ? pg_xasprintf("%s regressed", why) : why_owned;
                if (why)
                        free(why_owned);
        } else if (inc) {
                /* task-clock's rise was significant and beyond the threshold,
                 * but the runner's load, the run-wide drift or the spread
                 * made it inconclusive: the functions that hold it are named
                 * all the same (the verdict stays inconclusive) */
                if (pg_task_clock_grew(b, true) && base_tc > 0 && head_tc > 0)
                        pg_hotspots_mark_grew(&b->hotspots, &head->profile, base_tc, head_tc,
                                              &rules->hotspots);
                b->verdict = PG_VERDICT_INCONCLUSIVE;
                b->reason = why_owned;
        } else {
                free(why_owned);
                b->verdict = imp ? PG_VERDICT_IMPROVEMENT : PG_VERDICT_UNCHANGED;
        }
}

static int pg_bench_cmp_cmp(const void *a, const void *b)
{
        const struct pg_bench_cmp *x = a, *y = b;
        if (x->verdict != y->verdict)
                return (int) x->verdict - (int) y->verdict;
        return strcmp(x->name, y->name);
}

/* The run-wide drift rule (verdict.h, struct pg_run_drift; docs/compare.md,
 * "The whole run moved"). */
#define PG_DRIFT_MIN_BENCHES 8
#define PG_DRIFT_SAME_WAY    0.9
#define PG_DRIFT_MAX         0.15

/* Whether @j takes part in the drift rule: a gating metric with a relative
 * threshold, judged on measured values with a defined change. */
static bool pg_drift_judgement(const struct pg_judgement *j)
{
        return j->rule.gate && j->rule.kind == PG_THRESHOLD_RELATIVE && !j->rule.deterministic &&
               j->rule.direction != PG_DIR_NONE && j->has_rel &&
               (j->outcome == PG_OUTCOME_REGRESSION || j->outcome == PG_OUTCOME_IMPROVEMENT ||
                j->outcome == PG_OUTCOME_UNCHANGED || j->outcome == PG_OUTCOME_INCONCLUSIVE);
}

/* Apply the drift rule to gating metric @metric over @c's judged benchmarks. */
static void pg_drift_metric(struct pg_comparison *c, const char *metric)
{
        double *ch = pg_xcalloc(c->n + 1, sizeof(double)), shift;
        size_t n = 0, up = 0, down = 0, same;
        struct pg_run_drift *d;

        for (size_t i = 0; i < c->n; i++)
                for (size_t k = 0; c->benches[i].base && k < c->benches[i].njudgements; k++) {
                        const struct pg_judgement *j = &c->benches[i].judgements[k];
                        if (strcmp(j->metric, metric) != 0 || !pg_drift_judgement(j))
                                continue;
                        ch[n++] = j->rel_change;
                        up += j->rel_change > 0;
                        down += j->rel_change < 0;
                }
        same = up > down ? up : down;
        shift = n ? pg_stats_median(ch, n) : 0;
        free(ch);
        if (n < PG_DRIFT_MIN_BENCHES || (double) same < PG_DRIFT_SAME_WAY * (double) n ||
            !(fabs(shift) <= PG_DRIFT_MAX))
                return;
        c->drifts = pg_xrealloc(c->drifts, (c->ndrifts + 1) * sizeof(*c->drifts));
        d = &c->drifts[c->ndrifts++];
        memset(d, 0, sizeof(*d));
        d->metric = pg_xstrdup(metric);
        d->n = n;
        d->same_way = same;
        d->shift = shift;
        for (size_t i = 0; i < c->n; i++)
                for (size_t k = 0; c->benches[i].base && k < c->benches[i].njudgements; k++) {
                        struct pg_judgement *j = &c->benches[i].judgements[k];
                        if (strcmp(j->metric, metric) != 0 || !pg_drift_judgement(j) ||
                            j->outcome != PG_OUTCOME_REGRESSION ||
                            !(fabs((1 + j->rel_change) / (1 + shift) - 1) <= j->rule.threshold))
                                continue;
                        j->outcome = PG_OUTCOME_INCONCLUSIVE;
                        free(j->reason);
                        j->reason = pg_xasprintf(
                            "the whole run moved %+.1f%%: the runner's speed changed between the "
                            "batches, or a change slowed every benchmark alike; --confirm tells "
                            "them apart",
                            100 * shift);
                        d->demoted++;
                }
}

/* The drift rule for every gating metric of @c, each metric once. */
static void pg_run_drift(struct pg_comparison *c)
{
        const char **tried = NULL;
        size_t ntried = 0;

        for (size_t i = 0; i < c->n; i++)
                for (size_t k = 0; c->benches[i].base && k < c->benches[i].njudgements; k++) {
                        const struct pg_judgement *j = &c->benches[i].judgements[k];
                        bool seen = false;
                        if (!j->rule.gate)
                                continue;
                        for (size_t m = 0; m < ntried && !seen; m++)
                                seen = strcmp(tried[m], j->metric) == 0;
                        if (seen)
                                continue;
                        tried = pg_xreallocarray(tried, ntried + 1, sizeof(*tried));
                        tried[ntried++] = j->metric;
                        pg_drift_metric(c, j->metric);
                }
        free(tried);
}

char *pg_run_drift_note(const struct pg_run_drift *d)
{
        return pg_xasprintf("The whole run moved %+.1f%% in %s (%zu of %zu benchmarks the same "
                            "way): the runner's speed changed between the batches, or a change "
                            "slowed every benchmark alike; --confirm tells them apart. %zu "
                            "regression%s within the threshold of that shift %s inconclusive.",
                            100 * d->shift, d->metric, d->same_way, d->n, d->demoted,
                            d->demoted == 1 ? "" : "s", d->demoted == 1 ? "is" : "are");
}

void pg_compare_sets(const struct pg_result_set *base, const struct pg_result_set *head,
                     const struct pg_rules *rules, struct pg_comparison *out)
{
        out->benches = pg_xcalloc(base->n + head->n + 1, sizeof(*out->benches));
        out->fail_on_missing = rules->fail_on_missing;
        for (size_t i = 0; i < head->n; i++) {
                struct pg_bench_cmp *b = &out->benches[out->n++];
                b->name = pg_xstrdup(head->items[i].name);
                b->head = &head->items[i];
                b->base = pg_result_set_find(base, b->name);
                pg_hotspots_init(&b->hotspots);
                if (!b->base) {
                        b->verdict = PG_VERDICT_NEW;
                        b->reason = pg_xstrdup("new, no baseline");
                        continue;
                }
                pg_judge_bench(b, rules);
        }
        pg_run_drift(out);
        for (size_t i = 0; i < out->n; i++)
                if (out->benches[i].base)
                        pg_decide_bench(&out->benches[i], rules);
        for (size_t i = 0; i < base->n; i++) {
                struct pg_bench_cmp *b;
                if (pg_result_set_find(head, base->items[i].name))
                        continue;
                b = &out->benches[out->n++];
                b->name = pg_xstrdup(base->items[i].name);
                b->base = &base->items[i];
                pg_hotspots_init(&b->hotspots);
                b->verdict = PG_VERDICT_MISSING;
                b->reason = pg_xstrdup("in the baseline but not in head (removed or not run)");
        }
        pg_comparison_resort(out);
}

void pg_comparison_resort(struct pg_comparison *c)
{
        qsort(c->benches, c->n, sizeof(*c->benches), pg_bench_cmp_cmp);
        memset(c->counts, 0, sizeof(c->counts));
        for (size_t i = 0; i < c->n; i++)
                c->counts[c->benches[i].verdict]++;
}

int pg_comparison_exit_status(const struct pg_comparison *c)
{
        if (c->failed_status)
                return c->failed_status;
        if (c->counts[PG_VERDICT_REGRESSION] || c->counts[PG_VERDICT_FAILED])
                return 1;
        if (c->strict && c->counts[PG_VERDICT_INCONCLUSIVE])
                return 1;
        if (c->fail_on_missing && c->counts[PG_VERDICT_MISSING])
                return 1;
        return 0;
}

char *pg_comparison_summary(const struct pg_comparison *c)
{
        char *counts = pg_comparison_summary_counts(c), *s;

        /* a failed confirmation is what the exit status says: first */
        if (!c->failed_status)
                return counts;
        s = pg_xasprintf("not confirmed (exit %d): %s; %s", c->failed_status,
                         c->failed ? c->failed : "failed", counts);
        free(counts);
        return s;
}

char *pg_comparison_summary_counts(const struct pg_comparison *c)
{
        struct pg_buf b = PG_BUF_INIT;
        size_t reg = c->counts[PG_VERDICT_REGRESSION];
        static const enum pg_verdict extra[] = { PG_VERDICT_FAILED, PG_VERDICT_INCONCLUSIVE,
                                                 PG_VERDICT_MISSING, PG_VERDICT_IMPROVEMENT,
                                                 PG_VERDICT_NEW };
        bool lead[PG_VERDICT_COUNT] = { false }, first = true;

        /* Whatever fails the build besides regressions comes first, so the
         * line never opens with "no regression" on a failing exit status. */
        lead[PG_VERDICT_FAILED] = c->counts[PG_VERDICT_FAILED] > 0;
        lead[PG_VERDICT_INCONCLUSIVE] = c->strict && c->counts[PG_VERDICT_INCONCLUSIVE] > 0;
        lead[PG_VERDICT_MISSING] = c->fail_on_missing && c->counts[PG_VERDICT_MISSING] > 0;
        for (int v = 0; v < PG_VERDICT_COUNT; v++) {
                size_t k = c->counts[v];
                if (!lead[v])
                        continue;
                pg_buf_printf(&b, "%zu benchmark%s %s (%s), ", k, k == 1 ? "" : "s",
                              pg_verdict_name((enum pg_verdict) v),
                              v == PG_VERDICT_FAILED         ? "no metrics measured"
                              : v == PG_VERDICT_INCONCLUSIVE ? "failing under --strict"
                                                             : "failing under fail_on_missing");
        }
        if (reg || b.len)
                pg_buf_printf(&b, "%zu regression%s", reg, reg == 1 ? "" : "s");
        else
                pg_buf_puts(&b, "no regression");
        pg_buf_printf(&b, " in %zu benchmark%s", c->n, c->n == 1 ? "" : "s");
        for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
                size_t k = c->counts[extra[i]];
                if (!k || lead[extra[i]])
                        continue;
                pg_buf_printf(&b, "%s%zu %s", first ? " (" : ", ", k,
                              extra[i] == PG_VERDICT_IMPROVEMENT && k > 1
                                  ? "improvements"
                                  : pg_verdict_name(extra[i]));
                first = false;
        }
        if (!first)
                pg_buf_putc(&b, ')');
        return pg_buf_detach(&b, NULL);
}
