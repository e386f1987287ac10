/*
 * cmd_fold.c - `perfgate fold [FILE|-]...`: perf script text to folded
 * stacks, compatible with stackcollapse-perf.pl (runner/perfscript.h does
 * the work; this file parses options, opens inputs, prints one warning per
 * kind of odd input and writes the result).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/perfscript.h"

const char pg_usage_fold[] =
    "usage: perfgate fold [options] [FILE|-]...\n"
    "\n"
    "Fold `perf script` text (FILEs, or stdin when none or '-') into folded\n"
    "stacks, one 'root;...;leaf COUNT' line per distinct stack, sorted bytewise;\n"
    "compatible with stackcollapse-perf.pl. COUNT is the sum of the samples'\n"
    "periods (1 per sample when perf printed none). By default only the first\n"
    "event type met is kept, so cycles and instructions never mix.\n"
    "\n"
    "  perf record -g -- ./prog && perf script | perfgate fold > out.folded\n"
    "\n"
    "options:\n"
    "  --pid                 root frame 'comm-PID' ('comm-?' when perf printed one id)\n"
    "  --tid                 root frame 'comm-PID/TID'\n"
    "  --kernel              annotate kernel frames with _[k]\n"
    "  --jit                 annotate JIT frames (/tmp/perf-PID.map, jitdump) with _[j]\n"
    "  --inlined             annotate frames perf printed as (inlined) with _[i]\n"
    "  --all                 --kernel --jit --inlined\n"
    "  --addrs               unresolved frames as '[module <addr>]'\n"
    "  --event-filter EVENT  keep only samples of EVENT (a comma-separated list;\n"
    "                        'cpu-clock' also keeps 'cpu-clock:u'); default: the\n"
    "                        first event met, with any modifiers (:u, :ppp)\n"
    "  --comm MODE           root frame: keep (default), normalize (trailing thread\n"
    "                        numbers become '*': 'pool-3' -> 'pool-*'), none\n"
    "  --weight WHAT         period (default) or samples (count samples instead)\n"
    "  --max-stack N         a call chain of N or more frames counts as cut by the\n"
    "                        kernel (default: kernel.perf_event_max_stack, else 127;\n"
    "                        0 disables the check)\n"
    "  --mark-truncated      root such call chains under a '[truncated]' frame\n"
    "  --no-tidy-java        keep the leading 'L' of Java class names ('Lcom/x/Y:::m');\n"
    "                        by default it is dropped when the comm starts with 'java'\n"
    "  -o, --output FILE     write to FILE (atomically) instead of stdout\n"
    "  -q, --quiet           no warnings about odd input\n"
    "  -h, --help            this text\n"
    "\n"
    "Odd lines (perf warnings, non-sample records, unknown formats) are skipped\n"
    "with one warning per kind on stderr; the record at the end of the input is\n"
    "folded even without a trailing blank line. Empty input (or only '#' header\n"
    "lines) gives empty output and a '0 samples' warning.\n"
    "\n"
    "exit status: 0 folded (possibly 0 samples of an empty input), 2 usage error,\n"
    "missing file or input that holds no samples but other text, 4 I/O error\n";

enum {
        PG_OPT_PID = 256,
        PG_OPT_TID,
        PG_OPT_KERNEL,
        PG_OPT_JIT,
        PG_OPT_INLINED,
        PG_OPT_ALL,
        PG_OPT_ADDRS,
        PG_OPT_EVENT_FILTER,
        PG_OPT_COMM,
        PG_OPT_WEIGHT,
        PG_OPT_MAX_STACK,
        PG_OPT_MARK_TRUNCATED,
        PG_OPT_NO_TIDY_JAVA,
        PG_OPT_UNSUPPORTED
};

static const struct option pg_fold_longopts[] = {
        { "pid", no_argument, NULL, PG_OPT_PID },
        { "tid", no_argument, NULL, PG_OPT_TID },
        { "kernel", no_argument, NULL, PG_OPT_KERNEL },
        { "jit", no_argument, NULL, PG_OPT_JIT },
        { "inlined", no_argument, NULL, PG_OPT_INLINED },
        { "all", no_argument, NULL, PG_OPT_ALL },
        { "addrs", no_argument, NULL, PG_OPT_ADDRS },
        { "event-filter", required_argument, NULL, PG_OPT_EVENT_FILTER },
        { "comm", required_argument, NULL, PG_OPT_COMM },
        { "weight", required_argument, NULL, PG_OPT_WEIGHT },
        { "max-stack", required_argument, NULL, PG_OPT_MAX_STACK },
        { "mark-truncated", no_argument, NULL, PG_OPT_MARK_TRUNCATED },
        { "no-tidy-java", no_argument, NULL, PG_OPT_NO_TIDY_JAVA },
        { "output", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "inline", no_argument, NULL, PG_OPT_UNSUPPORTED },
        { "context", no_argument, NULL, PG_OPT_UNSUPPORTED },
        { "srcline", no_argument, NULL, PG_OPT_UNSUPPORTED },
        { NULL, 0, NULL, 0 },
};

/* kernel.perf_event_max_stack of this host, else perf's default 127. */
static unsigned pg_fold_host_max_stack(void)
{
        FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
        unsigned v = 0;

        if (f) {
                if (fscanf(f, "%u", &v) != 1)
                        v = 0;
                fclose(f);
        }
        return v ? v : 127;
}

static void pg_fold_warn_odd(const struct pg_perfscript_odd_info *o, const char *what)
{
        pg_cli_warn("%s %llu %s (first at %s:%llu: '%s')",
                    strncmp(what, "samples", 7) == 0 ? "found" : "skipped",
                    (unsigned long long) o->count, what, o->first_source,
                    (unsigned long long) o->first_line, o->excerpt);
}

static void pg_fold_report(const struct pg_perfscript_stats *st,
                           const struct pg_perfscript_options *opt)
{
        const struct pg_perfscript_odd_info *o = st->odd;

        if (o[PG_PS_ODD_UNRECOGNIZED].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_UNRECOGNIZED], "unrecognized lines");
        if (o[PG_PS_ODD_NON_SAMPLE].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_NON_SAMPLE], "non-sample records (PERF_RECORD_*)");
        if (o[PG_PS_ODD_PERF_MESSAGE].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_PERF_MESSAGE], "lines of perf's own messages");
        if (o[PG_PS_ODD_TRACE_ERROR].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_TRACE_ERROR], "trace error lines");
        if (o[PG_PS_ODD_ORPHAN_FRAME].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_ORPHAN_FRAME], "frame lines outside any sample");
        if (o[PG_PS_ODD_BAD_PERIOD].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_BAD_PERIOD],
                                 "records whose period is not a whole number below 2^64 "
                                 "(perf script prints it in decimal digits)");
        if (o[PG_PS_ODD_NO_FRAMES].count)
                pg_fold_warn_odd(&o[PG_PS_ODD_NO_FRAMES],
                                 "samples without frames (no stack to fold with --comm none)");
        /* an explicit --event-filter is a choice, not news (the reference's rule too) */
        if (o[PG_PS_ODD_OTHER_EVENT].count && !(opt->event_filter && opt->event_filter[0])) {
                pg_cli_warn("kept only event '%s' (the first in the input); skipped "
                            "%llu samples of other events (%s); choose with "
                            "--event-filter",
                            st->event, (unsigned long long) o[PG_PS_ODD_OTHER_EVENT].count,
                            st->other_events);
        }
        if (st->kernel_unresolved > 0 && st->kernel_unresolved * 2 > st->kernel_frames)
                pg_cli_warn("%llu of %llu kernel frames are unresolved ('[unknown]'): perf script "
                            "could not read the kernel's symbols; run it as the user who "
                            "recorded, or allow it with 'sysctl kernel.kptr_restrict=0' and "
                            "'sysctl kernel.perf_event_paranoid=1'",
                            (unsigned long long) st->kernel_unresolved,
                            (unsigned long long) st->kernel_frames);
        if (o[PG_PS_ODD_TRUNCATED].count)
                pg_cli_warn("%llu sample%s a call chain of %u or more frames, probably cut at "
                            "kernel.perf_event_max_stack (first at %s:%llu)%s; raise it with "
                            "'sysctl kernel.perf_event_max_stack=N' before recording",
                            (unsigned long long) o[PG_PS_ODD_TRUNCATED].count,
                            o[PG_PS_ODD_TRUNCATED].count == 1 ? " has" : "s have", opt->max_stack,
                            o[PG_PS_ODD_TRUNCATED].first_source,
                            (unsigned long long) o[PG_PS_ODD_TRUNCATED].first_line,
                            opt->mark_truncated ? "; rooted under '[truncated]'"
                                                : "; --mark-truncated keeps them apart");
}

/* Whether the input held text that is not perf script samples (samples without frames are). */
static bool pg_fold_any_odd(const struct pg_perfscript_stats *st)
{
        for (int k = 0; k < PG_PS_ODD__COUNT; k++)
                if (st->odd[k].count && k != PG_PS_ODD_NO_FRAMES && k != PG_PS_ODD_TRUNCATED)
                        return true;
        return false;
}

static int pg_fold_open(const char *path, FILE **f)
{
        struct stat sb;

        if (strcmp(path, "-") == 0) {
                *f = stdin;
                return 0;
        }
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
                return pg_error_set(PG_EINPUT, "'%s' is a directory, not perf script text", path);
        *f = fopen(path, "r");
        if (*f)
                return 0;
        if (errno == ENOENT)
                return pg_error_set(PG_ENOTFOUND,
                                    "cannot open '%s': no such file; give perf script's output "
                                    "(perf script > out.txt) or '-' for stdin",
                                    path);
        return pg_error_set(PG_EIO, "cannot open '%s': %s", path, strerror(errno));
}

static int pg_fold_write_output(struct pg_perfscript *ps, const char *path)
{
        struct pg_folded *v;
        struct pg_buf b = PG_BUF_INIT;
        size_t n;
        int error;

        if (!path)
                return pg_perfscript_write(ps, stdout, "<stdout>");
        pg_perfscript_sorted(ps, &v, &n);
        for (size_t i = 0; i < n; i++) {
                pg_buf_add(&b, v[i].stack, v[i].len);
                pg_buf_printf(&b, " %llu\n", (unsigned long long) v[i].count);
        }
        error = pg_write_file_atomic(path, b.ptr, b.len);
        pg_buf_release(&b);
        free(v);
        return error;
}

int cmd_fold(int argc, char **argv)
{
        struct pg_perfscript_options opt = { 0 };
        struct pg_perfscript *ps = NULL;
        const char *output = NULL;
        bool quiet = false, max_stack_set = false;
        int c, error = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_fold))
                return 0;
        opterr = 0;
        optind = 1;
        while ((c = getopt_long(argc, argv, ":o:qh", pg_fold_longopts, NULL)) != -1) {
                switch (c) {
                case PG_OPT_PID:
                        opt.include_pid = true;
                        break;
                case PG_OPT_TID:
                        opt.include_tid = true;
                        break;
                case PG_OPT_KERNEL:
                        opt.annotate_kernel = true;
                        break;
                case PG_OPT_JIT:
                        opt.annotate_jit = true;
                        break;
                case PG_OPT_INLINED:
                        opt.annotate_inlined = true;
                        break;
                case PG_OPT_ALL:
                        opt.annotate_kernel = opt.annotate_jit = opt.annotate_inlined = true;
                        break;
                case PG_OPT_ADDRS:
                        opt.include_addrs = true;
                        break;
                case PG_OPT_EVENT_FILTER:
                        /* empty names nothing: refused as "a,,b" is, not ignored */
                        if (!*optarg)
                                return pg_cli_usage_error("fold", "--event-filter is empty; "
                                                                  "name an event (cpu-clock)");
                        opt.event_filter = optarg;
                        break;
                case PG_OPT_COMM:
                        if (strcmp(optarg, "keep") == 0)
                                opt.comm = PG_COMM_KEEP;
                        else if (strcmp(optarg, "normalize") == 0)
                                opt.comm = PG_COMM_NORMALIZE;
                        else if (strcmp(optarg, "none") == 0)
                                opt.comm = PG_COMM_NONE;
                        else
                                return pg_cli_usage_error("fold",
                                                          "invalid --comm '%s'; use keep, "
                                                          "normalize or none",
                                                          optarg);
                        break;
                case PG_OPT_WEIGHT:
                        if (strcmp(optarg, "period") == 0)
                                opt.weight = PG_WEIGHT_PERIOD;
                        else if (strcmp(optarg, "samples") == 0)
                                opt.weight = PG_WEIGHT_SAMPLES;
                        else
                                return pg_cli_usage_error("fold",
                                                          "invalid --weight '%s'; use period "
                                                          "or samples",
                                                          optarg);
                        break;
                case PG_OPT_MAX_STACK: {
                        char *end;
                        errno = 0;
                        unsigned long v = strtoul(optarg, &end, 10);
                        if (errno || end == optarg || *end || optarg[0] == '-' || v > 1000000)
                                return pg_cli_usage_error("fold",
                                                          "invalid --max-stack '%s'; give a "
                                                          "frame count (0 disables the check)",
                                                          optarg);
                        opt.max_stack = (unsigned) v;
                        max_stack_set = true;
                        break;
                }
                case PG_OPT_MARK_TRUNCATED:
                        opt.mark_truncated = true;
                        break;
                case PG_OPT_NO_TIDY_JAVA:
                        opt.no_tidy_java = true;
                        break;
                case 'o':
                        output = optarg;
                        break;
                case 'q':
                        quiet = true;
                        break;
                case PG_OPT_UNSUPPORTED:
                        return pg_cli_usage_error(
                            "fold",
                            "'%s' is not supported: it runs addr2line on the recording "
                            "machine's binaries; record with 'perf script --inline' or "
                            "'-F+srcline' instead",
                            argv[optind - 1]);
                case ':':
                        return pg_cli_usage_error("fold", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("fold", "unknown option '%s'", argv[optind - 1]);
                }
        }
        if (opt.comm != PG_COMM_KEEP && (opt.include_pid || opt.include_tid))
                return pg_cli_usage_error("fold", "'--comm %s' cannot be combined with '%s'",
                                          opt.comm == PG_COMM_NONE ? "none" : "normalize",
                                          opt.include_tid ? "--tid" : "--pid");
        if (!max_stack_set)
                opt.max_stack = pg_fold_host_max_stack();
        if ((error = pg_perfscript_new(&ps, &opt)) < 0)
                return pg_cli_usage_error("fold", "%s", pg_error_last());

        for (int i = optind; i < argc || (i == optind && optind == argc); i++) {
                const char *path = i < argc ? argv[i] : "-";
                const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
                FILE *f;

                if ((error = pg_fold_open(path, &f)) < 0)
                        goto done;
                error = pg_perfscript_read(ps, f, name);
                if (f != stdin)
                        fclose(f);
                if (error < 0)
                        goto done;
        }

        const struct pg_perfscript_stats *st = pg_perfscript_stats(ps);
        if (st->samples == 0 && pg_fold_any_odd(st)) {
                const char *ev = opt.event_filter ? opt.event_filter : st->event;
                pg_fold_report(st, &opt);
                if (st->odd[PG_PS_ODD_OTHER_EVENT].count && ev && ev[0])
                        error =
                            pg_error_set(PG_EINPUT, "no samples of event '%s'; the input has '%s'",
                                         ev, st->other_events);
                else
                        error =
                            pg_error_set(PG_EINPUT, "no samples found; is this perf script output? "
                                                    "(record with 'perf record -g', then run "
                                                    "'perf script')");
                goto done;
        }
        if (!quiet)
                pg_fold_report(st, &opt);
        if (st->samples == 0) {
                const char *ev = st->event[0] ? st->event : st->header_event;
                if (ev[0])
                        pg_cli_warn("0 samples for event %s in the input; record a longer run "
                                    "or a higher frequency (perf record -F)",
                                    ev);
                else
                        pg_cli_warn("0 samples in the input; record a longer run or a higher "
                                    "frequency (perf record -F)");
        }
        error = pg_fold_write_output(ps, output);
done:
        pg_perfscript_free(ps);
        return error < 0 ? pg_cli_fail(error) : 0;
}
