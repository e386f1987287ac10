/*
 * paired.c - randomized ABBA blocks of base and head runs (paired.h).
 * Invariant: p->pairs holds only pairs whose two runs both succeeded and,
 * when not pinned, ran on the same CPU.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/error.h"
#include "runner/control.h"
#include "runner/counting.h"
#include "runner/launch.h"
#include "runner/paired.h"

int pg_paired_pick_cpus(size_t want, int *cpus, size_t *n)
{
        cpu_set_t old, set;

        *n = 0;
        if (want < 1)
                want = 1;
        if (sched_getaffinity(0, sizeof(old), &old) < 0)
                return -1;
        CPU_ZERO(&set);
        /* the last ones: CPU 0 takes most device interrupts on small VMs */
        for (int i = CPU_SETSIZE - 1; i >= 0 && *n < want; i--)
                if (CPU_ISSET(i, &old)) {
                        CPU_SET(i, &set);
                        (*n)++;
                }
        if (*n == 0)
                return -1;
        /* probe: the children inherit our right to pin */
        if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                *n = 0;
                return -1;
        }
        (void) sched_setaffinity(0, sizeof(old), &old);
        *n = 0;
        for (int i = 0; i < CPU_SETSIZE; i++)
                if (CPU_ISSET(i, &set))
                        cpus[(*n)++] = i;
        return 0;
}

void pg_paired_init(struct pg_paired *p, const struct pg_paired_opts *o)
{
        memset(p, 0, sizeof(*p));
        p->o = *o;
        /* splitmix64 of the seed: any seed, even 0, gives a usable state */
        p->rng = o->seed + 0x9e3779b97f4a7c15ull;
        (void) pg_events_parse(&p->events, "task-clock");
}

void pg_paired_release(struct pg_paired *p)
{
        pg_sample_session_free(p->session);
        free(p->pairs);
        memset(p, 0, sizeof(*p));
}

/* splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): one bit per block is all the order needs. */
static bool pg_coin(struct pg_paired *p)
{
        uint64_t z = (p->rng += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return ((z ^ (z >> 31)) >> 63) != 0;
}

/* Most-seen CPU of a running child, from /proc/PID/stat field 39. */
struct pg_cpu_watch {
        pid_t pid;
        unsigned seen[64];
};

static int pg_cpu_watch_cb(void *ctx)
{
        struct pg_cpu_watch *w = ctx;
        char path[64], buf[1024];
        FILE *f;
        size_t n;
        char *p;
        int field = 2, cpu;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) w->pid);
        if (!(f = fopen(path, "r")))
                return 0;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* the command name (field 2) may hold spaces: count from its ')' */
        if (!(p = strrchr(buf, ')')))
                return 0;
        for (p++; *p && field < 39; p++)
                if (*p == ' ')
                        field++;
        if (field == 39 && sscanf(p, "%d", &cpu) == 1 && cpu >= 0 && cpu < 64)
                w->seen[cpu]++;
        return 0;
}

static int pg_cpu_watch_result(const struct pg_cpu_watch *w)
{
        int best = -1;
        for (int i = 0; i < 64; i++)
                if (w->seen[i] && (best < 0 || w->seen[i] > w->seen[best]))
                        best = i;
        return best;
}

static int pg_paired_log_fd(const struct pg_paired *p, bool head)
{
        const struct pg_bench_log *log = head ? p->o.head_log : p->o.base_log;
        return log ? log->fd : -1;
}

/* While a paired run waits: the benchmark's control commands (its region
 * of interest, runner/control.h), and its CPU when it is not pinned. */
struct pg_paired_poll {
        struct pg_control *ctl;
        int *slot; /* the control fd's entry in the polled fds */
        struct pg_cpu_watch *w;
};

static int pg_paired_poll_cb(void *arg)
{
        struct pg_paired_poll *x = arg;
        int error = pg_control_poll(x->ctl);

        *x->slot = x->ctl->ctl_rd;
        if (x->w)
                pg_cpu_watch_cb(x->w);
        return error;
}

/* One counted run of @b: its task-clock (ns) and CPU; with "roi", of its
 * region only, as `perfgate run` counts it. */
static int pg_paired_run(struct pg_paired *p, bool head, double *ns, int *cpu)
{
        const struct pg_bench *b = head ? p->o.head : p->o.base;
        const char *side = head ? "head" : "base";
        char **argv = pg_xcalloc(b->argc + 1, sizeof(char *));
        struct pg_counter_set s;
        struct pg_launch_opts lo;
        struct pg_child child;
        struct pg_cpu_watch w;
        struct pg_exit ex;
        struct pg_counter_opts co = { .start_disabled = b->roi };
        struct pg_control ctl;
        int leaders[PG_EVENTS_MAX], ctl_fd = -1;
        struct pg_paired_poll pp = { &ctl, &ctl_fd, p->o.ncpus ? NULL : &w };
        int error;

        memset(&w, 0, sizeof(w));
        if ((error = pg_control_open(&ctl, !b->roi)) < 0) {
                free(argv);
                return error;
        }
        memcpy(argv, b->argv, b->argc * sizeof(char *));
        argv[0] = b->exec_path;
        lo = (struct pg_launch_opts){ .argv = argv,
                                      .cwd = b->cwd,
                                      .env = b->env,
                                      .log_fd = pg_paired_log_fd(p, head),
                                      .cpus = p->o.ncpus ? p->o.cpus : NULL,
                                      .ncpus = p->o.ncpus,
                                      .ctl_fds = ctl.child_fds };
        pg_counter_set_init(&s, &p->events, &co);
        if ((error = pg_launch_prepare(&child, &lo)) < 0)
                goto done;
        if ((error = pg_counter_set_open(&s, child.pid)) < 0) {
                pg_launch_cancel(&child);
                goto done;
        }
        pg_control_set_targets(&ctl, leaders, pg_counter_set_leader_fds(&s, leaders));
        w.pid = child.pid;
        if ((error = pg_launch_start(&child, b->argv[0])) < 0) {
                /* the program comes from a commit's build: one that cannot be
                 * executed is a build that cannot be measured, as is a build
                 * without it (bisect skips that commit) */
                if (error == PG_ENOTFOUND || error == PG_EINPUT || error == PG_EMEASURE)
                        error = pg_error_prefix(
                            PG_EMEASURE, "a run of %s's build of benchmark '%s'", side, b->name);
                goto done;
        }
        pg_control_start(&ctl, child.start_ns);
        ctl_fd = ctl.ctl_rd;
        error = pg_launch_wait(&child, p->o.timeout_ns, &ctl_fd, 1, pg_paired_poll_cb, &pp, &ex);
        if (pg_control_finish(&ctl, child.start_ns + ex.wall_ns) < 0 && !error)
                error = PG_EIO;
        if (error < 0)
                goto done;
        if ((error = pg_counter_set_read(&s)) < 0)
                goto done;
        if (ex.timed_out || !WIFEXITED(ex.status) || WEXITSTATUS(ex.status) != 0) {
                const struct pg_bench_log *log = head ? p->o.head_log : p->o.base_log;
                char *tail = log && log->fd >= 0 ? pg_log_tail(log) : pg_xstrdup("(no log kept)");
                char limit[64];
                snprintf(limit, sizeof(limit), "timed out after %g s",
                         (double) p->o.timeout_ns / 1e9);
                /* "a run of": the build (the compile) succeeded before */
                error = pg_error_set(PG_EMEASURE, "a run of %s's build of benchmark '%s' %s; %s",
                                     side, b->name,
                                     ex.timed_out ? limit : pg_describe_status(ex.status), tail);
                free(tail);
                goto done;
        }
        if (s.c[0].r.state != PG_COUNT_OK || s.c[0].r.value <= 0) {
                error =
                    pg_error_set(PG_EMEASURE, "task-clock was not counted for the %s build of '%s'",
                                 side, b->name);
                goto done;
        }
        *ns = s.c[0].r.value;
        *cpu = p->o.ncpus ? p->o.cpus[0] : pg_cpu_watch_result(&w);
done:
        pg_control_close(&ctl);
        pg_counter_set_close(&s);
        free(argv);
        if (error < 0 && error != PG_EINTR && error != PG_EMEASURE)
                error =
                    pg_error_prefix(error, "a run of %s's build of benchmark '%s'", side, b->name);
        return error;
}

static void pg_paired_push(struct pg_paired *p, const struct pg_pair *pair)
{
        if (p->n == p->cap) {
                p->cap = p->cap ? 2 * p->cap : 32;
                p->pairs = pg_xreallocarray(p->pairs, p->cap, sizeof(*p->pairs));
        }
        p->pairs[p->n++] = *pair;
}

int pg_paired_block(struct pg_paired *p)
{
        uint64_t t0 = pg_now_ns();
        bool head_first = pg_coin(p);
        int error = 0;

        if (!p->warmed) {
                double ns;
                int cpu;
                if ((error = pg_paired_run(p, false, &ns, &cpu)) < 0 ||
                    (error = pg_paired_run(p, true, &ns, &cpu)) < 0)
                        goto done;
                p->warmed = true;
        }
        /* ABBA when head_first is false: (base, head), (head, base); else BAAB */
        for (int k = 0; k < 2; k++) {
                bool first_head = k == 0 ? head_first : !head_first;
                double ns[2];
                int cpu[2];
                struct pg_pair pair;

                if ((error = pg_paired_run(p, first_head, &ns[0], &cpu[0])) < 0 ||
                    (error = pg_paired_run(p, !first_head, &ns[1], &cpu[1])) < 0)
                        goto done;
                pair.head_first = first_head;
                pair.head_ns = first_head ? ns[0] : ns[1];
                pair.base_ns = first_head ? ns[1] : ns[0];
                pair.cpu = cpu[0] == cpu[1] ? cpu[0] : -1;
                if (cpu[0] != cpu[1]) {
                        p->ndiscarded++;
                        continue;
                }
                pg_paired_push(p, &pair);
        }
done:
        p->elapsed_ns += pg_now_ns() - t0;
        return error;
}

/* One sampled run of one side into @out. */
static int pg_paired_sample(struct pg_paired *p, bool head, struct pg_profile *out,
                            struct pg_buf *warnings)
{
        const struct pg_bench *b = head ? p->o.head : p->o.base;
        char **argv = pg_xcalloc(b->argc + 1, sizeof(char *));
        struct pg_sample_opts so;
        int error;

        memcpy(argv, b->argv, b->argc * sizeof(char *));
        argv[0] = b->exec_path;
        memset(&so, 0, sizeof(so));
        so.argv = argv;
        so.cwd = b->cwd;
        so.env = b->env;
        so.log_fd = pg_paired_log_fd(p, head);
        so.cpus = p->o.ncpus ? p->o.cpus : NULL;
        so.ncpus = p->o.ncpus;
        so.timeout_ns = p->o.timeout_ns;
        so.freq_hz = p->o.freq_hz ? p->o.freq_hz : 999;
        so.call_graph = p->o.call_graph;
        so.min_samples = 1;
        so.budget_ns = 0;
        so.max_runs = 1;
        so.exclude_kernel = p->o.exclude_kernel;
        so.roi = b->roi;
        memset(out, 0, sizeof(*out));
        /* one session for every sampled run of the pair of builds: the
         * files, debuginfo and kallsyms are loaded once */
        if (p->session == NULL)
                error = pg_sample_session_new(&p->session, &so);
        else
                error = 0;
        if (error == 0)
                error = pg_sample_session_profile(p->session, &so, out, warnings);
        free(argv);
        if (error < 0 && error != PG_EINTR)
                error = pg_error_prefix(error, "a sampled run of %s's build of benchmark '%s'",
                                        head ? "head" : "base", b->name);
        return error;
}

int pg_paired_profile_block(struct pg_paired *p, struct pg_profile base[2],
                            struct pg_profile head[2], struct pg_buf *warnings)
{
        uint64_t t0 = pg_now_ns();
        bool head_first = pg_coin(p);
        int error = 0;

        memset(base, 0, 2 * sizeof(*base));
        memset(head, 0, 2 * sizeof(*head));
        for (int k = 0; k < 2 && error == 0; k++) {
                bool first_head = k == 0 ? head_first : !head_first;
                if ((error = pg_paired_sample(p, first_head, first_head ? &head[k] : &base[k],
                                              warnings)) < 0)
                        break;
                error =
                    pg_paired_sample(p, !first_head, first_head ? &base[k] : &head[k], warnings);
        }
        if (error < 0)
                for (int k = 0; k < 2; k++) {
                        pg_profile_release(&base[k]);
                        pg_profile_release(&head[k]);
                }
        p->elapsed_ns += pg_now_ns() - t0;
        return error;
}
