/*
 * interrupt.c - SIGINT/SIGTERM/SIGHUP handling and temporaries to remove
 * (see interrupt.h). Invariant: the handler touches only the atomics below
 * and async-signal-safe system calls; a path is published in a slot only
 * once it is complete (release store), and read with an acquire load.
 */
#include "common/interrupt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PG_TRACK_SLOTS  32
#define PG_RM_MAX_DEPTH 8

static _Atomic(const char *) pg_tracked[PG_TRACK_SLOTS];
static atomic_int pg_hold_depth;
static atomic_int pg_pending;   /* a signal that came during a hold (exit mode) */
static atomic_int pg_flag_sig;  /* a signal that came in flag mode */
static atomic_bool pg_flag;     /* flag mode */
static atomic_int pg_owner_pid; /* the process that installed the handler */

static void pg_say(const char *s)
{
        size_t n = strlen(s);
        while (n) {
                ssize_t w = write(STDERR_FILENO, s, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return;
                s += w;
                n -= (size_t) w;
        }
}

/* Remove what directory @dfd holds (getdents64(2): readdir(3) is not
 * async-signal-safe), @depth levels down at most; closes @dfd. */
static void pg_rm_contents(int dfd, int depth)
{
        char buf[4096];
        long n;

        while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
                for (long off = 0; off < n;) {
                        struct pg_dirent64 {
                                unsigned long long ino;
                                long long off;
                                unsigned short reclen;
                                unsigned char type;
                                char name[];
                        } *d = (struct pg_dirent64 *) (buf + off);
                        off += d->reclen;
                        if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
                                continue;
                        if (unlinkat(dfd, d->name, 0) == 0 || errno != EISDIR || depth <= 0)
                                continue;
                        int sub =
                            openat(dfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub >= 0)
                                pg_rm_contents(sub, depth - 1);
                        unlinkat(dfd, d->name, AT_REMOVEDIR);
                }
        }
        close(dfd);
}

static void pg_remove_tracked(void)
{
        for (int i = PG_TRACK_SLOTS - 1; i >= 0; i--) {
                const char *p = atomic_load_explicit(&pg_tracked[i], memory_order_acquire);
                if (!p)
                        continue;
                if (unlink(p) == 0 || errno != EISDIR)
                        continue;
                int dfd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (dfd >= 0)
                        pg_rm_contents(dfd, PG_RM_MAX_DEPTH);
                rmdir(p);
        }
}

_Noreturn void pg_interrupt_die(const char *msg, int status)
{
        pg_remove_tracked();
        pg_say(msg);
        _exit(status);
}

static const char *pg_sig_line(int sig)
{
        switch (sig) {
        case SIGINT:
                return "perfgate: error: interrupted (SIGINT)\n";
        case SIGTERM:
                return "perfgate: error: interrupted (SIGTERM)\n";
        default:
                return "perfgate: error: interrupted (SIGHUP)\n";
        }
}

static void pg_on_signal(int sig)
{
        int saved = errno;

        if (getpid() != atomic_load(&pg_owner_pid)) {
                /* a forked child before its exec: die of the signal */
                signal(sig, SIG_DFL);
                raise(sig);
                errno = saved;
                return;
        }
        if (atomic_load(&pg_flag)) {
                atomic_store(&pg_flag_sig, sig);
                errno = saved;
                return;
        }
        /* pending first, then the hold: pg_interrupt_release() drops the
         * hold first, then reads pending, so one of the two exits */
        atomic_store(&pg_pending, sig);
        if (atomic_load(&pg_hold_depth) == 0)
                pg_interrupt_die(pg_sig_line(sig), 130);
        errno = saved;
}

void pg_interrupt_install(void)
{
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        struct sigaction sa, old;

        atomic_store(&pg_owner_pid, (int) getpid());
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = pg_on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
                sigaddset(&sa.sa_mask, sigs[i]);
        sa.sa_flags = SA_RESTART;
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
                if (sigs[i] != SIGHUP || sigaction(sigs[i], NULL, &old) != 0 ||
                    old.sa_handler != SIG_IGN)
                        sigaction(sigs[i], &sa, NULL);
        /* past RLIMIT_FSIZE a write fails with EFBIG (reported, temporary
         * removed) instead of SIGXFSZ killing perfgate mid-file */
        signal(SIGXFSZ, SIG_IGN);
}

void pg_interrupt_flag_mode(void)
{
        if (atomic_load(&pg_owner_pid) == 0)
                pg_interrupt_install();
        atomic_store(&pg_flag, true);
        /* a signal held back until now is not lost */
        if (atomic_load(&pg_pending))
                atomic_store(&pg_flag_sig, atomic_load(&pg_pending));
}

bool pg_interrupted(void)
{
        return atomic_load(&pg_flag_sig) != 0;
}

bool pg_interrupt_track(const char *path)
{
        for (int i = 0; i < PG_TRACK_SLOTS; i++) {
                const char *none = NULL;
                if (atomic_compare_exchange_strong_explicit(
                        &pg_tracked[i], &none, path, memory_order_release, memory_order_relaxed))
                        return true;
        }
        return false;
}

void pg_interrupt_untrack(const char *path)
{
        for (int i = 0; i < PG_TRACK_SLOTS; i++) {
                const char *p = path;
                if (atomic_compare_exchange_strong(&pg_tracked[i], &p, NULL))
                        return;
        }
}

void pg_interrupt_hold(void)
{
        atomic_fetch_add(&pg_hold_depth, 1);
}

void pg_interrupt_release(void)
{
        int sig;

        if (atomic_fetch_sub(&pg_hold_depth, 1) != 1)
                return;
        sig = atomic_load(&pg_pending);
        if (sig && !atomic_load(&pg_flag))
                pg_interrupt_die(pg_sig_line(sig), 130);
}
