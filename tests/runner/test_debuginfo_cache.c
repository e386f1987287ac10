/*
 * test_debuginfo_cache.c - runner/debugcache.h on a real separate debug
 * file with zlib-compressed sections (objcopy --only-keep-debug
 * --compress-debug-sections=zlib of a gcc-built fixture, found by build-id):
 * the first load reads the debug file and stores an inflated copy, the next
 * loads read the copy, and every load gives the same symbols and DWARF
 * scopes as libdwfl's own lookup. A copy that is garbage, of another
 * build-id, or a symlink is not used; PERFGATE_DEBUGINFO_CACHE=0 and a
 * cache directory others can write turn the cache off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/debugcache.h"
#include "runner/libdw.h"
#include "tests/util/testutil.h"

static char *debug_path;
static char bin[4096], cachefile[4096], origdebug[4096];

/* Load the stripped fixture; *@debugfile: the debug file libdwfl used.
 * Returns a hash of every function's name and the DWARF scopes at each of
 * its addresses. */
static unsigned long load(bool cache, char *debugfile, size_t size)
{
        Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
                              .find_debuginfo = cache ? pg_debugcache_find_debuginfo
                                                      : dwfl_standard_find_debuginfo,
                              .section_address = dwfl_offline_section_address,
                              .debuginfo_path = &debug_path };
        Dwfl *d = dwfl_begin(&cb);
        Dwfl_Module *m;
        const char *df = NULL;
        unsigned long h = 5381;
        int n, nscopes = 0;
        void **ud;

        assert_non_null(d);
        dwfl_report_begin(d);
        m = dwfl_report_elf(d, "fixture", bin, -1, 0, true);
        dwfl_report_end(d, NULL, NULL);
        assert_non_null(m);
        /* the search path of pg_debugfind_callback(), as the symbolizer sets it */
        dwfl_module_info(m, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
        *ud = debug_path;
        n = dwfl_module_getsymtab(m);
        for (int i = 1; i < n; i++) {
                GElf_Sym s;
                GElf_Addr a;
                const char *nm = dwfl_module_getsym_info(m, i, &s, &a, NULL, NULL, NULL);

                if (nm == NULL || GELF_ST_TYPE(s.st_info) != STT_FUNC)
                        continue;
                for (const char *p = nm; *p; p++)
                        h = h * 33 + (unsigned char) *p;
                for (GElf_Addr x = a; x < a + s.st_size; x++) {
                        Dwarf_Addr bias;
                        Dwarf_Die *cu = dwfl_module_addrdie(m, x, &bias), *sc = NULL;
                        int k = cu ? dwarf_getscopes(cu, x - bias, &sc) : 0;

                        for (int j = 0; j < k; j++) {
                                const char *dn = dwarf_diename(&sc[j]);

                                for (const char *p = dn ? dn : "?"; *p; p++)
                                        h = h * 33 + (unsigned char) *p;
                                h = h * 33 + (unsigned) dwarf_tag(&sc[j]);
                                nscopes++;
                        }
                        free(sc);
                }
        }
        assert_true(nscopes > 10); /* the DWARF was read */
        if (cache)
                pg_debugcache_save(m);
        dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, &df);
        assert_non_null(df);
        snprintf(debugfile, size, "%s", df);
        dwfl_end(d);
        return h;
}

static int setup(void **state)
{
        const char *dir = pg_test_sandbox();
        char cmd[16384], id[128] = "";
        FILE *p;

        (void) state;
        snprintf(bin, sizeof(bin), "%s/fixture", dir);
        snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID/ { print $3 }'",
                 pg_test_fixture("sample_callpath"));
        p = popen(cmd, "r");
        if (p == NULL || fgets(id, sizeof(id), p) == NULL || strlen(id) < 10)
                fail_msg("no build-id in the fixture");
        pclose(p);
        id[strcspn(id, "\n")] = '\0';
        snprintf(origdebug, sizeof(origdebug), "%s/debug/.build-id/%.2s/%s.debug", dir, id, id + 2);
        snprintf(cmd, sizeof(cmd),
                 "mkdir -p \"$(dirname '%s')\" && "
                 "objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s' && "
                 "objcopy --strip-debug '%s' '%s'",
                 origdebug, pg_test_fixture("sample_callpath"), origdebug,
                 pg_test_fixture("sample_callpath"), bin);
        if (system(cmd) != 0)
                fail_msg("objcopy could not split the fixture: %s", cmd);
        snprintf(cmd, sizeof(cmd), "%s/debug", dir);
        debug_path = strdup(cmd);
        snprintf(cachefile, sizeof(cachefile), "%s/xdg/perfgate/debuginfo/%s.debug", dir, id);
        snprintf(cmd, sizeof(cmd), "%s/xdg", dir);
        setenv("XDG_CACHE_HOME", cmd, 1);
        unsetenv("PERFGATE_DEBUGINFO_CACHE");
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        free(debug_path);
        pg_test_sandbox_remove();
        return 0;
}

static void test_cache(void **state)
{
        char df[4096], cmd[8192];
        unsigned long want, got;
        struct stat st;

        (void) state;
        want = load(false, df, sizeof(df));
        assert_string_equal(df, origdebug);
        /* first load: the debug file, then the inflated copy is stored */
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_string_equal(df, origdebug);
        assert_int_equal(stat(cachefile, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        /* next loads: the copy, no compressed section left in it */
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_string_equal(df, cachefile);
        snprintf(cmd, sizeof(cmd), "readelf -SW '%s' 2>/dev/null | grep '^ *\\[' | grep -q ' C '",
                 cachefile);
        assert_int_not_equal(system(cmd), 0);
        /* garbage, then another file's build-id: removed, not used */
        pg_test_write(cachefile, "not an ELF file\n");
        got = load(true, df, sizeof(df));
        assert_int_equal(got, want);
        assert_string_equal(df, origdebug);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_string_equal(df, cachefile); /* stored again */
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", pg_test_env("PERFGATE_BIN"), cachefile);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_string_equal(df, origdebug);
        /* a symlink (to a valid copy) is not followed */
        snprintf(cmd, sizeof(cmd), "%s.real", cachefile);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_int_equal(rename(cachefile, cmd), 0);
        assert_int_equal(symlink(cmd, cachefile), 0);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_string_not_equal(df, cachefile);
        assert_int_equal(unlink(cachefile), 0);
        /* off: by the environment, or when others can write the directory */
        setenv("PERFGATE_DEBUGINFO_CACHE", "0", 1);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_string_equal(df, origdebug);
        assert_int_not_equal(access(cachefile, F_OK), 0);
        unsetenv("PERFGATE_DEBUGINFO_CACHE");
        snprintf(cmd, sizeof(cmd), "%s", cachefile);
        *strrchr(cmd, '/') = '\0';
        assert_int_equal(chmod(cmd, 0777), 0);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_int_not_equal(access(cachefile, F_OK), 0);
        assert_int_equal(chmod(cmd, 0700), 0);
        assert_int_equal(load(true, df, sizeof(df)), want);
        assert_int_equal(access(cachefile, F_OK), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_cache) };

        if (pg_libdw_init() < 0) /* the cache calls libdw through its pointers */
                return 1;
        return cmocka_run_group_tests(tests, setup, teardown);
}
