/*
 * cmd_top.c - `perfgate top --stdio (-p PID | -a)`: plain snapshots, each
 * interval, of the functions a process or the system spends its time in,
 * by share of a decaying window, like `perf top --stdio` (runner/top.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/width.h"
#include "runner/launch.h"
#include "runner/top.h"

/* ncurses, loaded when the terminal view starts rather than linked: a
 * linked library is mapped and relocated before main(), and ncursesw with
 * its libtinfo would be paid by every command (`perfgate run` before its
 * first benchmark) for a view only `top` draws. The soname is the one of
 * the ncursesw the headers describe (Debian 12: libncursesw.so.6). */
#define PG_NC_STR2(x)      #x
#define PG_NC_STR(x)       PG_NC_STR2(x)
#define PG_NCURSES_SONAME  "libncursesw.so." PG_NC_STR(NCURSES_VERSION_MAJOR)
#define PG_NCURSES_PACKAGE "libncursesw" PG_NC_STR(NCURSES_VERSION_MAJOR)

/* every ncurses function the view calls, after curses.h's macros (erase()
 * is werase(stdscr), ...) */
#define PG_NCURSES_FUNCS(X)                                                                        \
        X(cbreak)                                                                                  \
        X(curs_set)                                                                                \
        X(delscreen)                                                                               \
        X(endwin)                                                                                  \
        X(keypad)                                                                                  \
        X(mvprintw)                                                                                \
        X(newterm)                                                                                 \
        X(noecho)                                                                                  \
        X(printw)                                                                                  \
        X(wattr_off)                                                                               \
        X(wattr_on)                                                                                \
        X(werase)                                                                                  \
        X(wgetch)                                                                                  \
        X(wrefresh)                                                                                \
        X(wtimeout)

static struct {
#define PG_NCURSES_FIELD(n) __typeof__(n) *n;
        PG_NCURSES_FUNCS(PG_NCURSES_FIELD)
#undef PG_NCURSES_FIELD
        WINDOW **stdscr;
} pg_nc;
static char pg_nc_error[512]; /* empty: loaded */

/* Load ncurses (once: top draws one view per process). 0, or -1 with the
 * reason in pg_nc_error. */
static int pg_nc_load(void)
{
        void *lib;
        const char *missing = NULL;

        if (pg_nc.stdscr)
                return 0;
        if ((lib = dlopen(PG_NCURSES_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
                const char *why = dlerror();
                snprintf(pg_nc_error, sizeof(pg_nc_error), "cannot load %s: %s", PG_NCURSES_SONAME,
                         why ? why : "unknown error");
                return -1;
        }
#define PG_NCURSES_SYM(n)                                                                          \
        if (missing == NULL && (*(void **) &pg_nc.n = dlsym(lib, #n)) == NULL)                     \
                missing = #n;
        PG_NCURSES_FUNCS(PG_NCURSES_SYM)
#undef PG_NCURSES_SYM
        if (missing == NULL && (pg_nc.stdscr = dlsym(lib, "stdscr")) == NULL)
                missing = "stdscr";
        if (missing) {
                snprintf(pg_nc_error, sizeof(pg_nc_error), "%s has no %s", PG_NCURSES_SONAME,
                         missing);
                pg_nc.stdscr = NULL;
                return -1;
        }
        return 0; /* the library stays loaded until exit */
}

#define cbreak    pg_nc.cbreak
#define curs_set  pg_nc.curs_set
#define delscreen pg_nc.delscreen
#define endwin    pg_nc.endwin
#define keypad    pg_nc.keypad
#define mvprintw  pg_nc.mvprintw
#define newterm   pg_nc.newterm
#define noecho    pg_nc.noecho
#define printw    pg_nc.printw
#define wattr_off pg_nc.wattr_off
#define wattr_on  pg_nc.wattr_on
#define werase    pg_nc.werase
#define wgetch    pg_nc.wgetch
#define wrefresh  pg_nc.wrefresh
#define wtimeout  pg_nc.wtimeout
#undef stdscr
#define stdscr (*pg_nc.stdscr)

const char pg_usage_top[] =
    "usage: perfgate top [--stdio] [options] (-p PID | -t TID | -a)\n"
    "\n"
    "Sample a running process (every thread), one thread, or the whole system\n"
    "and print, every --interval seconds, its hottest functions by share of a\n"
    "decaying window (each refresh weighs earlier samples by 7/8, as perf top\n"
    "does), with the samples of the last interval. Stops after --iterations\n"
    "snapshots, when the process (or thread) exits, or on Ctrl-C.\n"
    "\n"
    "On a terminal without --stdio the view is redrawn in place (ncurses):\n"
    "q quits, p pauses and resumes the display, the arrow keys select an\n"
    "entry and c shows or hides the hottest callers of its function.\n"
    "\n"
    "options:\n"
    "  --stdio              plain text snapshots, one after the other (for logs\n"
    "                       and scripts), instead of the terminal view\n"
    "  -p, --pid PID        sample this running process and its threads\n"
    "  -t, --tid TID        sample this thread alone (and threads it creates)\n"
    "  -a, --all-cpus       sample every process (needs perf_event_paranoid <= 0,\n"
    "                       CAP_PERFMON or root)\n"
    "  --interval SEC       seconds between snapshots (default 1)\n"
    "  --iterations N       stop after N snapshots (default: until Ctrl-C)\n"
    "  --sort KEYS          comm | dso | sym, comma-separated: what an entry is\n"
    "                       (default comm,dso,sym)\n"
    "  --lines N            entries per snapshot (default 20)\n"
    "  -F, --freq HZ        sampling frequency (default 999)\n"
    "  --call-graph MODE    fp | dwarf (default fp)\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 done (also on q, Ctrl-C or when the process exits); 2 usage\n"
    "error (no --stdio and no terminal), or no such process; 3 cannot measure\n"
    "(perf_event access refused)\n"
    "\n"
    "examples:\n"
    "  perfgate top -p \"$(pidof myservice)\"\n"
    "  perfgate top --stdio -p \"$(pidof myservice)\"\n"
    "  perfgate top --stdio --interval 2 --iterations 5 --sort dso,sym -a\n";

enum { OPT_STDIO = 256, OPT_INTERVAL, OPT_ITERATIONS, OPT_SORT, OPT_LINES, OPT_CALL_GRAPH };

static const struct option pg_top_options[] = {
        { "stdio", no_argument, NULL, OPT_STDIO },
        { "pid", required_argument, NULL, 'p' },
        { "tid", required_argument, NULL, 't' },
        { "all-cpus", no_argument, NULL, 'a' },
        { "interval", required_argument, NULL, OPT_INTERVAL },
        { "iterations", required_argument, NULL, OPT_ITERATIONS },
        { "sort", required_argument, NULL, OPT_SORT },
        { "lines", required_argument, NULL, OPT_LINES },
        { "freq", required_argument, NULL, 'F' },
        { "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

static const char *const pg_top_headers[] = { "comm", "dso", "symbol" };

static void pg_top_print(const struct pg_top *t, const struct pg_top_entry *const *e, size_t n,
                         size_t lines, double elapsed_s)
{
        int w[PG_TOP_MAX_KEYS] = { 0 };

        if (n > lines)
                n = lines;
        for (size_t k = 0; k < t->nkeys; k++) {
                w[k] = (int) strlen(pg_top_headers[t->keys[k]]);
                for (size_t i = 0; i < n; i++) {
                        int len = (int) pg_text_width(e[i]->fields[k]);

                        if (len > w[k])
                                w[k] = len > 32 ? 32 : len;
                }
        }
        printf("perfgate top: %.1f s, %llu samples in the last interval, %llu lost\n", elapsed_s,
               (unsigned long long) t->samples, (unsigned long long) t->lost);
        printf("   share  interval");
        for (size_t k = 0; k < t->nkeys; k++)
                printf("  %-*s", k + 1 < t->nkeys ? w[k] : 0, pg_top_headers[t->keys[k]]);
        putchar('\n');
        for (size_t i = 0; i < n; i++) {
                printf(" %6.2f%%  %8llu", 100.0 * e[i]->share, (unsigned long long) e[i]->interval);
                for (size_t k = 0; k < t->nkeys; k++) {
                        /* a column but the last: cut to its width, in columns */
                        const char *v = e[i]->fields[k];
                        size_t cut = k + 1 < t->nkeys ? pg_text_fit(v, (size_t) w[k]) : strlen(v);
                        char *shown = pg_xstrndup(v, cut);

                        fputs("  ", stdout);
                        pg_fput_pad(stdout, shown, k + 1 < t->nkeys ? (size_t) w[k] : 0);
                        free(shown);
                }
                putchar('\n');
        }
        putchar('\n');
        fflush(stdout);
}

/* The terminal view: the table of pg_top_print() drawn in place, keys read
 * between 100 ms slices of sampling. */
static void pg_top_draw(const struct pg_top *t, const struct pg_top_entry *const *e, size_t n,
                        size_t sel, bool paused, bool callers, double elapsed_s)
{
        int rows = getmaxy(stdscr), y = 0;

        erase();
        mvprintw(y++, 0, "perfgate top: %.1f s, %llu samples in the last interval, %llu lost%s",
                 elapsed_s, (unsigned long long) t->samples, (unsigned long long) t->lost,
                 paused ? "  [paused]" : "");
        mvprintw(y++, 0, "q quit  p pause  up/down select  c callers");
        y++;
        mvprintw(y++, 0, "   share  interval");
        for (size_t k = 0; k < t->nkeys; k++)
                printw("  %-24s", pg_top_headers[t->keys[k]]);
        for (size_t i = 0; i < n && y < rows - (callers ? 8 : 1); i++, y++) {
                if (i == sel)
                        attron(A_REVERSE);
                mvprintw(y, 0, " %6.2f%%  %8llu", 100.0 * e[i]->share,
                         (unsigned long long) e[i]->interval);
                for (size_t k = 0; k < t->nkeys; k++)
                        printw("  %-24.80s", e[i]->fields[k]);
                if (i == sel)
                        attroff(A_REVERSE);
        }
        if (callers && sel < n) {
                const char *sym = NULL;
                struct pg_top_caller c[5];

                for (size_t k = 0; k < t->nkeys; k++)
                        if (t->keys[k] == PG_TOP_SYM)
                                sym = e[sel]->fields[k];
                y++;
                if (sym == NULL) {
                        mvprintw(y, 0, "callers need the sym key in --sort");
                } else {
                        size_t nc = pg_top_callers(t, sym, c, 5);

                        mvprintw(y++, 0, "hottest callers of %s:", sym);
                        for (size_t i = 0; i < nc; i++, y++) {
                                mvprintw(y, 0, "  %8llu  %s", (unsigned long long) c[i].count,
                                         c[i].name);
                                free(c[i].name);
                        }
                }
        }
        refresh();
}

static int pg_top_tui(struct pg_top *t, double interval, uint64_t iterations,
                      struct pg_record_info *info)
{
        const struct pg_top_entry **e = NULL;
        size_t n = 0, sel = 0;
        bool paused = false, callers = false, quit = false;
        uint64_t start = pg_now_ns(), done = 0;

        const char *term = getenv("TERM");
        SCREEN *scr;

        if (pg_nc_load() < 0) {
                pg_cli_error("cannot start the terminal view: %s (Debian: apt-get install %s); "
                             "use --stdio for plain snapshots",
                             pg_nc_error, PG_NCURSES_PACKAGE);
                return PG_EXIT_USAGE;
        }
        /* newterm(), not initscr(): initscr() exits the process itself
         * (status 1, this tool's "regression") on an unknown terminal type,
         * newterm() returns NULL (curs_initscr(3X)) */
        if (!term || !*term || !(scr = newterm(NULL, stdout, stdin))) {
                pg_cli_error("cannot start the terminal view: the terminal type '%s' (TERM) is %s; "
                             "use --stdio for plain snapshots, or set TERM to a known type "
                             "(xterm-256color)",
                             term && *term ? term : "",
                             term && *term ? "unknown to terminfo" : "not set");
                return PG_EXIT_USAGE;
        }
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        timeout(0);
        curs_set(0);
        pg_top_draw(t, e, n, sel, paused, callers, 0);
        while (!quit && (iterations == 0 || done < iterations)) {
                uint64_t slice_end = pg_now_ns() + (uint64_t) (interval * 1e9);

                while (!quit && pg_now_ns() < slice_end) {
                        bool redraw = false;
                        int ch;

                        pg_live_wait(&t->live, 100000000ull, info);
                        if (info->interrupted || info->target_exited)
                                quit = true;
                        while ((ch = getch()) != ERR) {
                                redraw = true;
                                if (ch == 'q' || ch == 'Q')
                                        quit = true;
                                else if (ch == 'p' || ch == 'P' || ch == ' ')
                                        paused = !paused;
                                else if (ch == 'c' || ch == 'C')
                                        callers = !callers;
                                else if (ch == KEY_UP && sel > 0)
                                        sel--;
                                else if (ch == KEY_DOWN && sel + 1 < n)
                                        sel++;
                        }
                        if (redraw)
                                pg_top_draw(t, e, n, sel, paused, callers,
                                            (double) (pg_now_ns() - start) / 1e9);
                }
                if (quit)
                        break;
                if (!paused) {
                        pg_top_update(t, &e, &n);
                        done++;
                        if (sel >= n)
                                sel = n ? n - 1 : 0;
                }
                pg_top_draw(t, e, n, sel, paused, callers, (double) (pg_now_ns() - start) / 1e9);
        }
        endwin();
        delscreen(scr);
        if (info->target_exited)
                pg_cli_warn("the %s exited", t->live.o.tid > 0 ? "thread" : "process");
        return 0;
}

int cmd_top(int argc, char **argv)
{
        struct pg_record_opts o = { 0 };
        struct pg_record_info info;
        struct pg_top t;
        enum pg_top_key keys[PG_TOP_MAX_KEYS] = { PG_TOP_COMM, PG_TOP_DSO, PG_TOP_SYM };
        size_t nkeys = 3, lines = 20;
        uint64_t v, iterations = 0;
        double interval = 1;
        bool stdio_mode = false;
        char *end;
        int c, error, status = 0;
        uint64_t start;

        if (pg_cli_wants_help(argc, argv, pg_usage_top))
                return 0;
        o.freq_hz = 999;
        o.call_graph = PG_CALL_GRAPH_FP;
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":p:t:aF:h", pg_top_options, NULL)) != -1) {
                switch (c) {
                case OPT_STDIO:
                        stdio_mode = true;
                        break;
                case 'p':
                        if (!pg_cli_parse_u64(optarg, 1, 0x7fffffff, &v))
                                return pg_cli_usage_error(
                                    "top", "-p '%s' must be a process id (a whole number)", optarg);
                        o.pid = (pid_t) v;
                        break;
                case 't':
                        if (!pg_cli_parse_u64(optarg, 1, 0x7fffffff, &v))
                                return pg_cli_usage_error(
                                    "top", "-t '%s' must be a thread id (a whole number)", optarg);
                        o.tid = (pid_t) v;
                        break;
                case 'a':
                        o.system_wide = true;
                        break;
                case OPT_INTERVAL:
                        errno = 0;
                        interval = strtod(optarg, &end);
                        if (errno || *end || end == optarg || !isfinite(interval) ||
                            interval < 0.1 || interval > 3600)
                                return pg_cli_usage_error(
                                    "top", "--interval '%s' must be seconds from 0.1 to 3600",
                                    optarg);
                        break;
                case OPT_ITERATIONS:
                        if (!pg_cli_parse_u64(optarg, 1, 1000000000, &iterations))
                                return pg_cli_usage_error(
                                    "top", "--iterations '%s' must be a whole number from 1",
                                    optarg);
                        break;
                case OPT_SORT:
                        nkeys = pg_top_parse_sort(optarg, keys);
                        if (nkeys == 0)
                                return pg_cli_usage_error("top",
                                                          "--sort '%s' must list distinct keys "
                                                          "among comm, dso and sym",
                                                          optarg);
                        break;
                case OPT_LINES:
                        if (!pg_cli_parse_u64(optarg, 1, 100000, &v))
                                return pg_cli_usage_error(
                                    "top", "--lines '%s' must be a whole number from 1", optarg);
                        lines = (size_t) v;
                        break;
                case 'F':
                        if (pg_cli_freq_arg("top", optarg, &o.freq_hz))
                                return PG_EXIT_USAGE;
                        break;
                case OPT_CALL_GRAPH: {
                        int cg;

                        if (pg_cli_call_graph_arg("top", optarg, &cg))
                                return PG_EXIT_USAGE;
                        o.call_graph = (enum pg_call_graph) cg;
                        break;
                }
                case ':':
                        return pg_cli_usage_error("top", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("top", "unknown option '%s'", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return pg_cli_usage_error("top", "unexpected operand '%s'", argv[optind]);
        if ((o.pid > 0) + (o.tid > 0) + o.system_wide != 1)
                return pg_cli_usage_error("top", "give one target: -p PID, -t TID or -a");
        if (!stdio_mode && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
                return pg_cli_usage_error("top", "the live view needs a terminal; use --stdio "
                                                 "for plain snapshots");
        pg_launch_install_signal_handlers();
        error = pg_top_open(&t, &o, keys, nkeys, &info);
        if (error < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if (!stdio_mode) {
                status = pg_top_tui(&t, interval, iterations, &info);
                goto done;
        }
        start = pg_now_ns();
        for (uint64_t i = 0; iterations == 0 || i < iterations; i++) {
                const struct pg_top_entry **e;
                size_t n;

                pg_top_refresh(&t, (uint64_t) (interval * 1e9), &info, &e, &n);
                pg_top_print(&t, e, n, lines, (double) (pg_now_ns() - start) / 1e9);
                if (ferror(stdout)) {
                        /* a closed pipe or a full disk: stop sampling now,
                         * not after the last snapshot */
                        status = pg_cli_fail(pg_error_set(PG_EIO,
                                                          "cannot write to standard "
                                                          "output: %s",
                                                          strerror(errno)));
                        break;
                }
                if (info.interrupted)
                        break;
                if (info.target_exited) {
                        pg_cli_warn("%s %d exited", o.tid > 0 ? "thread" : "process",
                                    (int) (o.tid > 0 ? o.tid : o.pid));
                        break;
                }
        }
done:
        pg_top_close(&t);
        return status;
}
