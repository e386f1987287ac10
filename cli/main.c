/*
 * main.c - perfgate's entry point and command table (git.c style): find the
 * subcommand, hand it argv, return its exit status. Also `help`,
 * `help CMD`, `--help` and `--version`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/interrupt.h"
#include "common/json.h"

const struct pg_command pg_commands[] = {
        { "run", cmd_run, "measure benchmarks under perf_event and write results", pg_usage_run },
        { "compare", cmd_compare, "judge results against a baseline and report regressions",
          pg_usage_compare },
        { "baseline", cmd_baseline, "save, list and show baselines stored in git",
          pg_usage_baseline },
        { "assets", cmd_assets, "publish flame graph images for PR/MR comments on a data branch",
          pg_usage_assets },
        { "show", cmd_show, "print a result as a perf stat table and hotspot list", pg_usage_show },
        { "flamegraph", cmd_flamegraph, "draw a flame graph (SVG) from a result or folded stacks",
          pg_usage_flamegraph },
        { "diff", cmd_diff, "draw a differential flame graph of two profiles", pg_usage_diff },
        { "fold", cmd_fold, "fold perf script output into folded stacks", pg_usage_fold },
        { "history", cmd_history, "chart every baseline along a branch and find change points",
          pg_usage_history },
        { "bisect", cmd_bisect, "find the commit between GOOD and BAD that made a benchmark slower",
          pg_usage_bisect },
        { "record", cmd_record, "sample a running process, the system or a command into a result",
          pg_usage_record },
        { "top", cmd_top, "live snapshots of a process's or the system's hottest functions",
          pg_usage_top },
        { "annotate", cmd_annotate, "show a function's samples by source line and instruction",
          pg_usage_annotate },
        { "doctor", cmd_doctor, "check what this machine can measure and how to fix gaps",
          pg_usage_doctor },
        { NULL, NULL, NULL, NULL },
};

const struct pg_command *pg_command_find(const char *name)
{
        for (const struct pg_command *c = pg_commands; c->name; c++)
                if (strcmp(c->name, name) == 0)
                        return c;
        return NULL;
}

/*
 * Print a message to stderr as pg_show_escape() shows it: messages quote
 * names and paths, and an ESC or a byte that is not UTF-8 in one must not
 * reach the terminal (docs/limits.md, "Names"). @flags: PG_SHOW_KEEP_LINES
 * for a message that may have lines of its own (the end of a benchmark's
 * log); a newline inside a name it quotes was escaped where it was quoted
 * (pg_shown()). A usage error is one line: every newline in it came from
 * the command line and is shown as \n. The line (@head, the message,
 * @tail) goes out in one write: stderr is unbuffered, so a byte at a time
 * would cost a system call per byte, and one write keeps concurrent
 * processes' lines whole.
 */
static void pg_cli_put_message(const char *head, const char *s, unsigned flags, const char *tail)
{
        struct pg_buf line = PG_BUF_INIT;

        pg_buf_puts(&line, head);
        pg_show_escape(&line, s, strlen(s), flags);
        pg_buf_puts(&line, tail);
        fwrite(line.ptr, 1, line.len, stderr);
        pg_buf_release(&line);
}

static void pg_cli_vput_message(const char *head, unsigned flags, const char *tail, const char *fmt,
                                va_list ap) __attribute__((format(printf, 4, 0)));

static void pg_cli_vput_message(const char *head, unsigned flags, const char *tail, const char *fmt,
                                va_list ap)
{
        char *msg = NULL;

        if (vasprintf(&msg, fmt, ap) < 0) {
                fputs(head, stderr);
                fputs(fmt, stderr);
                fputs(tail, stderr);
                return;
        }
        pg_cli_put_message(head, msg, flags, tail);
        free(msg);
}

int pg_cli_fail(int code)
{
        const char *msg = pg_error_last();
        /* every path that ran out of descriptors names the limit to raise */
        bool fd_limit = strstr(msg, strerror(EMFILE)) && !strstr(msg, "ulimit -n");
        /* and every path that found nothing because the working directory
         * was removed says so (a relative path then names nothing) */
        bool cwd_gone = strstr(msg, strerror(ENOENT)) && pg_cwd_gone();
        /* and every full disk says what to do (the writer said what was saved) */
        bool disk_full = pg_error_disk_full() && !strstr(msg, PG_DISK_FULL_TODO);

        pg_cli_put_message("perfgate: error: ", msg, PG_SHOW_KEEP_LINES,
                           fd_limit    ? "; raise the open-file limit (ulimit -n)\n"
                           : cwd_gone  ? "; the current directory no longer exists (it was removed "
                                         "after perfgate started in it): cd into an existing "
                                         "directory\n"
                           : disk_full ? "; " PG_DISK_FULL_TODO "\n"
                                       : "\n");
        return pg_exit_status(code);
}

int pg_cli_usage_error(const char *cmd, const char *fmt, ...)
{
        char *tail = pg_xasprintf("\nsee 'perfgate help %s'\n", cmd);
        va_list ap;

        va_start(ap, fmt);
        pg_cli_vput_message("perfgate: error: ", 0, tail, fmt, ap);
        va_end(ap);
        free(tail);
        return PG_EXIT_USAGE;
}

void pg_cli_error(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        pg_cli_vput_message("perfgate: error: ", PG_SHOW_KEEP_LINES, "\n", fmt, ap);
        va_end(ap);
}

void pg_cli_end_line(bool *line_open)
{
        if (*line_open) {
                fputs("\r\033[K", stderr);
                *line_open = false;
        }
}

void pg_cli_warn(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        pg_cli_vput_message("perfgate: warning: ", PG_SHOW_KEEP_LINES, "\n", fmt, ap);
        va_end(ap);
}

void pg_cli_warn_lines(const char *text)
{
        while (text && *text) {
                size_t n = strcspn(text, "\n");
                if (n)
                        pg_cli_warn("%.*s", (int) n, text);
                text += n + (text[n] == '\n');
        }
}

bool pg_cli_color(int fd)
{
        const char *term = getenv("TERM");
        const char *nc = getenv("NO_COLOR");
        if (nc && *nc)
                return false;
        if (term && strcmp(term, "dumb") == 0)
                return false;
        return isatty(fd);
}

bool pg_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
        char *end;
        unsigned long long v;

        if (!*s || *s == '-' || *s == '+')
                return false;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return false;
        *out = v;
        return true;
}

int pg_cli_freq_arg(const char *cmd, const char *arg, uint64_t *hz)
{
        if (!pg_cli_parse_u64(arg, 1, 1000000, hz))
                return pg_cli_usage_error(cmd, "--freq '%s' must be a frequency in Hz from 1", arg);
        return 0;
}

int pg_cli_call_graph_arg(const char *cmd, const char *arg, int *mode)
{
        if (strcmp(arg, "fp") == 0)
                *mode = 0;
        else if (strcmp(arg, "dwarf") == 0)
                *mode = 1;
        else
                return pg_cli_usage_error(cmd, "--call-graph '%s' must be fp or dwarf", arg);
        return 0;
}

bool pg_cli_wants_help(int argc, char **argv, const char *usage)
{
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--") == 0)
                        break;
                if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
                        fputs(usage, stdout);
                        return true;
                }
        }
        return false;
}

static const char pg_usage_main[] =
    "usage: perfgate <command> [options]\n"
    "\n"
    "perfgate runs benchmarks under Linux perf_event counters and sampling,\n"
    "stores the results as JSON baselines in git, and fails CI when a change\n"
    "is a real performance regression.\n"
    "\n"
    "commands:\n";

static void pg_print_help(FILE *f)
{
        fputs(pg_usage_main, f);
        for (const struct pg_command *c = pg_commands; c->name; c++)
                fprintf(f, "  %-11s %s\n", c->name, c->summary);
        fputs("\n"
              "'perfgate help <command>' or 'perfgate <command> --help' describes one command.\n"
              "\n"
              "exit status: 0 no regression, 1 regression found, 2 usage error or bad input,\n"
              "3 cannot measure, 4 internal or I/O error, 130 interrupted\n",
              f);
}

/* fds 0-2 closed at start would be reused by the first files perfgate opens
 * (and handed to benchmarks as their stdout): park /dev/null on them. */
static void pg_reserve_std_fds(void)
{
        for (int fd = 0; fd < 3; fd++)
                if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0)
                        break;
}

/* A command's output that could not be written is an I/O error (exit 4),
 * not a success: `perfgate doctor > /dev/full` must not exit 0. */
static int pg_finish(int status)
{
        if ((fflush(stdout) != 0 || ferror(stdout)) && status != PG_EXIT_INTERNAL) {
                fprintf(stderr, "perfgate: error: cannot write to standard output: %s\n",
                        strerror(errno ? errno : EIO));
                return PG_EXIT_INTERNAL;
        }
        return status;
}

static int pg_main(int argc, char **argv)
{
        const struct pg_command *c;

        if (argc < 2) {
                pg_print_help(stderr);
                return PG_EXIT_USAGE;
        }
        if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
                printf("perfgate %s\n", pg_version);
                return 0;
        }
        if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
            strcmp(argv[1], "-h") == 0) {
                if (argc > 2 && strcmp(argv[1], "help") == 0) {
                        c = pg_command_find(argv[2]);
                        if (!c) {
                                fprintf(stderr, "perfgate: error: unknown command '%s'\n", argv[2]);
                                return PG_EXIT_USAGE;
                        }
                        fputs(c->usage, stdout);
                        return 0;
                }
                pg_print_help(stdout);
                return 0;
        }
        c = pg_command_find(argv[1]);
        if (!c) {
                fprintf(stderr, "perfgate: error: unknown command '%s'\nsee 'perfgate help'\n",
                        argv[1]);
                return PG_EXIT_USAGE;
        }
        return c->fn(argc - 1, argv + 1);
}

/*
 * Standard output is line-buffered wherever it goes, as it is on a
 * terminal: a signal ends a command with _exit(130) from its handler
 * (common/interrupt.h), which cannot flush stdio (fflush(3) is not
 * async-signal-safe, signal-safety(7)). With a pipe's or file's default
 * full buffering, the lines printed before the signal would be lost and
 * the reader would get the output cut inside a line at a 4 KiB boundary;
 * line-buffered, every complete line has reached the reader when it is
 * printed, and a line up to the buffer's size goes out in one write(2).
 * Output written in blocks (fwrite of a report or a folded file) still
 * goes out in few writes.
 */
static void pg_line_buffer_stdout(void)
{
        static char buf[64 << 10];

        setvbuf(stdout, buf, _IOLBF, sizeof(buf));
}

int main(int argc, char **argv)
{
        pg_reserve_std_fds();
        pg_line_buffer_stdout();
        pg_interrupt_install(); /* exit 130 on SIGINT/SIGTERM/SIGHUP, every command */
        return pg_finish(pg_main(argc, argv));
}
