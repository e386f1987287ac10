/*
 * launch.c - fork/exec handshake, waiting and timeouts (see launch.h).
 * Invariants: the child never execs unless the parent wrote exactly one byte
 * to the go pipe; every fd the parent creates is O_CLOEXEC; after
 * pg_launch_wait() or pg_launch_cancel() no process of the group is left
 * running.
 */
#include "runner/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

#define PG_KILL_GRACE_NS 500000000ull

static volatile sig_atomic_t pg_got_signal;

static void pg_on_signal(int sig)
{
        pg_got_signal = sig;
}

void pg_launch_install_signal_handlers(void)
{
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = pg_on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
}

bool pg_launch_interrupted(void)
{
        return pg_got_signal != 0;
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

/* Runs in the forked child: only async-signal-safe work until exec, plus
 * setenv, which is safe here because perfgate does not start threads. */
static void pg_child_main(const struct pg_launch_opts *o, int go_rd, int err_wr)
{
        char b;
        ssize_t r;
        int fd, e;

        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        do
                r = read(go_rd, &b, 1);
        while (r < 0 && errno == EINTR);
        if (r != 1)
                _exit(127);
        fd = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
                dup2(fd, STDIN_FILENO);
                close(fd);
        }
        fd = o->log_path ? open(o->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644)
                         : open("/dev/null", O_WRONLY);
        if (fd >= 0) {
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                close(fd);
        }
        if (o->ncpus) {
                cpu_set_t set;
                CPU_ZERO(&set);
                for (size_t i = 0; i < o->ncpus; i++)
                        CPU_SET(o->cpus[i], &set);
                if (sched_setaffinity(0, sizeof(set), &set) < 0)
                        goto fail;
        }
        for (char *const *p = o->env; p && *p; p++)
                putenv(*p);
        if (o->cwd && chdir(o->cwd) < 0)
                goto fail;
        execvp(o->argv[0], o->argv);
fail:
        e = errno;
        (void) !write(err_wr, &e, sizeof(e));
        _exit(127);
}

int pg_launch_prepare(struct pg_child *c, const struct pg_launch_opts *o)
{
        int go[2], err[2];

        c->pid = -1;
        c->go_fd = c->err_fd = c->pidfd = -1;
        c->start_ns = 0;
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
                return pg_error_set(PG_EIO, "cannot fork: %s", strerror(e));
        }
        if (c->pid == 0) {
                close(go[1]);
                close(err[0]);
                pg_child_main(o, go[0], err[1]);
        }
        setpgid(c->pid, c->pid); /* close the race with the child's own setpgid */
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
                while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                c->pid = -1;
        }
        pg_child_close(c);
}

int pg_launch_start(struct pg_child *c, const char *program)
{
        int e = 0;
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
                n = read(c->err_fd, &e, sizeof(e));
        while (n < 0 && errno == EINTR);
        close(c->err_fd);
        c->err_fd = -1;
        if (n == (ssize_t) sizeof(e)) {
                pg_launch_cancel(c);
                return pg_error_set(e == ENOENT ? PG_ENOTFOUND : PG_EMEASURE,
                                    "cannot execute '%s': %s", program, strerror(e));
        }
        return 0;
}

/* Kill the rest of the group and wait (bounded) until it is gone, so
 * inherited counters have folded in every descendant. */
static void pg_kill_group(pid_t pgid)
{
        uint64_t until = pg_now_ns() + 200000000ull;

        if (kill(-pgid, SIGKILL) < 0)
                return;
        while (pg_now_ns() < until && kill(-pgid, 0) == 0) {
                struct timespec ts = { 0, 2000000 };
                nanosleep(&ts, NULL);
        }
}

int pg_launch_wait(struct pg_child *c, uint64_t timeout_ns, const int *fds, size_t nfds,
                   pg_launch_poll_cb cb, void *ctx, struct pg_exit *out)
{
        struct pollfd *pfd = calloc(nfds + 1, sizeof(*pfd));
        uint64_t deadline = timeout_ns ? c->start_ns + timeout_ns : 0, kill_at = 0;
        int error = 0, status = 0;
        pid_t w;

        memset(out, 0, sizeof(*out));
        if (!pfd)
                return pg_error_set(PG_ENOMEM, "out of memory");
        for (;;) {
                size_t np = 0;
                uint64_t now;
                int rc;

                w = wait4(c->pid, &status, WNOHANG, &out->ru);
                if (w == c->pid)
                        break;
                if (w < 0 && errno != EINTR) {
                        error = pg_error_set(PG_ERROR, "wait4 failed: %s", strerror(errno));
                        break;
                }
                if (c->pidfd >= 0)
                        pfd[np++] = (struct pollfd){ .fd = c->pidfd, .events = POLLIN };
                for (size_t i = 0; i < nfds; i++)
                        pfd[np++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
                rc = poll(pfd, np, c->pidfd >= 0 ? 100 : 10);
                (void) rc;
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
                pg_kill_group(c->pid);
                c->pid = -1;
        } else {
                pg_launch_cancel(c);
        }
        pg_child_close(c);
        free(pfd);
        if (!error && out->interrupted)
                error = pg_error_set(PG_EINTR, "interrupted");
        return error;
}
