/*
 * launch.c - fork/exec handshake, waiting and timeouts (see launch.h).
 * Invariants: the child never execs unless the parent wrote exactly one byte
 * to the go pipe; every fd the parent creates is O_CLOEXEC; after
 * pg_launch_wait() or pg_launch_cancel() no process of the group is left
 * running.
 */
#include "runner/launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/json.h"
#include "runner/control.h"
#include "runner/events.h"

#define PG_KILL_GRACE_NS 500000000ull

void pg_launch_install_signal_handlers(void)
{
        pg_interrupt_flag_mode();
}

bool pg_launch_interrupted(void)
{
        return pg_interrupted();
}

uint64_t pg_now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

const char *pg_describe_status(int status)
{
        static _Thread_local char buf[128];
        if (WIFEXITED(status))
                snprintf(buf, sizeof(buf), "exited with status %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
                snprintf(buf, sizeof(buf), "killed by signal %d (%s)", WTERMSIG(status),
                         strsignal(WTERMSIG(status)));
        else
                snprintf(buf, sizeof(buf), "ended with wait status 0x%x", status);
        return buf;
}

/* What the child reports with the errno when it cannot exec: which step
 * failed, and for exec itself, what the program's path led to. */
enum pg_exec_what {
        PG_EXW_CPUS = 1, /* sched_setaffinity() */
        PG_EXW_CONTROL,  /* the control descriptors */
        PG_EXW_CWD,      /* chdir() */
        PG_EXW_ABSENT,   /* exec: nothing at the path (or in PATH) */
        PG_EXW_DIR,      /* exec: a directory */
        PG_EXW_ELF,      /* exec: a file that starts with the ELF magic */
        PG_EXW_SCRIPT,   /* exec: a file that starts with "#!" */
        PG_EXW_FILE      /* exec: another file */
};

/* What is at @path, for the message saying why exec refused it (in the
 * child: stat, open and read only). */
static int pg_exec_what(const char *path)
{
        struct stat st;
        unsigned char m[4];
        ssize_t n;
        int fd, e = errno;

        if (stat(path, &st) < 0) {
                errno = e;
                return PG_EXW_ABSENT;
        }
        if (S_ISDIR(st.st_mode)) {
                errno = e;
                return PG_EXW_DIR;
        }
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        n = fd >= 0 ? read(fd, m, sizeof(m)) : -1;
        if (fd >= 0)
                close(fd);
        errno = e;
        if (n == 4 && memcmp(m, "\177ELF", 4) == 0)
                return PG_EXW_ELF;
        if (n >= 2 && m[0] == '#' && m[1] == '!')
                return PG_EXW_SCRIPT;
        return PG_EXW_FILE;
}

/*
 * execvp(3) without its shell fallback: glibc runs a file the kernel refuses
 * with ENOEXEC through /bin/sh, so a damaged binary "ran" as the shell's
 * exit 127, and a script without "#!" ran under whatever sh is. Here
 * nothing runs through a shell (as with posix_spawnp(3)): a script needs
 * its "#!" line. PATH is searched as execvp(3) does (unset: "/bin:/usr/bin",
 * confstr(_CS_PATH); an empty entry is the working directory; a refused
 * entry (EACCES) does not stop the search and is reported when nothing else
 * is found), except that a file that is there but cannot start (ENOENT from
 * a missing "#!" interpreter or ELF loader) stops it. Returns only on
 * failure, with errno set and *@what saying what the path led to.
 */
static void pg_exec(char *const *argv, int *what)
{
        const char *file = argv[0], *path = getenv("PATH"), *p;
        size_t flen = strlen(file);
        char buf[PATH_MAX];
        int refused = 0;

        if (!*file || strchr(file, '/')) {
                execv(file, argv);
                *what = *file ? pg_exec_what(file) : PG_EXW_ABSENT;
                return;
        }
        for (p = path ? path : "/bin:/usr/bin";; p++) {
                const char *end = strchrnul(p, ':');
                size_t dlen = (size_t) (end - p);

                if (dlen + 1 + flen < sizeof(buf)) {
                        memcpy(buf, p, dlen);
                        if (dlen)
                                buf[dlen++] = '/';
                        memcpy(buf + dlen, file, flen + 1);
                        execv(buf, argv);
                        if (errno == EACCES) {
                                if (!refused)
                                        refused = pg_exec_what(buf);
                        } else if (errno == ENOENT) {
                                if ((*what = pg_exec_what(buf)) != PG_EXW_ABSENT)
                                        return;
                        } else if (errno != ENOTDIR && errno != ESTALE && errno != ENODEV &&
                                   errno != ETIMEDOUT) {
                                *what = pg_exec_what(buf);
                                return;
                        }
                }
                if (!*end)
                        break;
                p = end;
        }
        *what = refused ? refused : PG_EXW_ABSENT;
        errno = refused ? EACCES : ENOENT;
}

/* Runs in the forked child: only async-signal-safe work until exec, plus
 * setenv, which is safe here because perfgate does not start threads. On
 * failure it writes {errno, enum pg_exec_what} to @err_wr. */
static void pg_child_main(const struct pg_launch_opts *o, int go_rd, int err_wr)
{
        char b;
        ssize_t r;
        int fd, rep[2], what = 0, ctl[2] = { -1, -1 };

        /* its own session: no controlling terminal (a read of /dev/tty
         * fails with ENXIO instead of stopping it with SIGTTIN), and its own
         * process group, whose id is its pid (setsid(2)) */
        setsid();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        do
                r = read(go_rd, &b, 1);
        while (r < 0 && errno == EINTR);
        if (r != 1)
                _exit(127);
        if (o->ctl_fds) /* kept clear of the stdio slots about to be replaced */
                for (int k = 0; k < 2; k++)
                        ctl[k] = o->ctl_fds[k] > STDERR_FILENO
                                     ? o->ctl_fds[k]
                                     : fcntl(o->ctl_fds[k], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
        fd = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
                dup2(fd, STDIN_FILENO);
                close(fd);
        }
        if (o->log_fd > STDERR_FILENO) {
                dup2(o->log_fd, STDOUT_FILENO);
                dup2(o->log_fd, STDERR_FILENO);
        } else if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                close(fd);
        }
        if (o->ncpus) {
                cpu_set_t set;
                CPU_ZERO(&set);
                for (size_t i = 0; i < o->ncpus; i++)
                        CPU_SET(o->cpus[i], &set);
                what = PG_EXW_CPUS;
                if (sched_setaffinity(0, sizeof(set), &set) < 0)
                        goto fail;
        }
        for (char *const *p = o->env; p && *p; p++)
                putenv(*p);
        if (o->ctl_fds) {
                /* perf's names for the control descriptors (perf-stat(1),
                 * --control fd:ctl-fd,ack-fd); they stay open across exec */
                char num[16];
                what = PG_EXW_CONTROL;
                for (int k = 0; k < 2; k++)
                        if (fcntl(ctl[k], F_SETFD, 0) < 0)
                                goto fail;
                snprintf(num, sizeof(num), "%d", ctl[0]);
                setenv(PG_CTL_FD_ENV, num, 1);
                snprintf(num, sizeof(num), "%d", ctl[1]);
                setenv(PG_CTL_ACK_FD_ENV, num, 1);
        }
        what = PG_EXW_CWD;
        if (o->cwd && chdir(o->cwd) < 0)
                goto fail;
        pg_exec(o->argv, &what);
fail:
        rep[0] = errno;
        rep[1] = what;
        (void) !write(err_wr, rep, sizeof(rep));
        _exit(127);
}

/* ---- the spawner (see pg_launch_spawner_start) -------------------------
 * Protocol over a SOCK_SEQPACKET socketpair, one request and one reply each:
 *   SPAWN: u32 type, u32 pad, u32 ncpus, u32 nargv, u32 nenv, u32 flags (1 cwd, 2 log,
 *          4 control), i32 cpus[ncpus], then NUL-terminated argv..., env...,
 *          cwd; SCM_RIGHTS carries the log's descriptor (flag 2), then the
 *          two control descriptors (flag 4).
 *          Reply: struct pg_sp_reply (pid or err) with SCM_RIGHTS carrying
 *          the go pipe's write end and the exec-errno pipe's read end.
 *   WAIT:  u32 type, i32 pid, u32 flags (1 WNOHANG, 2 WUNTRACED). Reply:
 *          struct pg_sp_reply with wait4(2)'s pid (0: still running),
 *          status and rusage.
 */
enum { PG_SP_SPAWN = 1, PG_SP_WAIT = 2 };
#define PG_SP_MAX (256u * 1024u)

struct pg_sp_reply {
        int32_t err; /* errno of the spawner's failure, 0 on success */
        int32_t pid;
        int32_t status;
        uint32_t outlived; /* WAIT: processes killed because they outlived it */
        struct rusage ru;
};

static int pg_spawner_sock = -1;
static pid_t pg_spawner_pid = -1;

static void pg_sp_send(int sock, const struct pg_sp_reply *r, const int *fds, size_t nfds)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(2 * sizeof(int))];
        } cm;
        struct iovec iov = { (void *) r, sizeof(*r) };
        struct msghdr m = { 0 };

        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        if (nfds) {
                memset(&cm, 0, sizeof(cm));
                m.msg_control = cm.buf;
                m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
                cm.h.cmsg_level = SOL_SOCKET;
                cm.h.cmsg_type = SCM_RIGHTS;
                cm.h.cmsg_len = CMSG_LEN(nfds * sizeof(int));
                memcpy(CMSG_DATA(&cm.h), fds, nfds * sizeof(int));
        }
        while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0 && errno == EINTR)
                ;
}

/* Runs in the spawner: fork one benchmark from the request in @req, with
 * the descriptors @rfds (@nrfds) that came with it: the log (its output;
 * else /dev/null), then the control pair. The caller closes them. */
static void pg_sp_spawn(int sock, char *req, size_t len, const int *rfds, size_t nrfds,
                        bool truncated)
{
        struct pg_sp_reply r = { 0 };
        uint32_t h[5];
        struct pg_launch_opts o = { 0 };
        char **strs = NULL, *p, *end = req + len;
        int *cpus = NULL, go[2] = { -1, -1 }, err[2] = { -1, -1 }, fds[2];
        size_t nstr, i;

        if (len < sizeof(h))
                goto bad;
        memcpy(h, req, sizeof(h));
        if (h[1] > 4096 || h[2] == 0 || h[2] > 65536 || h[3] > 65536 ||
            sizeof(h) + (size_t) h[1] * sizeof(int) > len)
                goto bad;
        cpus = calloc(h[1] + 1, sizeof(int));
        nstr = (size_t) h[2] + h[3] + !!(h[4] & 1);
        strs = calloc(nstr + 2, sizeof(char *));
        if (!cpus || !strs)
                goto fail;
        memcpy(cpus, req + sizeof(h), h[1] * sizeof(int));
        p = req + sizeof(h) + h[1] * sizeof(int);
        for (i = 0; i < nstr; i++) {
                char *z = memchr(p, '\0', (size_t) (end - p));
                if (!z)
                        goto bad;
                strs[i] = p;
                p = z + 1;
        }
        /* argv[0..nargv) NULL, env[0..nenv) NULL: shift env one slot up */
        memmove(&strs[h[2] + 1], &strs[h[2]], (nstr - h[2]) * sizeof(char *));
        strs[h[2]] = NULL;
        o.argv = strs;
        o.env = &strs[h[2] + 1];
        i = (size_t) h[2] + 1 + h[3];
        o.cwd = (h[4] & 1) ? strs[i++] : NULL;
        {
                size_t want = ((h[4] & 2) ? 1u : 0u) + ((h[4] & 4) ? 2u : 0u);
                if (truncated) {
                        /* MSG_CTRUNC: the kernel dropped passed descriptors
                         * this process had no room for (scm_detach_fds(),
                         * net/core/scm.c): the open-file limit */
                        errno = EMFILE;
                        goto fail;
                }
                if (nrfds != want)
                        goto bad;
                o.log_fd = (h[4] & 2) ? rfds[0] : -1;
                o.ctl_fds = (h[4] & 4) ? rfds + want - 2 : NULL;
        }
        strs[h[2] + 1 + h[3]] = NULL; /* terminate env (cwd already read) */
        o.cpus = h[1] ? cpus : NULL;
        o.ncpus = h[1];
        if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
                goto fail;
        r.pid = fork();
        if (r.pid < 0)
                goto fail;
        if (r.pid == 0) {
                close(sock);
                close(go[1]);
                close(err[0]);
                pg_child_main(&o, go[0], err[1]);
        }
        fds[0] = go[1];
        fds[1] = err[0];
        pg_sp_send(sock, &r, fds, 2);
        close(go[0]);
        close(go[1]);
        close(err[0]);
        close(err[1]);
        free(cpus);
        free(strs);
        return;
bad:
        errno = EINVAL;
fail:
        r.err = errno ? errno : EINVAL;
        r.pid = -1;
        for (int k = 0; k < 2; k++) {
                if (go[k] >= 0)
                        close(go[k]);
                if (err[k] >= 0)
                        close(err[k]);
        }
        free(cpus);
        free(strs);
        pg_sp_send(sock, &r, NULL, 0);
}

/* Whether process @pid is running: neither a zombie nor exiting (the state
 * and flags fields of /proc/PID/stat, the 3rd and 9th, counted from the
 * last ')' of the command name; proc(5)). A process that is exiting
 * (PF_EXITING, include/linux/sched.h) has closed or is closing its files:
 * a benchmark that waited for a helper's pipe to close may exit before the
 * helper is a zombie. */
static bool pg_sp_alive(long pid)
{
        char path[64], buf[512], *p;
        unsigned long flags = 0;
        char state = 0;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
                return false;
        return state != 'Z' && state != 'X' && !(flags & 0x4); /* PF_EXITING */
}

/* The running processes in the tree under @pid, itself included: the
 * children of each of its threads (/proc/PID/task/TID/children, proc(5)),
 * down to @depth levels. */
static unsigned pg_sp_count_tree(long pid, int depth)
{
        char path[64];
        unsigned n = pg_sp_alive(pid) ? 1u : 0u;
        DIR *d;
        struct dirent *t;

        snprintf(path, sizeof(path), "/proc/%ld/task", pid);
        if (depth <= 0 || !(d = opendir(path)))
                return n;
        while ((t = readdir(d)) != NULL) {
                char cpath[96], buf[4096];
                ssize_t len;
                int fd;

                if (t->d_name[0] == '.')
                        continue;
                snprintf(cpath, sizeof(cpath), "/proc/%ld/task/%.16s/children", pid, t->d_name);
                if ((fd = open(cpath, O_RDONLY | O_CLOEXEC)) < 0)
                        continue;
                len = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (len <= 0)
                        continue;
                buf[len] = '\0';
                for (char *p = buf, *end;; p = end) {
                        long c = strtol(p, &end, 10);
                        if (end == p)
                                break;
                        if (c > 0)
                                n += pg_sp_count_tree(c, depth - 1);
                }
        }
        closedir(d);
        return n;
}

/* Kill and reap every remaining child of the spawner: descendants of a
 * benchmark that outlived it (its own background children, setsid daemons)
 * were re-parented here because the spawner is a child subreaper
 * (prctl(2)). Returns how many of them were running (zombies are not
 * counted: they had ended), counted before the first kill. */
static unsigned pg_sp_kill_orphans(void)
{
        char path[64];
        unsigned outlived = 0;

        snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int) getpid());
        for (int round = 0; round < 64; round++) {
                char buf[4096];
                ssize_t n;
                int fd = open(path, O_RDONLY | O_CLOEXEC), any = 0;
                if (fd < 0)
                        return outlived;
                n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        break;
                buf[n] = '\0';
                if (round == 0) /* before any kill: the trees are whole */
                        for (char *p = buf, *end;; p = end) {
                                long pid = strtol(p, &end, 10);
                                if (end == p)
                                        break;
                                if (pid > 0)
                                        outlived += pg_sp_count_tree(pid, 64);
                        }
                for (char *p = buf, *end; *p; p = end) {
                        long pid = strtol(p, &end, 10);
                        if (end == p)
                                break;
                        if (pid > 0) {
                                kill((pid_t) -pid, SIGKILL);
                                kill((pid_t) pid, SIGKILL);
                                any = 1;
                        }
                }
                if (!any)
                        break;
                while (waitpid(-1, NULL, WNOHANG) > 0)
                        ;
                usleep(2000);
        }
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        return outlived;
}

/*
 * Why: the first per-task perf event after a second without any makes the
 * kernel enable its scheduler hooks and wait in synchronize_rcu()
 * (kernel/events/core.c, account_event()): 10-15 ms measured here. The
 * spawner opens a dummy event on itself as soon as it is forked, so that
 * wait passes while perfgate reads the manifest and probes the host, in
 * another process instead of a thread of perfgate's own. The dummy stays
 * open while the spawner lives (the whole run), keeping the hooks enabled
 * for every repetition; when it cannot be opened, the first counter pays
 * the wait instead.
 *
 * Why the default software events as well: each software event id has its
 * own static key (perf_swevent_enabled[id], perf_swevent_init() in
 * kernel/events/core.c). The open that takes it from 0 to 1 and the close
 * that takes it back patch the kernel's text (static_key_slow_inc/dec ->
 * arch_jump_label_transform_apply -> text_poke with IPIs to every CPU), and
 * without a holder that happened on every repetition, for each of
 * context-switches, cpu-migrations and page-faults: perf record of 40
 * `perfgate run --repeat 1` of a static no-op put 12.6% of all samples
 * (about a quarter of perfgate's own CPU) in that patching, 9.0% at the
 * open before the benchmark. Held here (disabled, on the spawner itself,
 * so they count nothing and change no other event's count), the keys flip
 * once, in the spawner while perfgate starts, and once more when it exits.
 * Only ids with a static key: task-clock and cpu-clock are their own PMUs.
 */
static void pg_spawner_warm_perf(void)
{
        struct perf_event_attr a;
        const struct pg_event_def *ev;
        size_t n;

        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_DUMMY;
        a.disabled = 1;
        a.exclude_kernel = a.exclude_hv = 1; /* allowed at every paranoid level but 3+ */
        (void) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        ev = pg_events_table(&n);
        for (size_t i = 0; i < n; i++)
                if (ev[i].is_default && ev[i].type == PERF_TYPE_SOFTWARE &&
                    ev[i].config != PERF_COUNT_SW_TASK_CLOCK &&
                    ev[i].config != PERF_COUNT_SW_CPU_CLOCK) {
                        a.config = ev[i].config;
                        (void) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
                }
}

static void pg_spawner_main(int sock)
{
        char *buf;

        pg_spawner_warm_perf();
        buf = malloc(PG_SP_MAX);

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        prctl(PR_SET_NAME, "perfgate-spawn");
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        /* SIGINT/SIGTERM/SIGHUP sent to perfgate's whole process group (a
         * terminal's ^C, timeout(1), a CI job cancelled) are perfgate's to
         * handle: it stops the benchmark and asks for its status here, so
         * the spawner must outlive them. It still ends with perfgate
         * (PR_SET_PDEATHSIG, or the socket closing). */
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        if (!buf)
                _exit(1);
        for (;;) {
                union {
                        struct cmsghdr h;
                        char buf[CMSG_SPACE(3 * sizeof(int))];
                } cm;
                struct iovec iov = { buf, PG_SP_MAX };
                struct msghdr m = { 0 };
                ssize_t n;
                uint32_t type;
                int rfds[3];
                size_t nrfds = 0;

                m.msg_iov = &iov;
                m.msg_iovlen = 1;
                m.msg_control = cm.buf;
                m.msg_controllen = sizeof(cm.buf);
                n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < (ssize_t) sizeof(type))
                        _exit(0); /* perfgate closed the socket or is gone */
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
                            c->cmsg_len >= CMSG_LEN(sizeof(int)) &&
                            c->cmsg_len <= CMSG_LEN(3 * sizeof(int)) && !nrfds) {
                                nrfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                                memcpy(rfds, CMSG_DATA(c), nrfds * sizeof(int));
                        }
                memcpy(&type, buf, sizeof(type));
                if (type == PG_SP_SPAWN) {
                        pg_sp_spawn(sock, buf + sizeof(type), (size_t) n - sizeof(type), rfds,
                                    nrfds, (m.msg_flags & MSG_CTRUNC) != 0);
                } else if (type == PG_SP_WAIT && n >= 12) {
                        struct pg_sp_reply r = { 0 };
                        int32_t pid;
                        uint32_t nohang;
                        int status = 0;
                        memcpy(&pid, buf + 4, 4);
                        memcpy(&nohang, buf + 8, 4);
                        do
                                r.pid = wait4(pid, &status,
                                              ((nohang & 1) ? WNOHANG : 0) |
                                                  ((nohang & 2) ? WUNTRACED : 0),
                                              &r.ru);
                        while (r.pid < 0 && errno == EINTR);
                        r.err = r.pid < 0 ? errno : 0;
                        r.status = status;
                        if (r.pid > 0 && !WIFSTOPPED(status))
                                r.outlived = pg_sp_kill_orphans(); /* nothing outlives it */
                        pg_sp_send(sock, &r, NULL, 0);
                }
                for (size_t k = 0; k < nrfds; k++)
                        close(rfds[k]);
        }
}

int pg_launch_spawner_start(void)
{
        int sv[2];

        if (pg_spawner_sock >= 0)
                return 0;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return pg_error_set(PG_EIO, "cannot create the spawner's socket: %s",
                                    strerror(errno));
        fflush(NULL);
        pg_spawner_pid = fork();
        if (pg_spawner_pid < 0) {
                int e = errno;
                close(sv[0]);
                close(sv[1]);
                return pg_error_set(PG_EIO, "cannot fork the spawner: %s%s", strerror(e),
                                    pg_fork_limit_hint(e));
        }
        if (pg_spawner_pid == 0) {
                close(sv[0]);
                pg_spawner_main(sv[1]);
                _exit(0);
        }
        close(sv[1]);
        pg_spawner_sock = sv[0];
        return 0;
}

void pg_launch_spawner_stop(void)
{
        if (pg_spawner_sock < 0)
                return;
        close(pg_spawner_sock);
        pg_spawner_sock = -1;
        while (waitpid(pg_spawner_pid, NULL, 0) < 0 && errno == EINTR)
                ;
        pg_spawner_pid = -1;
}

/* One request/reply round trip; @send_fds (@nsend, at most 3) travel with
 * the request, the reply's fds (if any) go to @fds. */
static int pg_sp_call(const void *req, size_t len, const int *send_fds, size_t nsend,
                      struct pg_sp_reply *r, int *fds, size_t nfds)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(3 * sizeof(int))];
        } cm;
        struct iovec iov = { (void *) req, len };
        struct msghdr m = { 0 };
        ssize_t n;

        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        if (nsend) {
                memset(&cm, 0, sizeof(cm));
                m.msg_control = cm.buf;
                m.msg_controllen = CMSG_SPACE(nsend * sizeof(int));
                cm.h.cmsg_level = SOL_SOCKET;
                cm.h.cmsg_type = SCM_RIGHTS;
                cm.h.cmsg_len = CMSG_LEN(nsend * sizeof(int));
                memcpy(CMSG_DATA(&cm.h), send_fds, nsend * sizeof(int));
        }
        while ((n = sendmsg(pg_spawner_sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
                ;
        if (n != (ssize_t) len)
                return -1;
        memset(&m, 0, sizeof(m));
        iov = (struct iovec){ r, sizeof(*r) };
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = cm.buf;
        m.msg_controllen = sizeof(cm.buf);
        while ((n = recvmsg(pg_spawner_sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
                ;
        if (n != (ssize_t) sizeof(*r)) {
                errno = n < 0 ? errno : EIO;
                return -1;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
                    c->cmsg_len == CMSG_LEN(nfds * sizeof(int)) && nfds)
                        memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
        if ((m.msg_flags & MSG_CTRUNC) && r->pid > 0 && !r->err) {
                /* descriptors dropped for want of room in this process
                 * (scm_detach_fds(), net/core/scm.c): the open-file limit;
                 * the caller cleans up the spawned child */
                r->err = EMFILE;
        }
        return 0;
}

static int pg_sp_prepare(struct pg_child *c, const struct pg_launch_opts *o)
{
        struct pg_buf req = PG_BUF_INIT;
        uint32_t h[6] = {
                PG_SP_SPAWN, 0, (uint32_t) o->ncpus, 0, 0, 0
        }; /* type, pad, then the 5 words pg_sp_spawn reads */
        struct pg_sp_reply r;
        int fds[2] = { -1, -1 }, send[3], error = 0, fe;
        size_t nsend = 0;

        for (char *const *a = o->argv; *a; a++)
                h[3]++;
        for (char *const *e = o->env; e && *e; e++)
                h[4]++;
        h[5] = (o->cwd ? 1u : 0u) | (o->log_fd > STDERR_FILENO ? 2u : 0u) | (o->ctl_fds ? 4u : 0u);
        if (o->log_fd > STDERR_FILENO)
                send[nsend++] = o->log_fd;
        if (o->ctl_fds) {
                send[nsend++] = o->ctl_fds[0];
                send[nsend++] = o->ctl_fds[1];
        }
        pg_buf_add(&req, h, sizeof(h));
        if (o->ncpus)
                pg_buf_add(&req, o->cpus, o->ncpus * sizeof(int));
        for (char *const *a = o->argv; *a; a++)
                pg_buf_add(&req, *a, strlen(*a) + 1);
        for (char *const *e = o->env; e && *e; e++)
                pg_buf_add(&req, *e, strlen(*e) + 1);
        if (o->cwd)
                pg_buf_add(&req, o->cwd, strlen(o->cwd) + 1);
        if (req.len > PG_SP_MAX) {
                error = pg_error_set(PG_EINPUT,
                                     "the benchmark's command line and environment "
                                     "are too long (%zu bytes)",
                                     req.len);
        } else if ((fe = pg_sp_call(req.ptr, req.len, send, nsend, &r, fds, 2) < 0 ? errno : 0) ||
                   r.err || r.pid <= 0 || fds[0] < 0 || fds[1] < 0) {
                fe = fe ? fe : r.err ? r.err : EIO;
                error = pg_error_set(PG_EIO, "cannot fork the benchmark: %s%s", strerror(fe),
                                     pg_fork_limit_hint(fe));
                for (int k = 0; k < 2; k++)
                        if (fds[k] >= 0)
                                close(fds[k]);
        } else {
                c->pid = r.pid;
                c->go_fd = fds[0];
                c->err_fd = fds[1];
                c->via_spawner = true;
                c->pidfd = (int) syscall(SYS_pidfd_open, c->pid, 0);
        }
        pg_buf_release(&req);
        return error;
}

/* wait4() for a child of ours or of the spawner; same return convention. */
static pid_t pg_reap(struct pg_child *c, int *status, struct rusage *ru, int options)
{
        struct pg_sp_reply r;
        uint32_t req[3] = { PG_SP_WAIT, 0,
                            (options & WNOHANG ? 1u : 0u) | (options & WUNTRACED ? 2u : 0u) };
        int32_t pid = c->pid;

        if (!c->via_spawner)
                return wait4(c->pid, status, options, ru);
        memcpy(&req[1], &pid, sizeof(pid));
        if (pg_sp_call(req, sizeof(req), NULL, 0, &r, NULL, 0) < 0) {
                errno = EIO;
                return -1;
        }
        if (r.pid < 0) {
                errno = r.err;
                return -1;
        }
        if (r.pid > 0) {
                *status = r.status;
                c->outlived = r.outlived;
                if (ru)
                        *ru = r.ru;
        }
        return r.pid;
}

int pg_launch_prepare(struct pg_child *c, const struct pg_launch_opts *o)
{
        int go[2], err[2];

        c->pid = -1;
        c->go_fd = c->err_fd = c->pidfd = -1;
        c->start_ns = 0;
        c->via_spawner = false;
        c->outlived = 0;
        c->log_fd = o->log_fd > STDERR_FILENO ? o->log_fd : -1;
        if (pg_spawner_sock >= 0)
                return pg_sp_prepare(c, o);
        if (pipe2(go, O_CLOEXEC) < 0)
                return pg_error_set(PG_EIO, "cannot create a pipe: %s", strerror(errno));
        if (pipe2(err, O_CLOEXEC) < 0) {
                close(go[0]);
                close(go[1]);
                return pg_error_set(PG_EIO, "cannot create a pipe: %s", strerror(errno));
        }
        fflush(NULL);
        c->pid = fork();
        if (c->pid < 0) {
                int e = errno;
                close(go[0]);
                close(go[1]);
                close(err[0]);
                close(err[1]);
                return pg_error_set(PG_EIO, "cannot fork: %s%s", strerror(e),
                                    pg_fork_limit_hint(e));
        }
        if (c->pid == 0) {
                close(go[1]);
                close(err[0]);
                pg_child_main(o, go[0], err[1]);
        }
        close(go[0]);
        close(err[1]);
        c->go_fd = go[1];
        c->err_fd = err[0];
        c->pidfd = (int) syscall(SYS_pidfd_open, c->pid, 0);
        return 0;
}

static void pg_child_close(struct pg_child *c)
{
        if (c->go_fd >= 0)
                close(c->go_fd);
        if (c->err_fd >= 0)
                close(c->err_fd);
        if (c->pidfd >= 0)
                close(c->pidfd);
        c->go_fd = c->err_fd = c->pidfd = -1;
}

void pg_launch_cancel(struct pg_child *c)
{
        if (c->pid > 0) {
                kill(-c->pid, SIGKILL);
                kill(c->pid, SIGKILL);
                int status;
                while (pg_reap(c, &status, NULL, 0) < 0 && errno == EINTR)
                        ;
                c->pid = -1;
        }
        pg_child_close(c);
}

/* A program named without a '/', looked up in PATH (for pg_exec_reasons) */
#define PG_EXW_BARE (-1)

/* Why exec failed, by errno and what the path led to (0: anything), first
 * match wins; @strerror: the message gives strerror(errno) before @why. A
 * program that is missing, not executable or not a program is bad input
 * (PG_ENOTFOUND, PG_EINPUT: exit 2). */
static const struct pg_exec_reason {
        int err, what, code;
        bool strerror;
        const char *why;
} pg_exec_reasons[] = {
        { ENOENT, PG_EXW_SCRIPT, PG_EINPUT, false,
          "the interpreter on its '#!' line does not exist; correct that line or install the "
          "interpreter" },
        { ENOENT, PG_EXW_ELF, PG_EINPUT, false,
          "the ELF interpreter (dynamic loader) it names does not exist: it was built for "
          "another system; build it here" },
        { ENOENT, PG_EXW_BARE, PG_ENOTFOUND, false, "not found in PATH; give its path" },
        { ENOENT, 0, PG_ENOTFOUND, true, "; check the path" },
        { ENOTDIR, 0, PG_ENOTFOUND, true, "; check the path" },
        { ELOOP, 0, PG_ENOTFOUND, true, "; check the path" },
        { ENAMETOOLONG, 0, PG_ENOTFOUND, true, "; check the path" },
        { EACCES, PG_EXW_DIR, PG_EINPUT, false, "it is a directory; name the program in it" },
        { EACCES, 0, PG_EINPUT, true,
          ": it is not executable ('chmod +x' it), or its file system is mounted noexec, or a "
          "directory on its path cannot be searched" },
        { ENOEXEC, PG_EXW_ELF, PG_EINPUT, true,
          ": an ELF file this machine cannot run (built for another architecture, or damaged); "
          "build it here" },
        { ENOEXEC, PG_EXW_SCRIPT, PG_EINPUT, true,
          ": the kernel cannot start the interpreter its '#!' line names (not a program itself, "
          "or the line is too long); name a program there" },
        { ENOEXEC, 0, PG_EINPUT, true,
          ": not a program the kernel can start; a script needs a '#!' line naming its "
          "interpreter (e.g. '#!/bin/sh'), as perfgate runs nothing through a shell" },
        { E2BIG, 0, PG_EINPUT, true, " (its arguments and environment together)" },
        { EPERM, 0, PG_EPERM, true, "" },
        { ENOMEM, 0, PG_ENOMEM, true, "" },
};

/*
 * The error for a child that could not exec @program: @e its errno, @what
 * the step that failed or what the path led to (enum pg_exec_what). The
 * message names @program (escaped), the reason and the fix; anything the
 * table does not know cannot be measured (PG_EMEASURE).
 */
static int pg_exec_failed(const char *program, int e, int what)
{
        char *shown = pg_shown(program);
        const char *se = strerror(e);
        int rc;

        if (what == PG_EXW_CPUS) {
                rc =
                    pg_error_set(PG_EINPUT, "cannot pin '%s' to the requested CPUs: %s", shown, se);
        } else if (what == PG_EXW_CONTROL) {
                rc =
                    pg_error_set(PG_EIO, "cannot hand '%s' its control descriptors: %s", shown, se);
        } else if (what == PG_EXW_CWD) {
                rc = pg_error_set(e == ENOENT || e == ENOTDIR ? PG_ENOTFOUND : PG_EINPUT,
                                  "cannot start '%s' in its working directory: %s", shown, se);
        } else {
                const struct pg_exec_reason *r = NULL;
                int w = what == PG_EXW_ABSENT && !strchr(program, '/') ? PG_EXW_BARE : what;
                for (size_t i = 0; i < sizeof(pg_exec_reasons) / sizeof(pg_exec_reasons[0]); i++)
                        if (pg_exec_reasons[i].err == e &&
                            (!pg_exec_reasons[i].what || pg_exec_reasons[i].what == w)) {
                                r = &pg_exec_reasons[i];
                                break;
                        }
                rc = pg_error_set(r ? r->code : PG_EMEASURE, "cannot execute '%s': %s%s", shown,
                                  !r || r->strerror ? se : "", r ? r->why : "");
        }
        free(shown);
        return rc;
}

int pg_launch_start(struct pg_child *c, const char *program)
{
        int rep[2] = { 0, 0 };
        ssize_t n;

        c->start_ns = pg_now_ns();
        if (write(c->go_fd, "g", 1) != 1) {
                int we = errno;
                pg_launch_cancel(c);
                return pg_error_set(PG_EIO, "cannot start '%s': %s", program, strerror(we));
        }
        close(c->go_fd);
        c->go_fd = -1;
        do
                n = read(c->err_fd, rep, sizeof(rep));
        while (n < 0 && errno == EINTR);
        close(c->err_fd);
        c->err_fd = -1;
        if (n == (ssize_t) sizeof(rep)) {
                pg_launch_cancel(c);
                return pg_exec_failed(program, rep[0], rep[1]);
        }
        return 0;
}

#define PG_LOG_NOTE_PREFIX "\n[perfgate: "
#define PG_LOG_NOTE_MAX    256

static int pg_pread_all(int fd, char *p, size_t len, off_t off)
{
        while (len) {
                ssize_t n = pread(fd, p, len, off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -1;
                p += n;
                len -= (size_t) n;
                off += n;
        }
        return 0;
}

static int pg_write_all_fd(int fd, const char *p, size_t len)
{
        while (len) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -1;
                p += n;
                len -= (size_t) n;
        }
        return 0;
}

void pg_log_cap(int fd)
{
        char note[PG_LOG_NOTE_MAX + 1], *tail = NULL;
        unsigned long long dropped = 0;
        off_t middle = PG_LOG_HEAD_BYTES;
        struct stat st;
        int len;

        if (fstat(fd, &st) < 0 || st.st_size <= (off_t) PG_LOG_HEAD_BYTES + PG_LOG_TAIL_BYTES)
                return;
        /* an earlier note: its count goes on, its line is dropped with the middle */
        memset(note, 0, sizeof(note));
        if (pg_pread_all(fd, note, PG_LOG_NOTE_MAX, PG_LOG_HEAD_BYTES) == 0 &&
            strncmp(note, PG_LOG_NOTE_PREFIX, strlen(PG_LOG_NOTE_PREFIX)) == 0) {
                char *end = strstr(note + 1, "]\n");
                if (end && sscanf(note + strlen(PG_LOG_NOTE_PREFIX), "%llu", &dropped) == 1)
                        middle += end + 2 - note;
                else
                        dropped = 0;
        }
        if (st.st_size - middle <= (off_t) PG_LOG_TAIL_BYTES)
                return;
        dropped += (unsigned long long) (st.st_size - middle - PG_LOG_TAIL_BYTES);
        tail = malloc(PG_LOG_TAIL_BYTES);
        if (!tail || pg_pread_all(fd, tail, PG_LOG_TAIL_BYTES, st.st_size - PG_LOG_TAIL_BYTES) < 0)
                goto done;
        len = snprintf(note, sizeof(note),
                       PG_LOG_NOTE_PREFIX "%llu bytes of this log dropped here; its first %u "
                                          "and last %u bytes are kept]\n",
                       dropped, PG_LOG_HEAD_BYTES, PG_LOG_TAIL_BYTES);
        if (ftruncate(fd, PG_LOG_HEAD_BYTES) < 0 || lseek(fd, 0, SEEK_END) < 0)
                goto done;
        if (pg_write_all_fd(fd, note, (size_t) len) < 0)
                goto done;
        (void) pg_write_all_fd(fd, tail, PG_LOG_TAIL_BYTES);
done:
        free(tail);
}

/* Kill the rest of the group and wait (bounded) until it is gone, so
 * inherited counters have folded in every descendant. Returns whether
 * some process of the group was left. */
static bool pg_kill_group(pid_t pgid)
{
        uint64_t until = pg_now_ns() + 200000000ull;

        if (kill(-pgid, SIGKILL) < 0)
                return false;
        while (pg_now_ns() < until && kill(-pgid, 0) == 0) {
                struct timespec ts = { 0, 2000000 };
                nanosleep(&ts, NULL);
        }
        return true;
}

int pg_launch_wait(struct pg_child *c, uint64_t timeout_ns, const int *fds, size_t nfds,
                   pg_launch_poll_cb cb, void *ctx, struct pg_exit *out)
{
        struct pollfd *pfd = calloc(nfds + 1, sizeof(*pfd));
        int *hung = calloc(nfds + 1, sizeof(*hung)); /* fds[i] that hung up, or -1 */
        uint64_t deadline = timeout_ns ? c->start_ns + timeout_ns : 0, kill_at = 0;
        int error = 0, status = 0;
        pid_t w;

        memset(out, 0, sizeof(*out));
        if (!pfd || !hung) {
                free(pfd);
                free(hung);
                return pg_error_set(PG_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < nfds; i++)
                hung[i] = -1;
        for (bool first = true;; first = false) {
                size_t np = 0;
                uint64_t now;
                int rc;

                /* a child of the spawner that has just exec'd is running: its
                 * first WAIT round trip would only say so; the pidfd's poll
                 * below tells when it ends (a stop is seen at the next pass) */
                w = first && c->via_spawner && c->pidfd >= 0
                        ? 0
                        : pg_reap(c, &status, &out->ru, WNOHANG | WUNTRACED);
                if (w == c->pid && WIFSTOPPED(status)) {
                        /* stopped (SIGSTOP, or SIGTSTP/SIGTTIN/SIGTTOU): it
                         * would wait forever for a SIGCONT nobody sends */
                        if (!out->stopped_sig)
                                out->stopped_sig = WSTOPSIG(status);
                        kill(-c->pid, SIGKILL);
                        kill(c->pid, SIGKILL);
                        continue;
                }
                if (w == c->pid)
                        break;
                if (w < 0 && errno != EINTR) {
                        error = pg_launch_interrupted()
                                    ? pg_error_set(PG_EINTR, "interrupted")
                                    : pg_error_set(PG_ERROR, "wait4 failed: %s", strerror(errno));
                        out->interrupted = error == PG_EINTR;
                        break;
                }
                if (c->pidfd >= 0)
                        pfd[np++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
                /* an fd that hung up is not polled again (poll(2) skips a
                 * negative fd): it would make every poll return at once, and
                 * this loop - with a WAIT round trip to the spawner per pass -
                 * would spin until the benchmark is reaped. A sampling event
                 * hangs up when its task's perf context exits, before the task
                 * can be reaped (kernel/events/core.c, perf_poll()); a busy
                 * waiter can then starve that very task on a loaded machine. */
                for (size_t i = 0; i < nfds; i++)
                        pfd[np++] = (struct pollfd){ .fd = fds[i] == hung[i] ? -1 : fds[i],
                                                     .events = POLLIN };
                rc = poll(pfd, np, c->pidfd >= 0 ? 100 : 10);
                for (size_t i = 0, k = np - nfds; rc > 0 && i < nfds; i++, k++)
                        if (pfd[k].fd >= 0 && (pfd[k].revents & (POLLHUP | POLLERR | POLLNVAL)))
                                hung[i] = pfd[k].fd;
                if (cb && !error && (error = cb(ctx)) < 0) {
                        kill(-c->pid, SIGKILL);
                        kill(c->pid, SIGKILL);
                        kill_at = 1;
                }
                now = pg_now_ns();
                if (!out->interrupted && pg_launch_interrupted()) {
                        out->interrupted = true;
                        kill(-c->pid, SIGTERM);
                        kill_at = now + PG_KILL_GRACE_NS;
                }
                if (deadline && now >= deadline && !out->timed_out) {
                        out->timed_out = true;
                        kill(-c->pid, SIGTERM);
                        kill_at = now + PG_KILL_GRACE_NS;
                }
                if (kill_at && now >= kill_at) {
                        kill(-c->pid, SIGKILL);
                        kill(c->pid, SIGKILL);
                }
        }
        out->wall_ns = pg_now_ns() - c->start_ns;
        out->status = status;
        if (w == c->pid) {
                /* through the spawner, it killed and counted them already */
                bool left = pg_kill_group(c->pid);
                out->outlived = c->via_spawner ? c->outlived : left;
                c->pid = -1;
        } else {
                pg_launch_cancel(c);
        }
        if (c->log_fd >= 0)
                pg_log_cap(c->log_fd);
        pg_child_close(c);
        free(pfd);
        free(hung);
        if (!error && out->interrupted)
                error = pg_error_set(PG_EINTR, "interrupted");
        return error;
}
