/*
 * run.c - the measuring loop of `perfgate run` (see run.h); the benchmarks
 * come from runner/discover.c.
 * Invariants: a
 * result file is written only for a benchmark whose every repetition exited
 * with status 0, and it goes through pg_result_save() (atomic); a failed
 * benchmark leaves no result file behind; the benchmark's output never
 * reaches perfgate's own stdout/stderr.
 */
#include "runner/run.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baselines/config.h"
#include "baselines/worktree.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/strv.h"
#include "runner/control.h"
#include "runner/host.h"
#include "runner/kallsyms.h"
#include "runner/procload.h"
#include "runner/sched.h"
#include "runner/simulate.h"

/* ---- one counting run -------------------------------------------------- */

struct pg_count_ctx {
        struct pg_control *ctl;
        int *slot; /* the control fd's entry in the polled fds */
};

static int pg_count_poll_cb(void *arg)
{
        struct pg_count_ctx *x = arg;
        int error = pg_control_poll(x->ctl);
        *x->slot = x->ctl->ctl_rd;
        return error;
}

/* One counting run whose benchmark speaks the control protocol; @ctl is
 * finished (its counts valid) on return, also on error. */
static int pg_run_count_ctl(const struct pg_bench *b, int log_fd, const int *cpus, size_t ncpus,
                            uint64_t timeout_ns, struct pg_counter_set *s, struct pg_exit *ex,
                            struct pg_control *ctl)
{
        char **argv = pg_xcalloc(b->argc + 1, sizeof(char *));
        int leaders[PG_EVENTS_MAX], poll_fd = -1;
        struct pg_count_ctx cx = { ctl, &poll_fd };
        struct pg_launch_opts lo;
        struct pg_child child;
        int error;

        memset(ex, 0, sizeof(*ex));
        memcpy(argv, b->argv, b->argc * sizeof(char *));
        argv[0] = b->exec_path;
        lo = (struct pg_launch_opts){ .argv = argv,
                                      .cwd = b->cwd,
                                      .env = b->env,
                                      .log_fd = log_fd,
                                      .cpus = cpus,
                                      .ncpus = ncpus,
                                      .ctl_fds = ctl->child_fds };
        if ((error = pg_launch_prepare(&child, &lo)) < 0)
                goto done;
        if ((error = pg_counter_set_open(s, child.pid)) < 0) {
                pg_launch_cancel(&child);
                goto done;
        }
        pg_control_set_targets(ctl, leaders, pg_counter_set_leader_fds(s, leaders));
        if ((error = pg_launch_start(&child, b->argv[0])) < 0)
                goto done;
        pg_control_start(ctl, child.start_ns);
        poll_fd = ctl->ctl_rd;
        error = pg_launch_wait(&child, timeout_ns, &poll_fd, 1, pg_count_poll_cb, &cx, ex);
        if (pg_control_finish(ctl, child.start_ns + ex->wall_ns) < 0 && !error)
                error = PG_EIO;
        if (error < 0)
                goto done;
        error = pg_counter_set_read(s);
done:
        pg_control_close(ctl);
        pg_counter_set_close(s);
        free(argv);
        return error;
}

int pg_run_count_once(const struct pg_bench *b, int log_fd, const int *cpus, size_t ncpus,
                      uint64_t timeout_ns, struct pg_counter_set *s, struct pg_exit *ex)
{
        struct pg_control ctl;
        int error;

        if ((error = pg_control_open(&ctl, !s->start_disabled)) < 0) {
                pg_counter_set_close(s);
                return error;
        }
        return pg_run_count_ctl(b, log_fd, cpus, ncpus, timeout_ns, s, ex, &ctl);
}

/* ---- the run ------------------------------------------------------------ */

/* The failure message shows at most this much of the log's end. */
#define PG_LOG_TAIL_READ_BYTES 4096

struct pg_run_state {
        const struct pg_run_opts *o;
        struct pg_event_list events;
        struct pg_host host;
        bool has_git;
        char git_commit[41]; /* 40 hex digits */
        bool git_dirty;
        bool git_probed;     /* pg_git_probe() ran */
        char *git_top;       /* the work tree's top (pg_git_probe()), or NULL */
        bool exclude_kernel; /* learnt from the first open; kept for every later one */
        bool no_group_read;
        bool warned_user_fallback;
        bool warned_profile;
        bool warned_offcpu;
        bool sched_probed; /* pg_sched_probe() ran: sched_tp or sched_why is set */
        struct pg_sched_tp sched_tp;
        char *sched_why; /* why scheduler latency cannot be recorded here, or NULL */
        bool warned_no_counters;
        bool warned_group_read;
        bool warned_kallsyms;
        char *valgrind; /* --counters simulated: valgrind's path */
        size_t index, total;
        uint64_t bench_start_ns;
};

static void pg_report(struct pg_run_state *st, struct pg_run_event *ev)
{
        ev->index = st->index;
        ev->total = st->total;
        if (st->o->report)
                st->o->report(st->o->report_ctx, ev);
}

static void pg_warn(struct pg_run_state *st, const char *name, const char *msg)
{
        struct pg_run_event ev = { .kind = PG_RUN_EV_WARNING, .name = name, .message = msg };
        pg_report(st, &ev);
}

/* Say once that kernel counting is excluded, and what that changes. */
static void pg_warn_user_only(struct pg_run_state *st)
{
        char *m;
        if (st->warned_user_fallback)
                return;
        m = pg_xasprintf("kernel.perf_event_paranoid=%d and no CAP_PERFMON: counting user "
                         "space only (exclude_kernel=1); context-switches and cpu-migrations "
                         "are not measured (they happen only in the kernel: recorded as "
                         "kernel-only)",
                         st->host.perf_event_paranoid);
        pg_warn(st, NULL, m);
        free(m);
        st->warned_user_fallback = true;
}

/* One warning per line of @text (newline-separated; modified in place). */
static void pg_warn_lines(struct pg_run_state *st, const char *name, struct pg_buf *text)
{
        char *line = text->ptr;
        while (*line) {
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                if (*line)
                        pg_warn(st, name, line);
                if (!nl)
                        break;
                line = nl + 1;
        }
}

/* Why: CI logs should show where the benchmark itself complained, so the
 * failure message carries the end of its log (at most 10 lines, 2 KiB),
 * read from the descriptor perfgate wrote it through. */
char *pg_log_tail(const struct pg_bench_log *log)
{
        struct pg_buf text = PG_BUF_INIT, out = PG_BUF_INIT;
        size_t start, lines = 0;
        const char *path = log->path;

        if (pg_read_tail(log->fd, PG_LOG_TAIL_READ_BYTES, &text) < 0 || !text.len) {
                pg_buf_release(&text);
                return pg_xstrdup("(its log is empty)");
        }
        start = text.len;
        if (text.ptr[start - 1] == '\n')
                start--;
        while (start > 0 && text.len - start < 2048) {
                if (text.ptr[start - 1] == '\n' && ++lines == 10)
                        break;
                start--;
        }
        pg_buf_puts(&out, "last lines of '");
        pg_show_escape(&out, path, strlen(path), 0);
        pg_buf_puts(&out, "':\n");
        /* a NUL must not end the message early, an ESC or BEL must not reach
         * the terminal: the log's lines stay, its other bytes are escaped */
        pg_show_escape(&out, text.ptr + start, text.len - start, PG_SHOW_KEEP_LINES);
        while (out.len && out.ptr[out.len - 1] == '\n')
                pg_buf_truncate(&out, out.len - 1);
        pg_buf_release(&text);
        return pg_buf_detach(&out, NULL);
}

/* The name pg_stale_move() gives the old file "<name>.<ext>" of @out_dir:
 * hidden, and no result or log ever has it (malloc'd). */
static char *pg_stale_path(const char *out_dir, const char *name, const char *ext)
{
        char *leaf = pg_xasprintf(".%s.%s.stale", name, ext);
        char *p = pg_path_join(out_dir, leaf);

        free(leaf);
        return p;
}

/* Free the name @path (the file "<name>.<ext>" of @out_dir) for this run's
 * file now, before any benchmark runs (a benchmark the run never reaches
 * then has no result, not the previous run's), and free the old file's
 * space later (pg_stale_drop(), after the benchmarks): the file moves to
 * pg_stale_path() in the same directory.
 * rename(2) is a directory update; unlink(2) of a file whose blocks were
 * just written and synced also frees them, milliseconds of journal work on
 * ext4 (bench/exec-to-exec.sh) that would delay the benchmark. rename(2)
 * moves a link itself, never what it points to. When the rename fails (a
 * directory at the stale name), the file is unlinked now instead. */
static void pg_stale_move(const char *path, const char *out_dir, const char *name, const char *ext)
{
        char *stale = pg_stale_path(out_dir, name, ext);

        if (rename(path, stale) < 0 && errno != ENOENT)
                unlink(path);
        free(stale);
}

/* Remove the files pg_stale_move() set aside for the @n benchmarks of
 * @l in @out_dir, if it is still the directory @id names (else nothing; a
 * run killed before this leaves them, hidden, for the next run to replace).
 * The calling thread's error message is left as it was. */
static void pg_stale_drop(const struct pg_bench_list *l, size_t n, const char *out_dir,
                          const struct pg_dir_id *id)
{
        struct stat st; /* as pg_dir_unchanged() judges, without its message */

        if (stat(out_dir, &st) != 0 || (uint64_t) st.st_dev != id->dev ||
            (uint64_t) st.st_ino != id->ino)
                return;
        for (size_t i = 0; i < n; i++) {
                for (int k = 0; k < 2; k++) {
                        char *p = pg_stale_path(out_dir, l->items[i].name, k ? "log" : "json");

                        unlink(p);
                        free(p);
                }
        }
}

/* After a failure to create or write in the output directory @dir: when
 * it, or the nearest directory above it that exists, cannot be written (a
 * read-only file system, EROFS; no write permission, EACCES; access(2) as
 * the effective user), the message says where to write instead. Returns
 * @error. */
static int pg_out_dir_hint(int error, const char *dir)
{
        char *p = pg_xstrdup(dir);
        int e = 0;

        for (;;) {
                char *slash = strrchr(p, '/');

                if (access(p, F_OK) == 0 || errno != ENOENT)
                        break;
                if (!slash) {
                        strcpy(p, ".");
                        break;
                }
                if (slash == p)
                        slash[1] = '\0';
                else
                        *slash = '\0';
        }
        if (faccessat(AT_FDCWD, p, W_OK | X_OK, AT_EACCESS) < 0)
                e = errno;
        if (e == EROFS)
                pg_error_append(error,
                                "; '%s' is on a read-only file system: use --out DIR on a "
                                "writable file system",
                                p);
        else if (e == EACCES)
                pg_error_append(error,
                                "; you cannot write in '%s': use --out DIR on a writable file "
                                "system (a directory you may write in)",
                                p);
        free(p);
        return error;
}

/* A fresh log per benchmark: the old one is removed and the new one created
 * with O_EXCL|O_NOFOLLOW, so a link planted at its name (now or later) is
 * never written through; every run of the benchmark inherits this one
 * descriptor (O_APPEND), never reopening the name. Kept above stdio's fds
 * (launch.h treats 0-2 as "no log"). */
int pg_bench_log_open(struct pg_bench_log *log)
{
        int fd;

        if (unlink(log->path) < 0 && errno != ENOENT)
                return pg_error_set(PG_EIO, "cannot remove the old log '%s': %s", log->path,
                                    strerror(errno));
        fd = open(log->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
                return pg_error_set(PG_EIO, "cannot create the log '%s': %s", log->path,
                                    strerror(errno));
        if (fd <= STDERR_FILENO) {
                int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
                close(fd);
                if (high < 0)
                        return pg_error_set(PG_EIO, "cannot create the log '%s': %s", log->path,
                                            strerror(errno));
                fd = high;
        }
        log->fd = fd;
        return 0;
}

/* The commit of perfgate's working directory, when it is in a repository
 * with a work tree (pg_repo_state_get(), baselines/worktree.h). Asked once,
 * when the first result is filled in: after that benchmark ran, so
 * libgit2's start-up (git_libgit2_init() with the mbedTLS backend parses the
 * whole system CA bundle) never delays a benchmark. */
static void pg_git_probe(struct pg_run_state *st)
{
        struct pg_repo_state rs;
        int error;

        if (st->git_probed)
                return;
        st->git_probed = true;
        if ((error = pg_repo_state_get(".", &rs)) < 0) {
                /* not a repository: nothing to say; a repository perfgate cannot
                 * read (another owner's, SHA-256) is said once */
                if (error != PG_ENOTFOUND) {
                        char *m =
                            pg_xasprintf("the results record no git commit: %s", pg_error_last());
                        pg_warn(st, NULL, m);
                        free(m);
                }
                pg_error_clear();
                return;
        }
        st->git_top = rs.top;
        rs.top = NULL;
        if (rs.head && strlen(rs.head) < sizeof(st->git_commit)) {
                memcpy(st->git_commit, rs.head, strlen(rs.head) + 1);
                st->has_git = true;
                st->git_dirty = rs.dirty;
        }
        pg_repo_state_release(&rs);
}

static uint64_t pg_tv_ns(const struct timeval *tv)
{
        return (uint64_t) tv->tv_sec * 1000000000ull + (uint64_t) tv->tv_usec * 1000ull;
}

static char *pg_failure_message(const struct pg_bench *b, const struct pg_exit *ex,
                                const struct pg_bench_log *log, double timeout_sec)
{
        char *tail, *msg;

        if (ex->timed_out)
                return pg_xasprintf("benchmark '%s' timed out after %g s and was killed "
                                    "(raise --timeout or the benchmark's \"timeout\")",
                                    b->name, timeout_sec);
        if (ex->stopped_sig)
                return pg_xasprintf(
                    "benchmark '%s' was stopped by signal %d (SIG%s: %s) and killed: nothing "
                    "would continue it; a benchmark gets no terminal (stdin is /dev/null, "
                    "/dev/tty cannot be opened) and must not stop itself; its output is in '%s'",
                    b->name, ex->stopped_sig,
                    sigabbrev_np(ex->stopped_sig) ? sigabbrev_np(ex->stopped_sig) : "?",
                    strsignal(ex->stopped_sig), log->path);
        if (WIFSIGNALED(ex->status))
                return pg_xasprintf(
                    "benchmark '%s' was killed by signal %d (SIG%s: %s); "
                    "its output is in '%s'",
                    b->name, WTERMSIG(ex->status),
                    sigabbrev_np(WTERMSIG(ex->status)) ? sigabbrev_np(WTERMSIG(ex->status)) : "?",
                    strsignal(WTERMSIG(ex->status)), log->path);
        tail = pg_log_tail(log);
        msg = pg_xasprintf("benchmark '%s' %s; %s", b->name, pg_describe_status(ex->status), tail);
        free(tail);
        return msg;
}

/* Whether any event of @s could be opened (the set is closed by now). */
static bool pg_counter_set_opened_any(const struct pg_counter_set *s)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->c[i].r.state != PG_COUNT_NOT_SUPPORTED)
                        return true;
        return false;
}

static bool pg_is_software(const struct pg_event_def *d)
{
        return !d->hardware;
}

/* What the control protocol showed over a benchmark's counting runs. */
struct pg_roi_seen {
        bool used;          /* "roi" is set, or some run sent a command */
        bool exited_inside; /* some run exited inside its region */
        bool never_enabled; /* some run disabled counting and never enabled it again */
        uint64_t unknown;   /* commands that were neither enable, disable nor ping */
};

/* After one counting run: fold @ctl into @seen; a benchmark with "roi" that
 * never enabled counting failed (@why): its counters would all be empty. */
static int pg_roi_check(struct pg_run_state *st, const struct pg_bench *b,
                        const struct pg_control *ctl, struct pg_roi_seen *seen, char **why)
{
        (void) st;
        if (b->roi && ctl->enables == 0) {
                bool cut = ctl->unended && strncmp(ctl->line, "enable", 6) == 0;
                *why = pg_xasprintf("benchmark '%s' has \"roi\": true but never completed an "
                                    "'enable' command on the descriptor in PERF_CTL_FD%s, so "
                                    "nothing was counted; call perfgate_roi_begin() "
                                    "(include/perfgate.h) where the measured work starts, or "
                                    "remove \"roi\"",
                                    b->name,
                                    cut ? " (it wrote 'enable' but exited before the '\\n' that "
                                          "ends a command)"
                                        : "");
                return pg_error_set(PG_EMEASURE, "%s", *why);
        }
        seen->used |= b->roi || ctl->commands > 0;
        seen->exited_inside |= ctl->exited_enabled;
        seen->never_enabled |= ctl->ended_disabled;
        seen->unknown += ctl->unknown;
        return 0;
}

/* One warning per kind of region trouble a benchmark showed. */
static void pg_roi_warn(struct pg_run_state *st, const struct pg_bench *b,
                        const struct pg_roi_seen *seen)
{
        if (seen->exited_inside)
                pg_warn(st, b->name,
                        "the benchmark exited inside its region of interest (no "
                        "'disable' / perfgate_roi_end() after the last 'enable'): the region "
                        "was closed at its exit, so it also covers the benchmark's teardown");
        if (seen->never_enabled)
                pg_warn(st, b->name,
                        "the benchmark disabled counting and never enabled it again: the "
                        "results cover only the run's start up to its 'disable' (set "
                        "\"roi\": true in perfgate.json so that counting starts at the "
                        "first 'enable')");
        if (seen->unknown) {
                char *m = pg_xasprintf("the benchmark wrote %llu commands to PERF_CTL_FD that "
                                       "perfgate ignores (only 'enable', 'disable' and 'ping' "
                                       "act); each was answered with 'ack'",
                                       (unsigned long long) seen->unknown);
                pg_warn(st, b->name, m);
                free(m);
        }
}

/* Say that processes a benchmark started outlived it in @runs of @total
 * counting runs (at most @most at once): counters opened with inherit=1
 * count every descendant from its fork until it exits, and perfgate kills
 * the ones still running when the benchmark exits (runner/launch.h). */
static void pg_outlived_warn(struct pg_run_state *st, const struct pg_bench *b, uint64_t runs,
                             uint64_t total, unsigned most)
{
        char *m = pg_xasprintf(
            "%s%u process%s it started %s still running when it exited (in %llu of %llu runs) "
            "and %s killed then; %s CPU time until then is counted in its task-clock and "
            "other counters and in its profile, as perf stat counts a workload's children: "
            "wait for them (or stop them) before the benchmark exits (docs/run.md, "
            "\"Processes a benchmark leaves behind\")",
            most > 1 ? "up to " : "", most, most == 1 ? "" : "es", most == 1 ? "was" : "were",
            (unsigned long long) runs, (unsigned long long) total, most == 1 ? "was" : "were",
            most == 1 ? "its" : "their");
        pg_warn(st, b->name, m);
        free(m);
}

/* Measure one benchmark: returns 0 with @res filled, PG_EMEASURE with @why
 * set for a benchmark failure, or another error that stops the whole run. */
static int pg_run_one(struct pg_run_state *st, const struct pg_bench *b,
                      const struct pg_bench_log *log, struct pg_result *res, char **why)
{
        const struct pg_run_opts *o = st->o;
        uint64_t repeat = (uint64_t) (o->repeat >= 0   ? o->repeat
                                      : b->repeat >= 0 ? b->repeat
                                                       : PG_RUN_DEFAULT_REPEAT);
        uint64_t warmup = (uint64_t) (o->warmup >= 0   ? o->warmup
                                      : b->warmup >= 0 ? b->warmup
                                                       : PG_RUN_DEFAULT_WARMUP);
        double timeout_sec =
            o->timeout_sec >= 0 ? o->timeout_sec : (b->timeout_sec >= 0 ? b->timeout_sec : 0);
        size_t ne = st->events.n;
        struct pg_count_reading *readings = pg_xcalloc(repeat * (ne ? ne : 1), sizeof(*readings));
        double *dur = pg_xcalloc(repeat, sizeof(double)), *ut = pg_xcalloc(repeat, sizeof(double));
        double *syst = pg_xcalloc(repeat, sizeof(double)),
               *rss = pg_xcalloc(repeat, sizeof(double)),
               *roi_share = pg_xcalloc(repeat, sizeof(double));
        struct pg_roi_seen roi = { 0 };
        struct pg_buf warnings = PG_BUF_INIT;
        uint64_t outlived_runs = 0;
        unsigned outlived_most = 0;
        struct pg_proc_cpu cpu_before = { 0 }, cpu_after = { 0 };
        uint64_t load_start_ns = 0, load_end_ns = 0;
        double own_cpu_ns = 0;
        bool hw_counted = false;
        int error = 0;

        *why = NULL;
        st->bench_start_ns = pg_now_ns();
        for (uint64_t k = 0; k < warmup + repeat; k++) {
                struct pg_counter_opts co = { .exclude_kernel = st->exclude_kernel,
                                              .no_group_read = st->no_group_read,
                                              .start_disabled = b->roi,
                                              .no_pmu = st->host.npmu == 0,
                                              .open_fn = o->open_fn,
                                              .open_ctx = o->open_ctx };
                struct pg_control ctl;
                struct pg_run_event ev = { .kind = PG_RUN_EV_START, .name = b->name };
                struct pg_counter_set s;
                struct pg_exit ex;

                if (pg_launch_interrupted()) {
                        error = pg_error_set(PG_EINTR, "interrupted");
                        goto done;
                }
                ev.warmup = k < warmup;
                ev.rep = ev.warmup ? k + 1 : k - warmup + 1;
                ev.nreps = ev.warmup ? warmup : repeat;
                ev.elapsed_ns = pg_now_ns() - st->bench_start_ns;
                pg_report(st, &ev);

                pg_counter_set_init(&s, &st->events, &co);
                if ((error = pg_control_open(&ctl, !b->roi)) < 0)
                        goto done;
                if (k == warmup) {
                        /* the machine's other load: one read right before the first
                         * measured repetition, one after the last */
                        pg_proc_cpu_read(&cpu_before);
                        load_start_ns = pg_now_ns();
                }
                error = pg_run_count_ctl(b, log->fd, o->cpus, o->ncpus,
                                         (uint64_t) (timeout_sec * 1e9), &s, &ex, &ctl);
                if (k + 1 == warmup + repeat) {
                        load_end_ns = pg_now_ns();
                        pg_proc_cpu_read(&cpu_after);
                }
                if (error == PG_EMEASURE) {
                        *why = pg_xasprintf("benchmark '%s': %s", b->name, pg_error_last());
                        goto done;
                }
                /* a program that cannot be executed (missing, not executable,
                 * not a program) is bad input: the run stops (exit 2) */
                if (error == PG_ENOTFOUND || error == PG_EINPUT) {
                        error = pg_error_prefix(error, "benchmark '%s'", b->name);
                        goto done;
                }
                if (error < 0)
                        goto done;
                if (s.fell_back_user)
                        pg_warn_user_only(st);
                if (s.fell_back_group && !st->warned_group_read) {
                        pg_warn(st, NULL,
                                "this kernel refuses inherit with PERF_FORMAT_GROUP (before "
                                "Linux 4.13): reading each counter on its own");
                        st->warned_group_read = true;
                }
                if (!st->warned_no_counters && ne && !pg_counter_set_opened_any(&s)) {
                        int e = s.c[0].r.open_errno;
                        char *m = pg_xasprintf(
                            "no counter could be opened ('%s': %s)%s; the results hold wall "
                            "time and rusage only",
                            s.c[0].def->name, strerror(e),
                            e == ENOSYS ? " - the kernel lacks perf events or a seccomp filter "
                                          "blocks perf_event_open (allow it in the container's "
                                          "profile)"
                                        : "");
                        pg_warn(st, NULL, m);
                        free(m);
                        st->warned_no_counters = true;
                }
                st->exclude_kernel = s.exclude_kernel;
                st->no_group_read = !s.group_read;
                if (ex.timed_out || !WIFEXITED(ex.status) || WEXITSTATUS(ex.status) != 0) {
                        *why = pg_failure_message(b, &ex, log, timeout_sec);
                        error = PG_EMEASURE;
                        goto done;
                }
                if ((error = pg_roi_check(st, b, &ctl, &roi, why)) < 0)
                        goto done;
                if (ex.outlived) {
                        outlived_runs++;
                        if (ex.outlived > outlived_most)
                                outlived_most = ex.outlived;
                }
                if (k < warmup)
                        continue;
                roi_share[k - warmup] =
                    ex.wall_ns ? (double) ctl.region_ns / (double) ex.wall_ns : 0.0;
                if (roi_share[k - warmup] > 1.0)
                        roi_share[k - warmup] = 1.0;
                for (size_t e = 0; e < ne; e++) {
                        readings[(k - warmup) * ne + e] = s.c[e].r;
                        if (s.c[e].def->hardware && s.c[e].r.state == PG_COUNT_OK)
                                hw_counted = true;
                }
                dur[k - warmup] = (double) ex.wall_ns;
                ut[k - warmup] = (double) pg_tv_ns(&ex.ru.ru_utime);
                syst[k - warmup] = (double) pg_tv_ns(&ex.ru.ru_stime);
                rss[k - warmup] = (double) ex.ru.ru_maxrss * 1024.0;
        }
        if (o->counters == PG_COUNTERS_HARDWARE && !hw_counted) {
                error = pg_error_set(PG_ENOTSUP,
                                     "--counters hardware: no hardware counter could be "
                                     "counted on this host (core PMUs: %s); use --counters auto "
                                     "or software",
                                     st->host.npmu ? st->host.pmu[0] : "none");
                goto done;
        }

        res->name = pg_xstrdup(b->name);
        res->ncommand = b->argc;
        res->command = pg_strv_dup(b->argv, b->argc);
        res->created = pg_result_created_now();
        pg_git_probe(st);
        res->has_git = st->has_git;
        res->git_commit = st->has_git ? pg_xstrdup(st->git_commit) : NULL;
        res->git_dirty = st->git_dirty;
        res->machine = pg_xstrdup(o->machine ? o->machine : "default");
        pg_host_copy(&res->host, &st->host);
        res->host.exclude_kernel = st->exclude_kernel;
        res->counters = pg_xstrdup(hw_counted ? "hardware" : "software");
        res->repeat = repeat;
        res->warmup = warmup;
        pg_counter_metrics_add(res, &st->events, readings, repeat, &warnings);
        pg_result_add_metric(res, "duration_time", "ns", PG_METRIC_OK, dur, NULL, repeat, NULL);
        pg_result_add_metric(res, "user-time", "ns", PG_METRIC_OK, ut, NULL, repeat, NULL);
        pg_result_add_metric(res, "system-time", "ns", PG_METRIC_OK, syst, NULL, repeat, NULL);
        pg_result_add_metric(res, "max-rss", "bytes", PG_METRIC_OK, rss, NULL, repeat, NULL);
        for (uint64_t k = 0; k < repeat; k++)
                own_cpu_ns += ut[k] + syst[k];
        (void) pg_proc_load_compute(&cpu_before, &cpu_after, own_cpu_ns,
                                    load_end_ns > load_start_ns ? load_end_ns - load_start_ns : 0,
                                    sysconf(_SC_CLK_TCK), &res->load);
        if (roi.used)
                pg_result_add_metric(res, "roi-share", "ratio", PG_METRIC_OK, roi_share, NULL,
                                     repeat, NULL);
        pg_result_derive(res);
        pg_warn_lines(st, b->name, &warnings);
        pg_roi_warn(st, b, &roi);
        if (outlived_runs) {
                /* kept in the result too, so that compare can say which side was disturbed */
                res->leftovers.present = true;
                res->leftovers.runs = outlived_runs;
                res->leftovers.of_runs = warmup + repeat;
                res->leftovers.processes = outlived_most;
                pg_outlived_warn(st, b, outlived_runs, warmup + repeat, outlived_most);
        }
done:
        free(roi_share);
        free(readings);
        free(dur);
        free(ut);
        free(syst);
        free(rss);
        pg_buf_release(&warnings);
        return error;
}

/* --counters simulated: one cachegrind run after the native ones (never
 * inside a timed run), stored into @res. A benchmark valgrind cannot run is
 * a benchmark failure (@why); an unreadable cachegrind file stops the run. */
static int pg_run_simulated(struct pg_run_state *st, const struct pg_bench *b,
                            const struct pg_bench_log *log, struct pg_result *res, char **why)
{
        const struct pg_run_opts *o = st->o;
        struct pg_run_event ev = { .kind = PG_RUN_EV_SIMULATE, .name = b->name };
        char **argv = pg_xcalloc(b->argc + 1, sizeof(char *));
        double timeout_sec =
            o->timeout_sec >= 0 ? o->timeout_sec : (b->timeout_sec >= 0 ? b->timeout_sec : 0);
        char *work = pg_xasprintf("%s/.simulate-%s", o->out_dir, b->name);
        struct pg_sim_opts so = { 0 };
        struct pg_sim sim;
        int error;

        ev.elapsed_ns = pg_now_ns() - st->bench_start_ns;
        pg_report(st, &ev);
        if (b->roi)
                pg_warn(st, b->name,
                        "the simulated counters cover the whole run: under valgrind the "
                        "benchmark gets no PERF_CTL_FD, so its region markers do nothing");
        memcpy(argv, b->argv, b->argc * sizeof(char *));
        argv[0] = b->exec_path;
        so.valgrind = st->valgrind;
        so.name = b->name;
        so.argv = argv;
        so.cwd = b->cwd;
        so.env = b->env;
        so.log_fd = log->fd;
        so.log_path = log->path;
        so.cpus = o->cpus;
        so.ncpus = o->ncpus;
        so.timeout_ns = (uint64_t) (timeout_sec * 1e9 * PG_SIM_TIMEOUT_FACTOR);
        so.work_dir = work;
        error = pg_simulate(&so, &sim);
        if (error == PG_EMEASURE)
                *why = pg_xstrdup(pg_error_last());
        else if (error == 0)
                pg_sim_store(&sim, res);
        pg_sim_release(&sim);
        free(work);
        free(argv);
        return error;
}

/* The options every extra run of @b shares: its command (@argv, argc + 1
 * entries the caller frees, argv[0] made absolute), cwd, environment, log,
 * CPUs and timeout. */
static void pg_bench_sample_opts(const struct pg_run_state *st, const struct pg_bench *b,
                                 const struct pg_bench_log *log, char **argv,
                                 struct pg_sample_opts *so)
{
        const struct pg_run_opts *o = st->o;
        double timeout_sec =
            o->timeout_sec >= 0 ? o->timeout_sec : (b->timeout_sec >= 0 ? b->timeout_sec : 0);

        memcpy(argv, b->argv, b->argc * sizeof(char *));
        argv[0] = b->exec_path;
        so->argv = argv;
        so->cwd = b->cwd;
        so->env = b->env;
        so->log_fd = log->fd;
        so->cpus = o->cpus;
        so->ncpus = o->ncpus;
        so->timeout_ns = (uint64_t) (timeout_sec * 1e9);
}

/* Sample a profile into @res (with @off_cpu, its off-CPU profile:
 * runner/offcpu.h); sampling problems other than a benchmark failure or an
 * interrupt become one warning per kind and no such profile, the problem
 * kept in the result (pg_profile.missing: "profile_missing"). */
struct pg_run_sample_ctx {
        struct pg_run_state *st;
        const char *name;
        const char *what; /* a recording of a fixed number of runs, or NULL */
        uint64_t nreps;   /* its runs */
};

/* A sampling run ended: report the hottest functions so far. */
static void pg_run_sample_progress(void *ctx, uint64_t runs, const struct pg_symbolize_top *top)
{
        struct pg_run_sample_ctx *c = ctx;
        struct pg_run_event ev = {
                .kind = PG_RUN_EV_SAMPLED, .name = c->name, .rep = runs, .top = top
        };

        if (c->what) { /* no hottest functions: blocked time or scheduler events */
                ev.kind = PG_RUN_EV_RAN;
                ev.what = c->what;
                ev.nreps = c->nreps;
                ev.top = NULL;
        }
        ev.elapsed_ns = pg_now_ns() - c->st->bench_start_ns;
        pg_report(c->st, &ev);
}

static int pg_run_sampled(struct pg_run_state *st, const struct pg_bench *b,
                          const struct pg_bench_log *log, struct pg_result *res, bool off_cpu,
                          char **why)
{
        const struct pg_run_opts *o = st->o;
        struct pg_buf warnings = PG_BUF_INIT;
        char **argv = pg_xcalloc(b->argc + 1, sizeof(char *));
        struct pg_profile *out = off_cpu ? &res->offcpu : &res->profile;
        bool *warned = off_cpu ? &st->warned_offcpu : &st->warned_profile;
        struct pg_sample_opts so = { 0 };
        struct pg_run_sample_ctx pctx = { st, b->name, NULL, 0 };
        int error;

        pg_bench_sample_opts(st, b, log, argv, &so);
        so.debug_dir = o->debug_dir;
        so.roi = b->roi;
        /* repeat sampling runs until min_samples, within a wall-time budget */
        so.budget_ns = PG_RUN_PROFILE_BUDGET_NS;
        if (off_cpu) {
                /* DWARF whatever --call-graph says: a thread blocks inside a
                 * libc system-call wrapper, and Debian's libc has no frame
                 * pointers, so a frame-pointer walk would skip the wrapper's
                 * caller - the very function that took the lock */
                so.call_graph = PG_CALL_GRAPH_DWARF;
                /* a fixed number of runs: blocked time, unlike a sample
                 * count, says nothing about when enough was seen */
                so.min_samples = UINT64_MAX;
                so.max_runs = PG_RUN_OFFCPU_RUNS;
                so.off_cpu = true;
                pctx.what = "off-CPU";
                pctx.nreps = PG_RUN_OFFCPU_RUNS;
        } else {
                so.freq_hz = o->freq_hz ? o->freq_hz : 999;
                so.call_graph = o->call_graph;
                so.min_samples = o->min_samples ? o->min_samples : PG_RUN_MIN_SAMPLES;
                so.max_runs = PG_RUN_PROFILE_MAX_RUNS;
                so.exclude_kernel = st->exclude_kernel;
                so.use_cycles = st->host.npmu > 0;
        }
        so.progress = pg_run_sample_progress;
        so.progress_ctx = &pctx;
        error = pg_sample_profile(&so, out, &warnings);
        if (error == PG_EMEASURE) {
                *why =
                    pg_xasprintf("benchmark '%s' failed while %s: %s", b->name,
                                 off_cpu ? "recording off-CPU time" : "sampling", pg_error_last());
        } else if (error == PG_ENOTSUP || error == PG_EPERM || error == PG_EIO ||
                   error == PG_ERROR) {
                char *missing = pg_xstrdup(pg_error_last());
                if (!*warned) {
                        char *m =
                            pg_xasprintf("no %s stored: %s",
                                         off_cpu ? "off-CPU profile" : "profile", pg_error_last());
                        pg_warn(st, NULL, m);
                        free(m);
                        *warned = true;
                }
                pg_profile_release(out);
                out->missing = missing; /* kept in the result: compare says why */
                error = 0;
        } else if (error == 0) {
                /* source lines keyed relative to the project's root
                 * (docs/result-format.md, "addresses") */
                pg_git_probe(st);
                pg_profile_relative_sources(out, st->git_top ? st->git_top : b->manifest_dir);
                pg_warn_lines(st, b->name, &warnings);
                /* kernel frames were sampled but cannot be named: said once */
                if (!off_cpu && !so.exclude_kernel && out->present && !out->kernel &&
                    !st->warned_kallsyms && !pg_kallsyms_shown(NULL)) {
                        pg_warn(st, NULL, PG_KALLSYMS_HIDDEN_WARNING);
                        st->warned_kallsyms = true;
                }
                if (!off_cpu && out->samples > 0 && out->samples < so.min_samples) {
                        char *m = pg_xasprintf(
                            "the profile has %llu samples, fewer than --min-samples %llu, after "
                            "%llu sampling runs (at most %llu s or %d runs per benchmark); raise "
                            "--freq or lengthen the benchmark",
                            (unsigned long long) out->samples, (unsigned long long) so.min_samples,
                            (unsigned long long) out->runs,
                            (unsigned long long) (so.budget_ns / 1000000000ull),
                            PG_RUN_PROFILE_MAX_RUNS);
                        pg_warn(st, b->name, m);
                        free(m);
                }
        }
        pg_buf_release(&warnings);
        free(argv);
        return error;
}

/* Record scheduler latency (runner/sched.h) into @res: the "sched" tasks and
 * the metrics sched-delay-max and sched-delay-avg (ns, one value per run).
 * Where the tracepoints are not permitted: one warning, and both metrics
 * "not-supported" with the reason (never a zero). */
static int pg_run_sched(struct pg_run_state *st, const struct pg_bench *b,
                        const struct pg_bench_log *log, struct pg_result *res, char **why)
{
        struct pg_buf warnings = PG_BUF_INIT;
        struct pg_sched_values vals = { 0 };
        char **argv;
        struct pg_sample_opts so = { 0 };
        uint64_t runs = res->repeat ? res->repeat : 1;
        struct pg_run_sample_ctx pctx = { st, b->name, "scheduler-latency", runs };
        int error;

        if (!st->sched_probed) {
                st->sched_probed = true;
                if (pg_sched_probe(&st->sched_tp) < 0) {
                        st->sched_why = pg_xstrdup(pg_error_last());
                        char *m = pg_xasprintf("no scheduler latency recorded: %s", st->sched_why);
                        pg_warn(st, NULL, m);
                        free(m);
                }
        }
        if (st->sched_why) {
                pg_result_add_metric(res, "sched-delay-max", "ns", PG_METRIC_NOT_SUPPORTED, NULL,
                                     NULL, 0, st->sched_why);
                pg_result_add_metric(res, "sched-delay-avg", "ns", PG_METRIC_NOT_SUPPORTED, NULL,
                                     NULL, 0, st->sched_why);
                return 0;
        }
        if (b->roi)
                pg_warn(st, b->name,
                        "scheduler latency covers the whole run: the region markers do not "
                        "switch the sched tracepoints");
        argv = pg_xcalloc(b->argc + 1, sizeof(char *));
        pg_bench_sample_opts(st, b, log, argv, &so);
        so.progress = pg_run_sample_progress;
        so.progress_ctx = &pctx;
        error = pg_sched_record(&so, &st->sched_tp, runs, &res->sched, &vals, &warnings);
        if (error == PG_EMEASURE) {
                *why = pg_xasprintf("benchmark '%s' failed while recording scheduler latency: %s",
                                    b->name, pg_error_last());
        } else if (error == PG_EPERM || error == PG_ENOTSUP || error == PG_EIO) {
                char *m = pg_xasprintf("no scheduler latency recorded: %s", pg_error_last());
                pg_warn(st, b->name, m);
                pg_result_add_metric(res, "sched-delay-max", "ns", PG_METRIC_NOT_SUPPORTED, NULL,
                                     NULL, 0, pg_error_last());
                pg_result_add_metric(res, "sched-delay-avg", "ns", PG_METRIC_NOT_SUPPORTED, NULL,
                                     NULL, 0, pg_error_last());
                free(m);
                pg_sched_release(&res->sched);
                error = 0;
        } else if (error == 0) {
                pg_warn_lines(st, b->name, &warnings);
                if (vals.n == runs) {
                        pg_result_add_metric(res, "sched-delay-max", "ns", PG_METRIC_OK,
                                             vals.max_ns, NULL, vals.n, NULL);
                        pg_result_add_metric(res, "sched-delay-avg", "ns", PG_METRIC_OK,
                                             vals.avg_ns, NULL, vals.n, NULL);
                } else {
                        const char *r = "no task of the benchmark was seen waiting for a CPU "
                                        "in some recorded run";
                        pg_result_add_metric(res, "sched-delay-max", "ns", PG_METRIC_NOT_COUNTED,
                                             NULL, NULL, 0, r);
                        pg_result_add_metric(res, "sched-delay-avg", "ns", PG_METRIC_NOT_COUNTED,
                                             NULL, NULL, 0, r);
                }
        }
        pg_sched_values_release(&vals);
        pg_buf_release(&warnings);
        free(argv);
        return error;
}

int pg_run_benchmarks(const struct pg_bench_list *l, const struct pg_run_opts *o,
                      struct pg_run_summary *sum)
{
        struct pg_run_state st;
        struct pg_dir_id out_id;
        struct pg_run_summary local = { 0 };
        int out_lock = -1;
        struct pg_buf failed = PG_BUF_INIT;
        int error = 0;

        memset(&st, 0, sizeof(st));
        st.o = o;
        st.total = l->n;
        if (o->counters == PG_COUNTERS_SIMULATED &&
            ((error = pg_sim_find_valgrind(&st.valgrind)) < 0 ||
             (error = pg_sim_check_tmpdir()) < 0)) {
                free(st.valgrind);
                return error;
        }
        if (o->events)
                st.events = *o->events;
        else
                pg_events_default(&st.events);
        /* simulated: the hardware names belong to the simulation */
        if (o->counters == PG_COUNTERS_SOFTWARE || o->counters == PG_COUNTERS_SIMULATED)
                pg_events_filter(&st.events, pg_is_software);
        if (!st.events.n) {
                free(st.valgrind);
                return pg_error_set(PG_EINPUT,
                                    "--counters %s leaves none of the events "
                                    "asked for with --events; name a software event "
                                    "(task-clock, page-faults, ...)",
                                    o->counters == PG_COUNTERS_SIMULATED ? "simulated"
                                                                         : "software");
        }
        if (!o->no_profile && (error = pg_sample_check_freq(o->freq_hz ? o->freq_hz : 999)) < 0) {
                free(st.valgrind);
                return error;
        }
        /* one run at a time per --out: a second one would unlink the first
         * one's live logs (pg_bench_log_open()) and overwrite its results
         * (docs/run.md, "Output directory") */
        if ((error = pg_mkdir_own(o->out_dir)) < 0 ||
            (error = pg_dir_identify(o->out_dir, &out_id)) < 0 ||
            (error = pg_dir_lock(o->out_dir, &out_lock)) < 0) {
                free(st.valgrind);
                return error == PG_EIO ? pg_out_dir_hint(error, o->out_dir) : error;
        }
        pg_host_probe(&st.host);
        /* Decided up front as case 28 asks (perf_event_open(2): paranoid >= 2
         * refuses kernel counting to the unprivileged); the EACCES fallback in
         * counting.c still covers policies this does not foresee. */
        if (st.host.perf_event_paranoid >= 2 && !pg_host_privileged()) {
                st.exclude_kernel = true;
                pg_warn_user_only(&st);
        }

        /* until the last benchmark ran, the directory holds a half-done
         * set: the marker tells every reader so once this run is gone,
         * however it ended (SIGKILL too); and every old result of these
         * benchmarks is moved aside now, so one never reached is missing,
         * not the previous run's (docs/limits.md, "Interrupted runs") */
        if (!(error = pg_dir_unchanged(o->out_dir, &out_id))) {
                const char **names = pg_xreallocarray(NULL, l->n ? l->n : 1, sizeof(*names));
                for (size_t i = 0; i < l->n; i++)
                        names[i] = l->items[i].name;
                error = pg_run_marker_write(o->out_dir, names, l->n);
                free(names);
                if (error == PG_EIO)
                        pg_out_dir_hint(error, o->out_dir);
        }
        for (size_t i = 0; i < l->n && !error; i++) {
                char *base = pg_path_join(o->out_dir, l->items[i].name);
                char *p = pg_xasprintf("%s.json", base);
                pg_stale_move(p, o->out_dir, l->items[i].name, "json");
                free(p);
                p = pg_xasprintf("%s.log", base);
                pg_stale_move(p, o->out_dir, l->items[i].name, "log");
                free(p);
                free(base);
        }
        for (size_t i = 0; i < l->n && !error; i++) {
                const struct pg_bench *b = &l->items[i];
                char *base = pg_path_join(o->out_dir, b->name);
                char *log_path = pg_xasprintf("%s.log", base);
                char *res_path = pg_xasprintf("%s.json", base);
                char *why = NULL;
                struct pg_result res;
                struct pg_bench_log log = { log_path, -1 };

                free(base);
                pg_result_init(&res);
                st.index = i + 1;
                local.total++;
                /* the output directory is looked up by path: before each write
                 * into it, it must still be the one made or opened above (a
                 * benchmark may have swapped it for a link) */
                error = pg_dir_unchanged(o->out_dir, &out_id);
                if (!error) {
                        error = pg_bench_log_open(&log);
                        if (error == PG_EIO)
                                pg_out_dir_hint(error, o->out_dir);
                }
                if (!error)
                        error = pg_run_one(&st, b, &log, &res, &why);
                if (!error && o->counters == PG_COUNTERS_SIMULATED &&
                    !(error = pg_dir_unchanged(o->out_dir, &out_id)))
                        error = pg_run_simulated(&st, b, &log, &res, &why);
                if (!error && !o->no_profile)
                        error = pg_run_sampled(&st, b, &log, &res, false, &why);
                if (!error && (o->off_cpu || b->off_cpu))
                        error = pg_run_sampled(&st, b, &log, &res, true, &why);
                if (!error && (o->sched || b->sched))
                        error = pg_run_sched(&st, b, &log, &res, &why);
                if (!error && !(error = pg_dir_unchanged(o->out_dir, &out_id)))
                        error = pg_result_save(&res, res_path);
                if (!error) {
                        struct pg_run_event ev = { .kind = PG_RUN_EV_DONE,
                                                   .name = b->name,
                                                   .path = res_path,
                                                   .result = &res,
                                                   .elapsed_ns = pg_now_ns() - st.bench_start_ns };
                        local.ok++;
                        pg_report(&st, &ev);
                } else if (error == PG_EMEASURE) {
                        struct pg_run_event ev = { .kind = PG_RUN_EV_FAILED,
                                                   .name = b->name,
                                                   .message = why ? why : pg_error_last() };
                        local.failed++;
                        pg_report(&st, &ev);
                        pg_buf_printf(&failed, "%s'%s'", failed.len ? ", " : "", b->name);
                        error = 0;
                }
                free(why);
                if (log.fd >= 0)
                        close(log.fd);
                free(log_path);
                free(res_path);
                pg_result_release(&res);
                if (error < 0)
                        break;
        }
        pg_stale_drop(l, l->n, o->out_dir, &out_id);
        /* every benchmark ran (some may have failed: exit 3 says so, and
         * their results are missing): the set is whole */
        if (!error && local.total == l->n && pg_dir_unchanged(o->out_dir, &out_id) == 0)
                error = pg_run_marker_remove(o->out_dir);
        if (!error && local.failed)
                error = pg_error_set(PG_EMEASURE, "%zu of %zu benchmarks failed: %s", local.failed,
                                     local.total, failed.ptr);
        else if (error == PG_EINTR)
                error = pg_error_set(PG_EINTR,
                                     "interrupted; kept the %zu finished results in '%s' (of %zu "
                                     "benchmarks: compare, show and baseline save refuse the "
                                     "directory until a run into it completes)",
                                     local.ok, o->out_dir, l->n);
        else if (error < 0)
                pg_error_disk_full_note(error, "kept the %zu finished results in '%s'", local.ok,
                                        o->out_dir);
        pg_buf_release(&failed);
        pg_host_release(&st.host);
        free(st.valgrind);
        free(st.sched_why);
        free(st.git_top);
        if (out_lock >= 0)
                close(out_lock);
        if (sum)
                *sum = local;
        return error;
}
