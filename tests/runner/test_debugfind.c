/*
 * test_debugfind.c - runner/debugfind.h against libdwfl's own search,
 * dwfl_standard_find_debuginfo() (DEBUGINFOD_URLS unset: its debuginfod
 * client finds nothing). Each file is loaded twice through libdwfl (symbol
 * table, then DWARF, which also asks for a DWZ alternate file), once with
 * each callback, and every call libdwfl makes to the callback, with what it
 * returned, must be the same. The files: separate debug files made here
 * with objcopy --only-keep-debug / --add-gnu-debuglink (and dwz) beside the
 * program, in .debug/, under a debuginfo path by build-id, by the program's
 * directory and by its tails, behind a symlink, with a wrong build-id, with
 * a right and a wrong CRC (no build-id) and '-' / '+' path prefixes, the
 * program itself by another name; then the test fixtures (gcc, g++, clang,
 * lld), the benchmarks, Go's toolchain (built by go), a rustc build when
 * Debian's rustc is installed, and every ELF file in
 * /usr/lib/x86_64-linux-gnu. libdwfl's search runs in a child process;
 * pg_debugfind() never maps libdebuginfod into this one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "runner/debugfind.h"
#include "runner/libdw.h"
#include "tests/util/testutil.h"

static const char *sbx;
static struct pg_buf calls = PG_BUF_INIT; /* the callback calls of one load */
static char *made_str[256];               /* what S() made, freed at teardown */
static size_t nmade_str;

/* A formatted string, kept until teardown. */
static const char *S(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *S(const char *fmt, ...)
{
        struct pg_buf b = PG_BUF_INIT;
        va_list ap;

        va_start(ap, fmt);
        pg_buf_vprintf(&b, fmt, ap);
        va_end(ap);
        if (nmade_str == sizeof(made_str) / sizeof(made_str[0]))
                fail_msg("too many strings");
        made_str[nmade_str] = pg_buf_detach(&b, NULL);
        return made_str[nmade_str++];
}

/* Record one call and its answer in @calls. */
static void log_call(const char *file_name, const char *link, GElf_Word crc, int fd,
                     const char *found)
{
        pg_buf_printf(&calls, "%s | %s | %08x -> %s\n", file_name ? file_name : "(null)",
                      link ? link : "(null)", (unsigned) crc, fd >= 0 ? found : "-");
}

static int std_cb(Dwfl_Module *mod, void **ud, const char *modname, Dwarf_Addr base,
                  const char *file_name, const char *link, GElf_Word crc, char **out)
{
        int fd = dwfl_standard_find_debuginfo(mod, ud, modname, base, file_name, link, crc, out);

        log_call(file_name, link, crc, fd, *out);
        return fd;
}

static int our_cb(Dwfl_Module *mod, void **ud, const char *modname, Dwarf_Addr base,
                  const char *file_name, const char *link, GElf_Word crc, char **out)
{
        int fd = pg_debugfind_callback(mod, ud, modname, base, file_name, link, crc, out);

        log_call(file_name, link, crc, fd, *out);
        return fd;
}

/*
 * Load @file with debuginfo path @path (NULL: libdwfl's default) and the
 * callback @ours or libdwfl's; the calls made go into @log. False when
 * libdwfl does not take the file (not ELF).
 */
static bool load(const char *file, const char *path, bool ours, struct pg_buf *log)
{
        char *dpath = path ? pg_xstrdup(path) : NULL;
        Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
                              .find_debuginfo = ours ? our_cb : std_cb,
                              .section_address = dwfl_offline_section_address,
                              .debuginfo_path = &dpath };
        Dwfl *d = dwfl_begin(&cb);
        Dwfl_Module *m;
        Dwarf_Addr bias;
        void **ud;

        assert_non_null(d);
        pg_buf_reset(&calls);
        dwfl_report_begin(d);
        m = dwfl_report_elf(d, "m", file, -1, 0, true);
        dwfl_report_end(d, NULL, NULL);
        if (m != NULL) {
                dwfl_module_info(m, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
                *ud = dpath;
                (void) dwfl_module_getsymtab(m);
                (void) dwfl_module_getdwarf(m, &bias);
        }
        dwfl_end(d);
        free(dpath);
        pg_buf_reset(log);
        pg_buf_add(log, calls.ptr, calls.len);
        return m != NULL;
}

/* load() with libdwfl's search of each of the @n @files, in one child
 * process (its debuginfod client stays out of this one, and out of
 * LeakSanitizer's exit-time scan): the calls into @logs[i], whether the file
 * is ELF into @elf[i]. */
static void load_std(char *const *files, size_t n, const char *path, struct pg_buf *logs, bool *elf)
{
        struct pg_buf all = PG_BUF_INIT;
        int fds[2], st;
        char buf[1 << 16];
        const char *p;
        ssize_t k;
        pid_t pid;

        assert_int_equal(pipe(fds), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[0]);
                for (size_t i = 0; i < n; i++) {
                        pg_buf_putc(&all, load(files[i], path, false, &logs[i]) ? '1' : '0');
                        pg_buf_add(&all, logs[i].ptr, logs[i].len + 1); /* with its NUL */
                }
                for (size_t off = 0; off < all.len; off += (size_t) k)
                        if ((k = write(fds[1], all.ptr + off, all.len - off)) <= 0)
                                _exit(3);
                _exit(0);
        }
        close(fds[1]);
        while ((k = read(fds[0], buf, sizeof(buf))) > 0)
                pg_buf_add(&all, buf, (size_t) k);
        close(fds[0]);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                fail_msg("libdwfl's search failed (wait status %d)", st);
        p = all.ptr;
        for (size_t i = 0; i < n; i++) {
                if (p >= all.ptr + all.len)
                        fail_msg("libdwfl's search answered for %zu of %zu files", i, n);
                elf[i] = *p++ == '1';
                pg_buf_reset(&logs[i]);
                pg_buf_puts(&logs[i], p);
                p += strlen(p) + 1;
        }
        pg_buf_release(&all);
}

/* Both searches on the @n @files: the same calls and answers. Returns how
 * many files are ELF; *@found counts those with a debug file, and @first
 * (when not NULL) is what was found for files[0]'s own debug file (the
 * first call's answer; "-": nothing). */
static size_t same_each(char *const *files, size_t n, const char *path, size_t *found, char *first,
                        size_t size)
{
        struct pg_buf *a = pg_xcalloc(n ? n : 1, sizeof(*a)), b = PG_BUF_INIT;
        bool *elf = pg_xcalloc(n ? n : 1, sizeof(*elf));
        size_t nelf = 0;

        for (size_t i = 0; i < n; i++)
                pg_buf_init(&a[i]);
        load_std(files, n, path, a, elf);
        for (size_t i = 0; i < n; i++) {
                const char *arrow = strstr(a[i].ptr, "-> ");

                assert_true(load(files[i], path, true, &b) == elf[i]);
                if (strcmp(a[i].ptr, b.ptr) != 0)
                        fail_msg("%s (path %s):\nlibdwfl:\n%sperfgate:\n%s", files[i],
                                 path ? path : "default", a[i].ptr, b.ptr);
                nelf += elf[i];
                if (elf[i] && arrow != NULL && strncmp(arrow, "-> -\n", 5) != 0)
                        (*found)++;
                if (i == 0 && first != NULL)
                        snprintf(first, size, "%.*s", arrow ? (int) strcspn(arrow + 3, "\n") : 1,
                                 arrow ? arrow + 3 : "-");
                pg_buf_release(&a[i]);
        }
        pg_buf_release(&b);
        free(a);
        free(elf);
        return nelf;
}

/* Both searches on @file; returns what they found for the module's debug
 * file in @found ("-": nothing), or false when the file is not ELF. */
static bool same(const char *file, const char *path, char *found, size_t size)
{
        char *files[] = { (char *) file };
        size_t nfound = 0;

        return same_each(files, 1, path, &nfound, found, size) == 1;
}

/* The made cases: directory, debuginfo path, the debug file libdwfl must
 * take (relative to the sandbox; "-": none). */
struct made {
        const char *dir, *path, *want;
};

static const char *const pg_prog =
    "#include <stdio.h>\n"
    "struct point { long x, y; struct point *next; const char *label; };\n"
    "struct shape { struct point *pts; int n; double area; char name[32]; };\n"
    "static long walk(struct shape *s) { long t = 0;\n"
    "  for (struct point *p = s->pts; p; p = p->next) t += p->x * p->y; return t; }\n"
    "int main(int argc, char **argv) {\n"
    "  struct point q = { argc, 2, NULL, \"q\" };\n"
    "  struct shape s = { &q, 1, 0.0, \"s\" };\n"
    "#ifdef OTHER\n  s.area = 2.0;\n#endif\n"
    "  printf(\"%ld %s\\n\", walk(&s), argv[0]);\n  return 0;\n}\n";

/* sh functions: split SRC DIR NAME DEBUG [DEBUGSRC]: DIR/NAME is SRC without
 * symbols and debug info, linked (name and CRC) to DIR/DEBUG, which holds
 * DEBUGSRC's debug info (default SRC's: a wrong CRC or build-id when not) */
static const char *const pg_split =
    "set -e; "
    "split() { mkdir -p \"$2\" \"$(dirname \"$2/$4\")\"; "
    "objcopy --only-keep-debug \"$1\" \"$2/$4\"; "
    "objcopy --strip-all --add-gnu-debuglink=\"$2/$4\" \"$1\" \"$2/$3\"; "
    "if [ -n \"${5:-}\" ]; then objcopy --only-keep-debug \"$5\" \"$2/$4\"; fi; }; ";

static int setup(void **state)
{
        const char *cmd;
        char id[128] = "";
        FILE *p;

        (void) state;
        assert_int_equal(pg_libdw_init(), 0);
        sbx = S("%s", pg_test_sandbox());
        pg_test_write("p.c", pg_prog);
        pg_test_sh("gcc -g -O1 -o a p.c && gcc -g -O1 -DOTHER -o b p.c && "
                   "gcc -g -O1 -Wl,--build-id=none -o n p.c && "
                   "gcc -g -O1 -Wl,--build-id=none -DOTHER -o o p.c");
        p = popen("readelf -n a | awk '/Build ID/ { print $3 }'", "r");
        if (p == NULL || fgets(id, sizeof(id), p) == NULL || strlen(id) < 10)
                fail_msg("no build-id in the gcc build");
        pclose(p);
        id[strcspn(id, "\n")] = '\0';
        cmd = S("%s"
                "split a same a a.debug; "
                "split a dotdebug a .debug/a.debug; "
                "split a byid a gone.debug; mkdir -p T/.build-id/%.2s; "
                "mv byid/gone.debug T/.build-id/%.2s/%s.debug; "
                "split a bypath a a.debug; mkdir -p \"P%s/bypath\"; "
                "mv bypath/a.debug \"P%s/bypath/\"; "
                "split a tail a a.debug; mkdir -p Q/tail; mv tail/a.debug Q/tail/; "
                "split a alone a a.debug; mkdir -p R; mv alone/a.debug R/; "
                "split a wrongid a a.debug b; "
                "split n crc n n.debug; "
                "split n badcrc n n.debug o; "
                "split n badcrcdot n .debug/n.debug o; "
                "mkdir -p nolink/.debug; objcopy --strip-all a nolink/a; "
                "objcopy --only-keep-debug a nolink/.debug/a; "
                "split a self a a.debug; rm self/a.debug; ln self/a self/a.debug; "
                "split a real a a.debug; mkdir -p symlink; ln -s ../real/a symlink/a; "
                "mkdir -p nothing; objcopy --strip-all a nothing/a",
                pg_split, id, id, id + 2, sbx, sbx);
        pg_test_sh(cmd);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        pg_buf_release(&calls);
        for (size_t i = 0; i < nmade_str; i++)
                free(made_str[i]);
        pg_test_sandbox_remove();
        return 0;
}

/* Whether this process maps @lib (a substring of a /proc/self/maps line). */
static bool mapped(const char *lib)
{
        char *maps = pg_test_read("/proc/self/maps");
        bool yes = maps != NULL && strstr(maps, lib) != NULL;

        free(maps);
        return yes;
}

/* Nothing found for a stripped program and a system library without a
 * debug file, and no debuginfod client loaded for them. */
static void test_no_debuginfod(void **state)
{
        struct pg_buf log = PG_BUF_INIT;
        const char *path;

        (void) state;
        assert_false(mapped("libdebuginfod"));
        path = S("%s/nothing/a", sbx);
        assert_true(load(path, NULL, true, &log));
        assert_non_null(strstr(log.ptr, "-> -\n"));
        assert_true(load("/lib/x86_64-linux-gnu/libz.so.1", ":.debug:/usr/lib/debug", true, &log));
        assert_false(mapped("libdebuginfod"));
        pg_buf_release(&log);
}

static void test_made(void **state)
{
        const char *dbgpath[3], *file, *want;
        char found[4096];
        struct made cases[] = {
                { "same", NULL, "same/a.debug" },
                { "dotdebug", NULL, "dotdebug/.debug/a.debug" },
                { "byid", NULL, "-" },
                { "bypath", NULL, "-" },
                { "tail", ":.debug:Q/", "-" }, /* relative: a subdirectory */
                { "wrongid", NULL, "-" },
                { "crc", NULL, "crc/n.debug" },
                { "badcrc", NULL, "-" },
                { "badcrc", "-:.debug:/usr/lib/debug", "badcrc/n.debug" },
                { "badcrc", ":-.debug:-", "badcrc/n.debug" },
                { "badcrcdot", ":-.debug", "badcrcdot/.debug/n.debug" },
                { "badcrcdot", "-:+.debug", "-" },
                { "nolink", NULL, "nolink/.debug/a" },
                { "self", NULL, "-" },
                { "symlink", NULL, "real/a.debug" },
                { "nothing", NULL, "-" },
        };

        (void) state;
        dbgpath[0] = S(":.debug:%s/T", sbx);
        dbgpath[1] = S(":.debug:%s/P", sbx);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                file = S("%s/%s/a", sbx, cases[i].dir);
                if (access(file, F_OK) != 0)
                        file = S("%s/%s/n", sbx, cases[i].dir);
                assert_true(same(file, cases[i].path, found, sizeof(found)));
                if (strcmp(cases[i].want, "-") == 0)
                        want = S("-");
                else
                        want = S("%s/%s", sbx, cases[i].want);
                if (strcmp(found, want) != 0)
                        fail_msg("%s (path %s): found %s, want %s", cases[i].dir,
                                 cases[i].path ? cases[i].path : "default", found, want);
        }
        /* by build-id the name is the file's real path; under P, the
         * program's whole directory */
        file = S("%s/byid/a", sbx);
        assert_true(same(file, dbgpath[0], found, sizeof(found)));
        assert_non_null(strstr(found, "/T/.build-id/"));
        file = S("%s/bypath/a", sbx);
        assert_true(same(file, dbgpath[1], found, sizeof(found)));
        want = S("%s/P%s/bypath/a.debug", sbx, sbx);
        assert_string_equal(found, want);
        /* DIR + the directory's tails, then DIR alone */
        dbgpath[2] = S(":.debug:%s/Q", sbx);
        file = S("%s/tail/a", sbx);
        assert_true(same(file, dbgpath[2], found, sizeof(found)));
        want = S("%s/Q/tail/a.debug", sbx);
        assert_string_equal(found, want);
        dbgpath[2] = S("%s/R:.debug", sbx);
        file = S("%s/alone/a", sbx);
        assert_true(same(file, dbgpath[2], found, sizeof(found)));
        want = S("%s/R/a.debug", sbx);
        assert_string_equal(found, want);
        /* a relative file name: the current directory */
        file = S("%s/same", sbx);
        assert_int_equal(chdir(file), 0);
        assert_true(same("a", NULL, found, sizeof(found)));
        assert_string_equal(found, "a.debug");
        assert_int_equal(chdir(sbx), 0);
}

/* Both searches agree on @file, and ours found the DWZ file: @want is in
 * its answer to libdwfl's call for it. */
static void assert_dwz(const char *file, const char *path, const char *want)
{
        struct pg_buf log = PG_BUF_INIT;
        char found[4096];

        assert_true(same(file, path, found, sizeof(found)));
        assert_true(load(file, path, true, &log));
        if (strstr(log.ptr, want) == NULL)
                fail_msg("%s: no DWZ file %s:\n%s", file, want, log.ptr);
        pg_buf_release(&log);
}

/* DWZ: the debug files of two builds share a multifile, named in their
 * .gnu_debugaltlink; libdwfl asks for it once the DWARF is open. */
static void test_dwz(void **state)
{
        (void) state;
        if (system("command -v dwz >/dev/null") != 0) {
                print_message("SKIP: dwz not installed (apt-get install dwz)\n");
                skip();
        }
        pg_test_sh(
            "mkdir -p dwz alt && objcopy --only-keep-debug a dwz/a.debug && "
            "objcopy --only-keep-debug b dwz/b.debug && "
            "(cd dwz && dwz -m common.debug -M common.debug a.debug b.debug) && "
            "objcopy --strip-all --add-gnu-debuglink=dwz/a.debug a dwz/a && "
            "objcopy --only-keep-debug a alt/a.debug && objcopy --only-keep-debug b "
            "alt/b.debug && (cd alt && dwz -m m.debug -M /nowhere/x/m.debug a.debug b.debug) "
            "&& mkdir -p alt/.dwz && mv alt/m.debug alt/.dwz/ && "
            "objcopy --strip-all --add-gnu-debuglink=alt/a.debug a alt/a");
        assert_dwz(S("%s/dwz/a", sbx), NULL,
                   S("| common.debug | 00000000 -> %s/dwz/common.debug\n", sbx));
        /* an absolute name: its last part in the .dwz subdirectory */
        assert_dwz(S("%s/alt/a", sbx), NULL, S("-> %s/alt/.dwz/m.debug\n", sbx));
        /* and by the multifile's build-id under the path (its real path) */
        pg_test_sh(
            "set -e; id=$(readelf -n alt/.dwz/m.debug | awk '/Build ID/ { print $3 }'); "
            "mkdir -p D/.build-id/$(echo $id | cut -c1-2); "
            "mv alt/.dwz/m.debug D/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug");
        assert_dwz(S("%s/alt/a", sbx), S(":.debug:%s/D", sbx), "/D/.build-id/");
}

/* Every file matching @pattern: same_each(). */
static size_t same_all(const char *pattern, const char *path, size_t *found)
{
        glob_t g;
        size_t n;

        if (glob(pattern, 0, NULL, &g) != 0)
                return 0;
        n = same_each(g.gl_pathv, g.gl_pathc, path, found, NULL, 0);
        globfree(&g);
        return n;
}

static void test_real_files(void **state)
{
        const char *pattern;
        size_t n, found = 0;
        const char *perfgate_path = ":.debug:/usr/lib/debug";

        (void) state;
        pattern = S("%s/*", pg_test_env("PG_FIXTURE_DIR"));
        n = same_all(pattern, perfgate_path, &found);
        assert_true(n >= 20); /* gcc, g++, clang and lld fixtures */
        pattern = S("%s/*", pg_test_fixture("debugroot"));
        n += same_all(pattern, NULL, &found);
        pattern = S("%s/bench/bin/*", pg_test_env("PG_SOURCE_DIR"));
        n += same_all(pattern, perfgate_path, &found);
        if (access("/usr/lib/go/bin/go", X_OK) == 0) {
                n += same_all("/usr/lib/go/bin/*", perfgate_path, &found);
                n += same_all("/usr/lib/go/pkg/tool/*/*", perfgate_path, &found);
        } else {
                print_message("note: Go's toolchain not installed, its files not compared\n");
        }
        if (access("/usr/bin/rustc", X_OK) == 0) {
                pg_test_write("r.rs",
                              "fn main() { println!(\"{}\", std::env::args().count()); }\n");
                pg_test_sh("/usr/bin/rustc -g -o r r.rs && objcopy --only-keep-debug r r.debug && "
                           "objcopy --strip-all --add-gnu-debuglink=r.debug r rs && mv rs r");
                n += same_all("r", NULL, &found);
        } else {
                print_message("note: Debian's rustc not installed, no Rust build compared\n");
        }
        n += same_all("/usr/lib/x86_64-linux-gnu/*.so*", perfgate_path, &found);
        n += same_all("/usr/lib/x86_64-linux-gnu/*.so*", NULL, &found);
        print_message("%zu ELF files compared, %zu with a debug file found\n", n, found);
        assert_true(n > 100);
        if (access("/usr/lib/debug/.build-id", F_OK) == 0)
                assert_true(found > 0); /* libc6-dbg */
        assert_false(mapped("libdebuginfod"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_debuginfod),
                cmocka_unit_test(test_made),
                cmocka_unit_test(test_dwz),
                cmocka_unit_test(test_real_files),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
