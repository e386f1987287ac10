/*
 * cmd_record.c - `perfgate record (-p PID | -a | -- COMMAND...)`: sample a
 * running process, the whole system or a command for a while
 * (runner/record.h) and write the folded profile as a result file
 * (docs/result-format.md), ready for `show`, `flamegraph` and `compare`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baselines/result.h"
#include "baselines/store.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/strv.h"
#include "runner/host.h"
#include "runner/launch.h"
#include "runner/record.h"

const char pg_usage_record[] =
    "usage: perfgate record [options] -p PID\n"
    "       perfgate record [options] -t TID\n"
    "       perfgate record [options] -a\n"
    "       perfgate record [options] -- COMMAND [ARG...]\n"
    "\n"
    "Sample call stacks of a running process (all its threads, present and\n"
    "future), of one of its threads, of the whole system, or of a command, for\n"
    "--duration seconds or until interrupted (Ctrl-C), and write them as a\n"
    "result file (profile, duration_time and the sampling event's count) for\n"
    "'perfgate show', 'perfgate flamegraph' and 'perfgate compare'.\n"
    "\n"
    "options:\n"
    "  -p, --pid PID        record this running process and its threads\n"
    "  -t, --tid TID        record this thread alone (and threads it creates)\n"
    "  -a, --all-cpus       record every process (needs perf_event_paranoid <= 0,\n"
    "                       CAP_PERFMON or root)\n"
    "  --duration SEC       stop after SEC seconds (default: when the target exits\n"
    "                       or on Ctrl-C)\n"
    "  -F, --freq HZ        sampling frequency (default 999)\n"
    "  --call-graph MODE    fp | dwarf (default fp)\n"
    "  --debug-dir DIR      also look for separate debuginfo under DIR (by build-id)\n"
    "  --name NAME          result name (default: the process name, the command's\n"
    "                       base name, or \"system\")\n"
    "  --out DIR            write DIR/NAME.json (default .perfgate/results)\n"
    "  -o, --output FILE    write FILE instead\n"
    "  --machine NAME       machine name stored in the result (default \"default\")\n"
    "  -q, --quiet          no progress output\n"
    "  -h, --help           this text\n"
    "\n"
    "A target that exits before the end is not an error: the samples taken until\n"
    "then are written, and perfgate says so. A command's output goes to\n"
    "/dev/null.\n"
    "\n"
    "exit status: 0 recorded; 2 usage error or bad input (no such process, no\n"
    "target, a command that cannot be run); 3 cannot measure (perf_event access\n"
    "refused: another user's process, -a unprivileged); 4 internal or I/O error\n"
    "\n"
    "examples:\n"
    "  perfgate record -p 4242 --duration 30\n"
    "  perfgate record -F 99 --call-graph dwarf -o before.json -p 4242 --duration 30\n"
    "  perfgate record -- ./server --port 8080\n";

enum { OPT_DURATION = 256, OPT_CALL_GRAPH, OPT_DEBUG_DIR, OPT_NAME, OPT_OUT, OPT_MACHINE };

static const struct option pg_record_options[] = {
        { "pid", required_argument, NULL, 'p' },
        { "tid", required_argument, NULL, 't' },
        { "all-cpus", no_argument, NULL, 'a' },
        { "duration", required_argument, NULL, OPT_DURATION },
        { "freq", required_argument, NULL, 'F' },
        { "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
        { "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
        { "name", required_argument, NULL, OPT_NAME },
        { "out", required_argument, NULL, OPT_OUT },
        { "output", required_argument, NULL, 'o' },
        { "machine", required_argument, NULL, OPT_MACHINE },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

static char *pg_sanitized(const char *s, size_t len)
{
        struct pg_buf b = PG_BUF_INIT;

        pg_utf8_sanitize(&b, s, len);
        return pg_buf_detach(&b, NULL);
}

/* The argv of process @pid from /proc/PID/cmdline (NUL-separated). */
static void pg_proc_cmdline(pid_t pid, struct pg_result *r)
{
        char path[64];
        struct pg_buf b = PG_BUF_INIT;
        size_t n = 0;

        snprintf(path, sizeof(path), "/proc/%d/cmdline", (int) pid);
        if (pg_read_file(path, &b) == 0 && b.len > 0) {
                for (size_t i = 0; i < b.len; i++)
                        n += b.ptr[i] == '\0' || i + 1 == b.len;
                r->command = pg_xcalloc(n, sizeof(char *));
                for (size_t i = 0, at = 0; r->ncommand < n; i++)
                        if (i == b.len || b.ptr[i] == '\0') {
                                r->command[r->ncommand++] = pg_sanitized(b.ptr + at, i - at);
                                at = i + 1;
                        }
        }
        pg_buf_release(&b);
}

/* A result name from a process or file name: no '/', not empty or dot-only. */
static char *pg_record_name(const char *s)
{
        const char *slash = strrchr(s, '/');
        char *n = pg_sanitized(slash ? slash + 1 : s, strlen(slash ? slash + 1 : s));

        if (!pg_result_name_valid(n)) {
                free(n);
                n = pg_xstrdup("record");
        }
        return n;
}

/* the default output directory: perfgate's own name, never followed through a link */
static const char pg_record_default_out[] = ".perfgate/results";

int cmd_record(int argc, char **argv)
{
        struct pg_record_opts o = { 0 };
        struct pg_record_info info;
        struct pg_result res;
        struct pg_buf warnings = PG_BUF_INIT;
        const char *name = NULL, *out_dir = pg_record_default_out, *output = NULL,
                   *machine = "default";
        char *path = NULL;
        bool quiet = false;
        uint64_t v;
        double dur;
        char *end;
        int c, error, status = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_record))
                return 0;
        o.freq_hz = 999;
        o.call_graph = PG_CALL_GRAPH_FP;
        optind = 0;
        opterr = 0;
        /* '+': options end at the command (its own options are its own) */
        while ((c = getopt_long(argc, argv, "+:p:t:aF:o:qh", pg_record_options, NULL)) != -1) {
                switch (c) {
                case 'p':
                        if (!pg_cli_parse_u64(optarg, 1, 0x7fffffff, &v))
                                return pg_cli_usage_error(
                                    "record", "-p '%s' must be a process id (a whole number)",
                                    optarg);
                        o.pid = (pid_t) v;
                        break;
                case 't':
                        if (!pg_cli_parse_u64(optarg, 1, 0x7fffffff, &v))
                                return pg_cli_usage_error(
                                    "record", "-t '%s' must be a thread id (a whole number)",
                                    optarg);
                        o.tid = (pid_t) v;
                        break;
                case 'a':
                        o.system_wide = true;
                        break;
                case OPT_DURATION:
                        errno = 0;
                        dur = strtod(optarg, &end);
                        /* 0 ns would mean "no duration": the least is 1 ns */
                        if (errno || *end || end == optarg || !isfinite(dur) || dur < 1e-9 ||
                            dur > 1e7)
                                return pg_cli_usage_error(
                                    "record",
                                    "--duration '%s' must be a number of seconds between 1e-09 "
                                    "(1 ns) and 1e+07 (about 115 days)",
                                    optarg);
                        o.duration_ns = (uint64_t) llround(dur * 1e9);
                        break;
                case 'F':
                        if (pg_cli_freq_arg("record", optarg, &o.freq_hz))
                                return PG_EXIT_USAGE;
                        break;
                case OPT_CALL_GRAPH: {
                        int cg;

                        if (pg_cli_call_graph_arg("record", optarg, &cg))
                                return PG_EXIT_USAGE;
                        o.call_graph = (enum pg_call_graph) cg;
                        break;
                }
                case OPT_DEBUG_DIR:
                        o.debug_dir = optarg;
                        break;
                case OPT_NAME:
                        if (!pg_result_name_valid(optarg))
                                return pg_cli_usage_error(
                                    "record", "--name '%s' is not a valid result name: it %s (%s)",
                                    optarg, pg_result_name_why(optarg), PG_RESULT_NAME_RULE);
                        name = optarg;
                        break;
                case OPT_OUT:
                        if (!*optarg)
                                return pg_cli_usage_error("record", "--out needs a directory");
                        out_dir = optarg;
                        break;
                case 'o':
                        if (!*optarg)
                                return pg_cli_usage_error("record", "--output needs a file");
                        output = optarg;
                        break;
                case OPT_MACHINE:
                        /* the rule `run` and `baseline save` apply */
                        if (pg_store_check_machine(optarg) < 0)
                                return pg_cli_usage_error("record", "--machine '%s': %s", optarg,
                                                          pg_error_last());
                        machine = optarg;
                        break;
                case 'q':
                        quiet = true;
                        break;
                case ':':
                        return pg_cli_usage_error("record", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("record", "unknown option '%s'",
                                                  argv[optind - 1]);
                }
        }
        if (optind < argc)
                o.argv = argv + optind;
        if ((o.pid > 0) + (o.tid > 0) + o.system_wide + (o.argv != NULL) != 1)
                return pg_cli_usage_error(
                    "record", o.pid > 0 || o.tid > 0 || o.system_wide || o.argv
                                  ? "give only one target: -p PID, -t TID, -a or -- COMMAND"
                                  : "nothing to record: give -p PID, -t TID, -a or -- COMMAND");
        /* the output is checked before recording, not after: a recording
         * cannot be taken again */
        if (output)
                error = pg_output_file_check(output);
        else if (out_dir != pg_record_default_out ||
                 (error = pg_path_check_no_links(NULL, out_dir)) == 0)
                error = pg_mkdir_own(out_dir);
        if (error < 0)
                return pg_cli_fail(error);
        pg_launch_install_signal_handlers();
        if (!quiet) {
                if (o.pid > 0)
                        fprintf(stderr, "perfgate: recording process %d", (int) o.pid);
                else if (o.tid > 0)
                        fprintf(stderr, "perfgate: recording thread %d", (int) o.tid);
                else if (o.system_wide)
                        fprintf(stderr, "perfgate: recording the whole system");
                else
                        fprintf(stderr, "perfgate: recording '%s'", o.argv[0]);
                fprintf(stderr, " at %llu Hz%s\n", (unsigned long long) o.freq_hz,
                        o.duration_ns ? "" : "; Ctrl-C stops");
        }
        pg_result_init(&res);
        error = pg_record(&o, &res.profile, &info, &warnings);
        if (error < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        for (char *line = warnings.ptr, *nl; line && *line; line = nl + 1) {
                nl = strchr(line, '\n');
                if (nl == NULL)
                        break;
                *nl = '\0';
                pg_cli_warn("%s", line);
        }
        res.name = pg_xstrdup(name                                       ? name
                              : (o.pid > 0 || o.tid > 0) && info.comm[0] ? info.comm
                              : o.argv                                   ? o.argv[0]
                                                                         : "system");
        if (!name) {
                char *n = pg_record_name(res.name);

                free(res.name);
                res.name = n;
        }
        if (o.pid > 0 || o.tid > 0) /* a thread shares its process's command line */
                pg_proc_cmdline(o.pid > 0 ? o.pid : o.tid, &res);
        if (res.ncommand == 0 && o.argv) {
                for (char *const *a = o.argv; *a; a++)
                        res.ncommand++;
                res.command = pg_strv_dup(o.argv, res.ncommand);
        }
        if (res.ncommand == 0) {
                res.command = pg_xcalloc(1, sizeof(char *));
                res.command[res.ncommand++] = o.pid > 0   ? pg_xasprintf("pid:%d", (int) o.pid)
                                              : o.tid > 0 ? pg_xasprintf("tid:%d", (int) o.tid)
                                                          : pg_xstrdup("-a");
        }
        res.created = pg_result_created_now();
        res.machine = pg_xstrdup(machine);
        pg_host_probe(&res.host);
        res.host.exclude_kernel = info.exclude_kernel;
        res.counters = pg_xstrdup(info.cycles ? "hardware" : "software");
        res.repeat = 1;
        res.warmup = 0;
        {
                double wall = (double) info.wall_ns, count = (double) info.event_count;

                pg_result_add_metric(&res, "duration_time", "ns", PG_METRIC_OK, &wall, NULL, 1,
                                     NULL);
                if (info.event_count > 0)
                        pg_result_add_metric(&res, info.cycles ? "cycles" : "cpu-clock",
                                             info.cycles ? "count" : "ns", PG_METRIC_OK, &count,
                                             NULL, 1, NULL);
        }
        res.recording.present = true;
        res.recording.ended = info.interrupted     ? PG_RECORD_END_INTERRUPTED
                              : info.target_exited ? PG_RECORD_END_TARGET_EXITED
                                                   : PG_RECORD_END_DURATION;
        res.recording.elapsed_ns = info.wall_ns;
        res.recording.requested_ns = o.duration_ns;
        if (output) {
                /* a path the user named: written as cp(1) writes */
                path = pg_xstrdup(output);
                error = pg_result_save_as(&res, path);
        } else {
                /* DIR/NAME.json: our own name, in a directory of our own */
                path = pg_xasprintf("%s/%s.json", out_dir, res.name);
                error = pg_result_save(&res, path);
        }
        if (error < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if (info.target_exited && (o.pid > 0 || o.tid > 0 || o.duration_ns))
                pg_cli_warn("%s %s exited after %.1f s, before the recording ended; '%s' holds "
                            "the %llu samples taken until then",
                            o.pid > 0   ? "process"
                            : o.tid > 0 ? "thread"
                                        : "command",
                            res.name, (double) info.wall_ns / 1e9, path,
                            (unsigned long long) res.profile.samples);
        if (o.argv && info.target_exited &&
            (!WIFEXITED(info.exit_status) || WEXITSTATUS(info.exit_status) != 0))
                pg_cli_warn("command '%s' %s", o.argv[0], pg_describe_status(info.exit_status));
        if (!quiet)
                fprintf(stderr, "perfgate: %llu samples in %.1f s (%llu lost) written to %s\n",
                        (unsigned long long) res.profile.samples, (double) info.wall_ns / 1e9,
                        (unsigned long long) res.profile.lost, path);
done:
        free(path);
        pg_result_release(&res);
        pg_buf_release(&warnings);
        return status;
}
