/*
 * control.c - the control-fd protocol of a run (see control.h).
 * Invariants: perfgate's ends are close-on-exec and never inherited; every
 * command read is answered with exactly one "ack\n" (while the reader is
 * there); region_ns only grows, and only while enabled.
 */
#include "runner/control.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/error.h"
#include "runner/launch.h"

static void pg_close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

void pg_control_close(struct pg_control *c)
{
        pg_close_fd(&c->ctl_rd);
        pg_close_fd(&c->ack_wr);
        pg_close_fd(&c->child_fds[0]);
        pg_close_fd(&c->child_fds[1]);
}

int pg_control_open(struct pg_control *c, bool start_enabled)
{
        int ctl[2], ack[2];

        memset(c, 0, sizeof(*c));
        c->ctl_rd = c->ack_wr = c->child_fds[0] = c->child_fds[1] = -1;
        if (pipe2(ctl, O_CLOEXEC) < 0)
                return pg_error_set(PG_EIO, "cannot create the control pipe: %s%s", strerror(errno),
                                    pg_fd_limit_hint(errno));
        /* a socket, not a pipe: send(MSG_NOSIGNAL) to a benchmark that
         * closed its end fails with EPIPE instead of raising SIGPIPE */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ack) < 0) {
                int e = errno;
                close(ctl[0]);
                close(ctl[1]);
                return pg_error_set(PG_EIO, "cannot create the ack pipe: %s%s", strerror(e),
                                    pg_fd_limit_hint(e));
        }
        c->ctl_rd = ctl[0];
        c->child_fds[0] = ctl[1];
        c->child_fds[1] = ack[0];
        c->ack_wr = ack[1];
        shutdown(ack[0], SHUT_WR); /* the benchmark only reads acks */
        fcntl(c->ctl_rd, F_SETFL, O_NONBLOCK);
        c->start_disabled = !start_enabled;
        return 0;
}

void pg_control_set_targets(struct pg_control *c, const int *fds, size_t n)
{
        c->fds = fds;
        c->nfds = n;
}

void pg_control_start(struct pg_control *c, uint64_t start_ns)
{
        pg_close_fd(&c->child_fds[0]);
        pg_close_fd(&c->child_fds[1]);
        c->enabled = !c->start_disabled;
        c->since_ns = start_ns;
}

static int pg_control_switch(struct pg_control *c, bool on, const char *cmd)
{
        for (size_t i = 0; i < c->nfds; i++) {
                if (c->fds[i] < 0)
                        continue;
                if (ioctl(c->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
                        return pg_error_set(PG_EIO, "cannot %s the events for the command '%s': %s",
                                            on ? "enable" : "disable", cmd, strerror(errno));
        }
        return 0;
}

/* The word @w is @cmd alone or followed by ' ' or '-' and an event name. */
static bool pg_is_cmd(const char *w, const char *cmd)
{
        size_t n = strlen(cmd);
        return strncmp(w, cmd, n) == 0 && (w[n] == '\0' || w[n] == ' ' || w[n] == '-');
}

/* Answer one command; never blocks perfgate (MSG_DONTWAIT: a benchmark
 * that stops reading its acks loses them). */
static void pg_control_ack(struct pg_control *c)
{
        ssize_t n;

        if (c->ack_wr < 0)
                return;
        do
                n = send(c->ack_wr, "ack\n", 4, MSG_NOSIGNAL | MSG_DONTWAIT);
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno == EPIPE)
                pg_close_fd(&c->ack_wr);
}

/* Apply the command @w (NULL: one too long to keep, so unknown). */
static int pg_control_apply(struct pg_control *c, const char *w)
{
        uint64_t now = pg_now_ns();
        int error = 0;

        c->commands++;
        if (!w) {
                c->unknown++;
        } else if (pg_is_cmd(w, "enable")) {
                if (!c->enabled) {
                        error = pg_control_switch(c, true, w);
                        c->enabled = true;
                        c->since_ns = pg_now_ns();
                        c->enables++;
                }
        } else if (pg_is_cmd(w, "disable")) {
                if (c->enabled) {
                        error = pg_control_switch(c, false, w);
                        c->enabled = false;
                        c->region_ns += now - c->since_ns;
                        c->disables++;
                }
        } else if (strcmp(w, "ping") != 0) {
                c->unknown++;
        }
        pg_control_ack(c);
        return error;
}

int pg_control_poll(struct pg_control *c)
{
        char buf[256];
        int error = 0;

        while (c->ctl_rd >= 0) {
                ssize_t n = read(c->ctl_rd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        break; /* EAGAIN: nothing more now */
                if (n == 0) {
                        pg_close_fd(&c->ctl_rd); /* every writer is gone */
                        break;
                }
                for (ssize_t i = 0; i < n; i++) {
                        char ch = buf[i];
                        if (ch == '\n' || ch == '\0') {
                                int e = 0;
                                c->line[c->len] = '\0';
                                if (c->len || c->overlong)
                                        e = pg_control_apply(c, c->overlong ? NULL : c->line);
                                if (e < 0 && !error)
                                        error = e;
                                c->len = 0;
                                c->overlong = false;
                        } else if (c->len + 1 < sizeof(c->line)) {
                                c->line[c->len++] = ch;
                        } else {
                                c->overlong = true;
                        }
                }
        }
        return error;
}

int pg_control_finish(struct pg_control *c, uint64_t end_ns)
{
        int error = pg_control_poll(c);

        c->unended = c->len > 0 || c->overlong;
        c->line[c->len] = '\0';
        if (c->enabled) {
                c->region_ns += end_ns > c->since_ns ? end_ns - c->since_ns : 0;
                c->exited_enabled = c->start_disabled || c->disables > 0;
        } else {
                c->ended_disabled = !c->start_disabled;
        }
        pg_control_close(c);
        return error;
}
