/*
 * testutil.c - sandbox and process helpers for the tests (testutil.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/util/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"

static char pg_sandbox[PATH_MAX];

const char *pg_test_sandbox(void)
{
        const char *tmp = getenv("TMPDIR");
        snprintf(pg_sandbox, sizeof(pg_sandbox), "%s/perfgate-test-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        assert_non_null(mkdtemp(pg_sandbox));
        setenv("HOME", pg_sandbox, 1);
        setenv("TZ", "UTC", 1);
        setenv("LC_ALL", "C", 1);
        setenv("NO_COLOR", "1", 1);
        setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
        assert_int_equal(chdir(pg_sandbox), 0);
        return pg_sandbox;
}

static int pg_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

void pg_test_sandbox_remove(void)
{
        if (!pg_sandbox[0])
                return;
        (void) !chdir("/");
        nftw(pg_sandbox, pg_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        pg_sandbox[0] = '\0';
}

int pg_test_setup_sandbox(void **state)
{
        (void) state;
        pg_test_sandbox();
        return 0;
}

int pg_test_teardown_sandbox(void **state)
{
        (void) state;
        pg_test_sandbox_remove();
        return 0;
}

void pg_run_out_release(struct pg_run_out *o)
{
        pg_buf_release(&o->out);
        pg_buf_release(&o->err);
}

int pg_test_run(struct pg_run_out *o, const char *input, char *const argv[])
{
        int outp[2], errp[2], inp[2];
        pid_t pid;
        int status = 0;
        size_t in_len = input ? strlen(input) : 0, in_off = 0;

        pg_buf_init(&o->out);
        pg_buf_init(&o->err);
        assert_int_equal(pipe2(outp, O_CLOEXEC), 0);
        assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
        assert_int_equal(pipe2(inp, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                dup2(inp[0], 0);
                dup2(outp[1], 1);
                dup2(errp[1], 2);
                execvp(argv[0], argv);
                fprintf(stderr, "cannot exec %s: %s\n", argv[0], strerror(errno));
                _exit(127);
        }
        close(outp[1]);
        close(errp[1]);
        close(inp[0]);
        if (!input) {
                close(inp[1]);
                inp[1] = -1;
        } else {
                fcntl(inp[1], F_SETFL, O_NONBLOCK);
        }
        for (int open_fds = 2; open_fds > 0;) {
                struct pollfd p[3] = { { outp[0], POLLIN, 0 },
                                       { errp[0], POLLIN, 0 },
                                       { inp[1], POLLOUT, 0 } };
                int np = inp[1] >= 0 ? 3 : 2;
                if (poll(p, (nfds_t) np, -1) < 0 && errno != EINTR)
                        break;
                for (int i = 0; i < 2; i++) {
                        char buf[65536];
                        ssize_t n;
                        if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                                continue;
                        n = read(p[i].fd, buf, sizeof(buf));
                        if (n > 0) {
                                pg_buf_add(i == 0 ? &o->out : &o->err, buf, (size_t) n);
                        } else if (n == 0 || errno != EINTR) {
                                close(p[i].fd);
                                if (i == 0)
                                        outp[0] = -1;
                                else
                                        errp[0] = -1;
                                open_fds--;
                        }
                }
                if (np == 3 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
                        ssize_t n = write(inp[1], input + in_off, in_len - in_off);
                        if (n > 0)
                                in_off += (size_t) n;
                        if (n < 0 || in_off >= in_len) {
                                close(inp[1]);
                                inp[1] = -1;
                        }
                }
        }
        if (inp[1] >= 0)
                close(inp[1]);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return o->status;
}

int pg_test_perfgate(struct pg_run_out *o, ...)
{
        char *argv[64];
        int n = 0;
        va_list ap;

        argv[n++] = (char *) pg_test_env("PERFGATE_BIN");
        va_start(ap, o);
        for (char *a; (a = va_arg(ap, char *)) != NULL && n < 63;)
                argv[n++] = a;
        va_end(ap);
        argv[n] = NULL;
        return pg_test_run(o, NULL, argv);
}

const char *pg_test_env(const char *name)
{
        const char *v = getenv(name);
        if (!v || !*v)
                fail_msg("environment variable %s is not set (run the test through ctest)", name);
        return v;
}

const char *pg_test_fixture(const char *name)
{
        static char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", pg_test_env("PG_FIXTURE_DIR"), name);
        return path;
}

size_t pg_test_each_layout(size_t (*check)(const char *path, size_t budget), size_t budget)
{
        char path[PATH_MAX];
        size_t total = 0;
        DIR *d;
        struct dirent *e;

        snprintf(path, sizeof(path), "%s/layouts", pg_test_env("PG_FIXTURE_DIR"));
        d = opendir(path);
        while (d != NULL && (e = readdir(d)) != NULL) {
                if (strncmp(e->d_name, "layout_", 7) != 0)
                        continue;
                snprintf(path, sizeof(path), "%s/layouts/%s", pg_test_env("PG_FIXTURE_DIR"),
                         e->d_name);
                total += check(path, budget);
        }
        if (d != NULL)
                closedir(d);
        return total;
}

char *pg_test_read(const char *path)
{
        struct pg_buf b = PG_BUF_INIT;
        if (pg_read_file(path, &b) != 0)
                fail_msg("cannot read %s", path);
        return pg_buf_detach(&b, NULL);
}

void pg_test_write(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

int pg_test_exists(const char *path)
{
        return access(path, F_OK) == 0;
}

char *pg_test_copy_program(const char *path, const char *dir)
{
        struct pg_buf data = PG_BUF_INIT, dst = PG_BUF_INIT;
        const char *base = strrchr(path, '/');
        size_t off = 0;
        int fd;

        if (pg_read_file(path, &data) != 0)
                fail_msg("cannot read %s", path);
        pg_buf_printf(&dst, "%s/%s", dir, base ? base + 1 : path);
        fd = open(dst.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (fd < 0)
                fail_msg("cannot create %s: %s", dst.ptr, strerror(errno));
        while (off < data.len) {
                ssize_t n = write(fd, data.ptr + off, data.len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        fail_msg("cannot write %s: %s", dst.ptr, strerror(errno));
                off += (size_t) n;
        }
        /* the umask may have cleared bits of 0755 */
        if (fchmod(fd, 0755) != 0 || close(fd) != 0)
                fail_msg("cannot finish %s: %s", dst.ptr, strerror(errno));
        pg_buf_release(&data);
        return pg_buf_detach(&dst, NULL);
}

int pg_test_paranoid(void)
{
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        int v = 2;

        if (f) {
                if (fscanf(f, "%d", &v) != 1)
                        v = 2;
                fclose(f);
        }
        return v;
}

int pg_test_can_be_nobody(void)
{
        return geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0;
}

int pg_test_run_as_nobody(struct pg_run_out *o, char *const argv[])
{
        char *args[64] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups" };
        size_t n = 4;

        for (size_t i = 0; argv[i]; i++) {
                assert_true(n + 1 < sizeof(args) / sizeof(args[0]));
                args[n++] = argv[i];
        }
        args[n] = NULL;
        return pg_test_run(o, NULL, args);
}

void pg_test_profile_from_folded(struct pg_profile *p, const char *text, const char *event)
{
        struct pg_stack *st = NULL;
        size_t n = 0, cap = 0;
        char *copy = pg_xstrdup(text), *save = NULL;

        memset(p, 0, sizeof(*p));
        p->present = true;
        p->event = pg_xstrdup(event);
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *sp = strrchr(line, ' ');

                assert_non_null(sp);
                *sp = '\0';
                if (n == cap) {
                        cap = cap ? 2 * cap : 64;
                        st = pg_xreallocarray(st, cap, sizeof(*st));
                }
                st[n].frames = line;
                st[n].count = strtoull(sp + 1, NULL, 10);
                p->samples += st[n].count;
                n++;
        }
        if (n)
                pg_profile_set_stacks(p, st, n);
        free(st);
        free(copy);
}

void pg_test_profile_free(struct pg_profile *p)
{
        struct pg_result r;

        pg_result_init(&r);
        r.profile = *p;
        pg_result_release(&r);
}

void pg_test_assert_terminal_safe(const char *s, size_t len)
{
        for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char) s[i];
                size_t n;
                if (c == '\n') {
                        i++;
                        continue;
                }
                if (c < 0x20 || c == 0x7f)
                        fail_msg("control byte 0x%02x at offset %zu of: %s", c, i, s);
                n = pg_utf8_seqlen((const unsigned char *) s + i, len - i);
                if (!n)
                        fail_msg("invalid UTF-8 at offset %zu of: %s", i, s);
                i += n;
        }
}

void pg_test_sh(const char *cmd)
{
        if (system(cmd) != 0)
                fail_msg("shell command failed: %s", cmd);
}
