/*
 * cmd_run.c - `perfgate run [PATH...]`: parse the options of DESIGN.md
 * section 2, discover and select benchmarks, and hand them to the runner
 * (runner/run.h), printing its progress and warnings on stderr. Benchmark
 * output never reaches the terminal (it goes to <out>/<name>.log).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "baselines/config.h"
#include "baselines/store.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/stats.h"
#include "runner/events.h"
#include "runner/launch.h"
#include "runner/run.h"
#include "runner/symbolize.h"

const char pg_usage_run[] =
    "usage: perfgate run [options] [PATH...]\n"
    "\n"
    "Measure benchmarks under perf_event counters and write one result file per\n"
    "benchmark to DIR/<name>.json (their output goes to DIR/<name>.log).\n"
    "PATH is a directory (its perfgate.json if present, else every executable\n"
    "file directly in it, sorted by name), a manifest file (*.json, the\n"
    "perfgate.json format) or an executable. Default: bench/\n"
    "\n"
    "A benchmark can limit counting and sampling to its region of interest with\n"
    "perf's control protocol: it writes enable/disable to the descriptor in\n"
    "PERF_CTL_FD and reads ack from PERF_CTL_ACK_FD (include/perfgate.h does this);\n"
    "\"roi\": true in perfgate.json starts counting disabled (docs/run.md).\n"
    "\n"
    "options:\n"
    "  --out DIR            where results go (default .perfgate/results)\n"
    "  --repeat N           measured repetitions (default 5, or perfgate.json's)\n"
    "  --warmup N           unmeasured runs first (default 1, or perfgate.json's)\n"
    "  --timeout SEC        kill a repetition after SEC seconds (default: none)\n"
    "  --events LIST        comma-separated perf event names (default: perf stat -d -d)\n"
    "  --counters MODE      auto | hardware | software | simulated (default auto);\n"
    "                       simulated: instructions, branches, caches and their\n"
    "                       per-function costs from one valgrind cachegrind run\n"
    "  --freq HZ            sampling frequency of the profile (default 999)\n"
    "  --call-graph MODE    fp | dwarf (default fp)\n"
    "  --min-samples N      repeat sampling runs until the profile has N samples\n"
    "                       (default 2000; at most 20 s of sampling per benchmark)\n"
    "  --debug-dir DIR      also look for separate debuginfo under DIR (by build-id)\n"
    "  --no-profile         count only; store no sampled profile\n"
    "  --off-cpu            also record where threads block (context switches with\n"
    "                       call chains; needs kernel sampling: paranoid <= 1 or\n"
    "                       CAP_PERFMON)\n"
    "  --sched              also record scheduler latency per task (CPU-wide sched\n"
    "                       tracepoints: root, CAP_PERFMON or paranoid -1)\n"
    "  --cpus LIST          pin benchmarks to these CPUs (e.g. 2,3 or 2-5)\n"
    "  --filter REGEX       run only benchmarks whose name matches (POSIX ERE)\n"
    "  --shard I/N          run only the I-th of N slices of the benchmarks (1-based)\n"
    "  --machine NAME       machine name stored in the results (default \"default\")\n"
    "  -q, --quiet          no progress output\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 all benchmarks measured; 2 usage error or bad input (options,\n"
    "perfgate.json, a benchmark path missing or not executable, unknown event);\n"
    "3 cannot measure (a benchmark crashed, exited non-zero or timed out, or has\n"
    "\"roi\": true but never enabled counting; no\n"
    "perf_event access; valgrind missing or unable to run a benchmark); 4 internal\n"
    "or I/O error (e.g. an unreadable cachegrind file); 130 interrupted.\n";

enum {
        OPT_OUT = 256,
        OPT_REPEAT,
        OPT_WARMUP,
        OPT_FREQ,
        OPT_CALL_GRAPH,
        OPT_EVENTS,
        OPT_COUNTERS,
        OPT_MIN_SAMPLES,
        OPT_DEBUG_DIR,
        OPT_NO_PROFILE,
        OPT_OFF_CPU,
        OPT_SCHED,
        OPT_TIMEOUT,
        OPT_CPUS,
        OPT_FILTER,
        OPT_SHARD,
        OPT_MACHINE
};

static const struct option pg_run_options[] = {
        { "out", required_argument, NULL, OPT_OUT },
        { "repeat", required_argument, NULL, OPT_REPEAT },
        { "warmup", required_argument, NULL, OPT_WARMUP },
        { "freq", required_argument, NULL, OPT_FREQ },
        { "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
        { "events", required_argument, NULL, OPT_EVENTS },
        { "counters", required_argument, NULL, OPT_COUNTERS },
        { "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
        { "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
        { "no-profile", no_argument, NULL, OPT_NO_PROFILE },
        { "off-cpu", no_argument, NULL, OPT_OFF_CPU },
        { "sched", no_argument, NULL, OPT_SCHED },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "cpus", required_argument, NULL, OPT_CPUS },
        { "filter", required_argument, NULL, OPT_FILTER },
        { "shard", required_argument, NULL, OPT_SHARD },
        { "machine", required_argument, NULL, OPT_MACHINE },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

struct pg_run_cli {
        bool quiet;
        bool tty;
        bool line_open; /* a \r progress line is on the terminal */
        bool warned_few_repeats;
};

/* "0-3,5" -> CPU numbers; false on syntax errors or CPUs this machine lacks. */
static bool pg_parse_cpus(const char *s, int **out, size_t *n)
{
        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
        const char *p = s;

        *out = NULL;
        *n = 0;
        while (*p) {
                char *end;
                long a, b;
                errno = 0;
                a = strtol(p, &end, 10);
                if (end == p || errno || a < 0)
                        return false;
                b = a;
                if (*end == '-') {
                        p = end + 1;
                        b = strtol(p, &end, 10);
                        if (end == p || errno || b < a)
                                return false;
                }
                if (b >= ncpu || b >= CPU_SETSIZE)
                        return false;
                for (long c = a; c <= b; c++) {
                        *out = pg_xreallocarray(*out, *n + 1, sizeof(int));
                        (*out)[(*n)++] = (int) c;
                }
                if (*end == ',')
                        end++;
                else if (*end)
                        return false;
                p = end;
        }
        return *n > 0;
}

static void pg_run_end_line(struct pg_run_cli *cli)
{
        pg_cli_end_line(&cli->line_open);
}

/* compare's default alpha (docs/compare.md, "Defaults") */
#define PG_RUN_GATE_ALPHA 0.05

/* Say once when results have too few repetitions for any change to be
 * significant at compare's default alpha: compared with results like
 * them, every change would be "inconclusive" and pass. */
static void pg_run_warn_few_repeats(struct pg_run_cli *cli, const struct pg_result *r)
{
        double p;

        if (cli->warned_few_repeats || !r->repeat)
                return;
        p = pg_stats_mwu_best_p((size_t) r->repeat, (size_t) r->repeat);
        if (!(p > PG_RUN_GATE_ALPHA))
                return;
        cli->warned_few_repeats = true;
        pg_cli_warn(
            "%llu repetitions per benchmark cannot gate on their own: compared with "
            "results of as few, even a large change reaches at best p = %.2g (Mann-Whitney), "
            "above compare's alpha %.2g, and passes as inconclusive; use --repeat 5",
            (unsigned long long) r->repeat, p, PG_RUN_GATE_ALPHA);
}

/* Below this median task-clock (ns) a benchmark is short: between batches
 * minutes apart on a shared runner its median drifts by more than compare's
 * 10% threshold (docs/compare.md, "Why these numbers"). */
#define PG_RUN_SHORT_NS 50e6

/* Say once per benchmark (each has one DONE event) when its median
 * task-clock is short, with the measured drift and what to do about it. */
static void pg_run_warn_short(const char *name, const struct pg_result *r)
{
        const struct pg_metric *tc = pg_result_find_metric(r, "task-clock");
        double med;

        if (!tc || tc->status != PG_METRIC_OK || !tc->nvalues)
                return;
        med = pg_stats_median(tc->values, tc->nvalues);
        if (!(med < PG_RUN_SHORT_NS))
                return;
        pg_cli_warn("%s: task-clock median %.2f ms is below 50 ms: on a shared runner the median "
                    "of a 2-10 ms benchmark drifted 9-30%% between batches minutes apart "
                    "(far beyond compare's 10%% threshold), so comparisons with a stored baseline "
                    "gave 3-12%% false alarms; loop inside the benchmark until a run takes at "
                    "least 50 ms, or gate it with `perfgate compare --confirm` "
                    "(docs/compare.md, \"Why these numbers\"); if it should run longer, see "
                    "its log: a benchmark filter that matches nothing also exits 0",
                    name, med / 1e6);
}

/* The progress line of a sampling run on a terminal, with the hottest
 * functions so far, cut to the terminal's width (a line that wraps could
 * not be redrawn in place). */
static void pg_run_sampled_line(struct pg_run_cli *cli, const struct pg_run_event *ev)
{
        struct pg_buf b = PG_BUF_INIT;
        struct winsize ws;
        size_t width = 80;

        if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                width = ws.ws_col;
        pg_buf_printf(&b, "benchmark %zu/%zu %s, sampling run %llu", ev->index, ev->total, ev->name,
                      (unsigned long long) ev->rep);
        for (size_t i = 0; i < ev->top->n && ev->top->total > 0; i++) {
                const char *n = ev->top->name[i];
                int len = (int) strlen(n);

                /* a long (C++) name is cut so that three fit */
                pg_buf_printf(&b, "%s%.*s%s %.0f%%", i ? ", " : ": ", len > 32 ? 29 : len, n,
                              len > 32 ? "..." : "",
                              100.0 * (double) ev->top->samples[i] / (double) ev->top->total);
        }
        if (b.len > width - 1)
                b.len = width - 1; /* bytes: a multi-byte name may end a little early */
        pg_run_end_line(cli);
        fwrite(b.ptr, 1, b.len, stderr);
        cli->line_open = true;
        pg_buf_release(&b);
}

static void pg_run_on_event(void *ctx, const struct pg_run_event *ev)
{
        struct pg_run_cli *cli = ctx;
        double elapsed_s = (double) ev->elapsed_ns / 1e9;

        switch (ev->kind) {
        case PG_RUN_EV_START:
                if (cli->quiet)
                        return;
                pg_run_end_line(cli);
                fprintf(stderr, "benchmark %zu/%zu %s, %s %llu/%llu, elapsed %.1f s%s", ev->index,
                        ev->total, ev->name, ev->warmup ? "warmup" : "repetition",
                        (unsigned long long) ev->rep, (unsigned long long) ev->nreps, elapsed_s,
                        cli->tty ? "" : "\n");
                cli->line_open = cli->tty;
                break;
        case PG_RUN_EV_SIMULATE:
                if (cli->quiet)
                        return;
                pg_run_end_line(cli);
                fprintf(stderr,
                        "benchmark %zu/%zu %s, simulated run under valgrind, elapsed %.1f s%s",
                        ev->index, ev->total, ev->name, elapsed_s, cli->tty ? "" : "\n");
                cli->line_open = cli->tty;
                break;
        case PG_RUN_EV_SAMPLED:
                if (!cli->quiet && cli->tty)
                        pg_run_sampled_line(cli, ev);
                break;
        case PG_RUN_EV_RAN:
                if (cli->quiet)
                        return;
                pg_run_end_line(cli);
                fprintf(stderr, "benchmark %zu/%zu %s, %s run %llu/%llu done, elapsed %.1f s%s",
                        ev->index, ev->total, ev->name, ev->what, (unsigned long long) ev->rep,
                        (unsigned long long) ev->nreps, elapsed_s, cli->tty ? "" : "\n");
                cli->line_open = cli->tty;
                break;
        case PG_RUN_EV_DONE: {
                const struct pg_metric *tc = pg_result_find_metric(ev->result, "task-clock");
                pg_run_end_line(cli);
                pg_run_warn_few_repeats(cli, ev->result);
                pg_run_warn_short(ev->name, ev->result);
                if (cli->quiet)
                        return;
                pg_run_end_line(cli);
                fprintf(stderr, "benchmark %zu/%zu %s: done in %.1f s", ev->index, ev->total,
                        ev->name, elapsed_s);
                if (tc && tc->status == PG_METRIC_OK && tc->nvalues)
                        fprintf(stderr, ", task-clock median %.2f ms",
                                pg_stats_median(tc->values, tc->nvalues) / 1e6);
                fprintf(stderr, " -> %s\n", ev->path);
                break;
        }
        case PG_RUN_EV_WARNING:
                pg_run_end_line(cli);
                if (ev->name)
                        pg_cli_warn("%s: %s", ev->name, ev->message);
                else
                        pg_cli_warn("%s", ev->message);
                break;
        case PG_RUN_EV_FAILED:
                pg_run_end_line(cli);
                pg_cli_error("%s", ev->message);
                break;
        }
}

static const char pg_run_default_out[] = ".perfgate/results";

int cmd_run(int argc, char **argv)
{
        struct pg_run_opts o;
        struct pg_run_cli cli = { 0 };
        struct pg_event_list events;
        struct pg_bench_list list = { 0, NULL };
        struct pg_run_summary sum;
        const char *filter = NULL;
        const char *default_path[] = { "bench/" };
        unsigned shard_i = 0, shard_n = 0;
        int *cpus = NULL;
        size_t ncpus = 0;
        uint64_t v;
        int c, error, status = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_run))
                return 0;
        /* before perfgate grows, so benchmarks' max-rss is not perfgate's */
        if (pg_launch_spawner_start() < 0)
                pg_cli_warn("%s; max-rss may include perfgate's own memory", pg_error_last());
        memset(&o, 0, sizeof(o));
        o.out_dir = pg_run_default_out;
        o.repeat = o.warmup = -1;
        o.timeout_sec = -1;
        o.freq_hz = 999;
        o.call_graph = PG_CALL_GRAPH_FP;
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":qh", pg_run_options, NULL)) != -1) {
                switch (c) {
                case OPT_OUT:
                        if (!*optarg)
                                return pg_cli_usage_error("run", "--out needs a directory");
                        o.out_dir = optarg;
                        break;
                case OPT_REPEAT:
                        if (!pg_cli_parse_u64(optarg, 1, 1000000, &v))
                                return pg_cli_usage_error(
                                    "run", "--repeat '%s' must be a whole number from 1 to 1000000",
                                    optarg);
                        o.repeat = (int64_t) v;
                        break;
                case OPT_WARMUP:
                        if (!pg_cli_parse_u64(optarg, 0, 1000000, &v))
                                return pg_cli_usage_error(
                                    "run", "--warmup '%s' must be a whole number from 0", optarg);
                        o.warmup = (int64_t) v;
                        break;
                case OPT_FREQ:
                        if (pg_cli_freq_arg("run", optarg, &o.freq_hz))
                                return PG_EXIT_USAGE;
                        break;
                case OPT_CALL_GRAPH: {
                        int cg;

                        if (pg_cli_call_graph_arg("run", optarg, &cg))
                                return PG_EXIT_USAGE;
                        o.call_graph = (enum pg_call_graph) cg;
                        break;
                }
                case OPT_EVENTS:
                        if ((error = pg_events_parse(&events, optarg)) < 0) {
                                status = pg_cli_fail(error);
                                goto done;
                        }
                        o.events = &events;
                        break;
                case OPT_COUNTERS:
                        if (strcmp(optarg, "auto") == 0)
                                o.counters = PG_COUNTERS_AUTO;
                        else if (strcmp(optarg, "hardware") == 0)
                                o.counters = PG_COUNTERS_HARDWARE;
                        else if (strcmp(optarg, "software") == 0)
                                o.counters = PG_COUNTERS_SOFTWARE;
                        else if (strcmp(optarg, "simulated") == 0)
                                o.counters = PG_COUNTERS_SIMULATED;
                        else
                                return pg_cli_usage_error(
                                    "run",
                                    "--counters '%s' must be auto, hardware, software or "
                                    "simulated",
                                    optarg);
                        break;
                case OPT_MIN_SAMPLES:
                        if (!pg_cli_parse_u64(optarg, 1, 1000000000, &v))
                                return pg_cli_usage_error(
                                    "run", "--min-samples '%s' must be a whole number from 1",
                                    optarg);
                        o.min_samples = v;
                        break;
                case OPT_DEBUG_DIR:
                        if (!pg_is_dir(optarg))
                                return pg_cli_usage_error(
                                    "run", "--debug-dir '%s' is not a directory", optarg);
                        o.debug_dir = optarg;
                        break;
                case OPT_NO_PROFILE:
                        o.no_profile = true;
                        break;
                case OPT_OFF_CPU:
                        o.off_cpu = true;
                        break;
                case OPT_SCHED:
                        o.sched = true;
                        break;
                case OPT_TIMEOUT: {
                        char *end;
                        double t;
                        errno = 0;
                        t = strtod(optarg, &end);
                        if (!*optarg || *end || errno || !isfinite(t) || t < 0 || t > 1e7 ||
                            (t > 0 && t < PG_TIMEOUT_MIN_SEC))
                                return pg_cli_usage_error(
                                    "run",
                                    "--timeout '%s' must be 0 (none) or at least 0.001 seconds "
                                    "(at most 1e7)",
                                    optarg);
                        o.timeout_sec = t;
                        break;
                }
                case OPT_CPUS:
                        free(cpus);
                        if (!pg_parse_cpus(optarg, &cpus, &ncpus)) {
                                free(cpus);
                                return pg_cli_usage_error(
                                    "run",
                                    "--cpus '%s' must list CPUs of this machine, like 0,2-3 "
                                    "(it has %ld)",
                                    optarg, sysconf(_SC_NPROCESSORS_CONF));
                        }
                        break;
                case OPT_FILTER:
                        filter = optarg;
                        break;
                case OPT_SHARD: {
                        char tail;
                        if (sscanf(optarg, "%u/%u%c", &shard_i, &shard_n, &tail) != 2 ||
                            shard_n == 0 || shard_i < 1 || shard_i > shard_n) {
                                free(cpus);
                                return pg_cli_usage_error(
                                    "run", "--shard '%s' must be I/N with 1 <= I <= N", optarg);
                        }
                        break;
                }
                case OPT_MACHINE:
                        /* the rule `baseline save` applies, checked before anything runs */
                        if (pg_store_check_machine(optarg) < 0) {
                                free(cpus);
                                return pg_cli_usage_error("run", "--machine '%s': %s", optarg,
                                                          pg_error_last());
                        }
                        o.machine = optarg;
                        break;
                case 'q':
                        cli.quiet = true;
                        break;
                case ':':
                        free(cpus);
                        return pg_cli_usage_error("run", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        free(cpus);
                        return pg_cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
                }
        }
        o.cpus = cpus;
        o.ncpus = ncpus;
        cli.tty = isatty(STDERR_FILENO);
        o.report = pg_run_on_event;
        o.report_ctx = &cli;

        if (optind < argc)
                error = pg_run_discover(&list, (const char *const *) argv + optind,
                                        (size_t) (argc - optind));
        else
                error = pg_run_discover(&list, default_path, 1);
        if (error < 0 || (error = pg_bench_list_select(&list, filter, shard_i, shard_n)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if (!list.n) {
                /* a warning even with -q: a CI run that measures nothing should say so */
                pg_cli_warn("no benchmark matches%s%s; nothing to run", filter ? " the filter" : "",
                            shard_n ? " in this shard" : "");
                goto done;
        }
        /* the default directory is perfgate's own name: a link there (a
         * project may commit one) is refused, not followed */
        if (o.out_dir == pg_run_default_out &&
            (error = pg_path_check_no_links(NULL, pg_run_default_out)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        pg_launch_install_signal_handlers();
        error = pg_run_benchmarks(&list, &o, &sum);
        pg_run_end_line(&cli);
        if (error < 0)
                status = pg_cli_fail(error);
done:
        pg_bench_list_release(&list);
        free(cpus);
        pg_launch_spawner_stop();
        return status;
}
