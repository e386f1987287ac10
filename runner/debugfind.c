/*
 * debugfind.c - see debugfind.h. The order of the look-ups, the names tried
 * and the checks follow libdwfl/find-debuginfo.c of elfutils 0.188; its
 * internal state is read through public calls instead: whether the module
 * has its debug file already (then the look-up is for the DWZ alternate
 * file) from dwfl_module_info()'s dwbias, the build-ids from
 * dwfl_module_build_id() and dwelf_dwarf_gnu_debugaltlink().
 */
#include "runner/debugfind.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/interrupt.h"
#include "runner/libdw.h"

/* libdwfl's path when Dwfl_Callbacks.debuginfo_path is NULL (libdwfl.h) */
#define PG_DEFAULT_DEBUGINFO_PATH ":.debug:/usr/lib/debug"

/* What one search looks for. */
struct pg_debug_want {
        bool alt;            /* the DWZ alternate file, not the module's debug file */
        const void *id;      /* the build-id a candidate must have; NULL: none */
        int id_len;          /* its length in bytes */
        struct stat main_st; /* the module's file: not a candidate (zero: unknown) */
        GElf_Word crc;       /* .gnu_debuglink's CRC-32; 0: none to check */
};

/* The part of @path after its last '/' (GNU basename(3)). */
static const char *pg_tail(const char *path)
{
        const char *s = strrchr(path, '/');

        return s ? s + 1 : path;
}

/* The CRC-32 of all of @fd (ISO-HDLC, zlib's crc32(), as .gnu_debuglink
 * holds it: the GDB manual, "Debugging Information in Separate Files").
 * Returns 0 or -1. */
static int pg_crc32_fd(int fd, uint32_t *out)
{
        uint32_t table[256], crc = 0xffffffffu;
        unsigned char buf[1 << 16];
        off_t off = 0;
        ssize_t n;

        for (uint32_t i = 0; i < 256; i++) {
                uint32_t c = i;

                for (int k = 0; k < 8; k++)
                        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
                table[i] = c;
        }
        while ((n = pread(fd, buf, sizeof(buf), off)) != 0) {
                if (pg_interrupted())
                        return -1; /* SIGINT/SIGTERM during a long file: stop */
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -1;
                for (ssize_t i = 0; i < n; i++)
                        crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
                off += n;
        }
        *out = crc ^ 0xffffffffu;
        return 0;
}

/* Whether @fd begins with the ELF magic number (elf(5): EI_MAG0..3). */
static bool pg_elf_magic(int fd)
{
        unsigned char m[4];

        return pread(fd, m, sizeof(m), 0) == (ssize_t) sizeof(m) && memcmp(m, ELFMAG, SELFMAG) == 0;
}

/* Open [DIR/][SUB/]NAME unless it is the module's own file. Returns the
 * descriptor with *@fname its malloc'd name, or -1 (errno: why). */
static int pg_try_open(const struct pg_debug_want *w, const char *dir, const char *sub,
                       const char *name, char **fname)
{
        char *f;
        struct stat st;
        int fd;

        if (dir == NULL && sub == NULL)
                f = pg_xstrdup(name);
        else if (sub == NULL)
                f = pg_xasprintf("%s/%s", dir, name);
        else if (dir == NULL)
                f = pg_xasprintf("%s/%s", sub, name);
        else
                f = pg_xasprintf("%s/%s/%s", dir, sub, name);
        /* The name comes from the benchmark's .gnu_debuglink or
         * .gnu_debugaltlink, which a pull request controls: O_NONBLOCK so that
         * a FIFO does not block the open, and only a regular file that starts
         * as an ELF file is read further (a FIFO, /dev/zero or a large file of
         * zeros would otherwise hang the run after its benchmark, as perf
         * avoids by skipping what is not a regular file). */
        do
                fd = open(f, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
                free(f);
                return -1;
        }
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !pg_elf_magic(fd)) {
                free(f);
                close(fd);
                errno = ENOENT;
                return -1;
        }
        if (st.st_ino == w->main_st.st_ino && st.st_dev == w->main_st.st_dev) {
                /* the module's file by another name */
                free(f);
                close(fd);
                errno = ENOENT;
                return -1;
        }
        *fname = f;
        return fd;
}

/* Whether the candidate @fd is the file wanted: its build-id when there is
 * one to match, else the CRC when @check. */
static bool pg_debug_valid(const struct pg_debug_want *w, int fd, bool check)
{
        const void *id = NULL;
        bool ok;
        uint32_t crc;
        Elf *e;

        if (w->alt && w->id == NULL)
                return false;
        if (w->id != NULL) {
                e = dwelf_elf_begin(fd);
                ok = e != NULL && dwelf_elf_gnu_build_id(e, &id) == (ssize_t) w->id_len &&
                     memcmp(id, w->id, (size_t) w->id_len) == 0;
                if (e != NULL)
                        elf_end(e);
                return ok;
        }
        return !check || (pg_crc32_fd(fd, &crc) == 0 && crc == w->crc);
}

/* Step 2 of pg_debugfind() for @file_name (libdwfl's find_debuginfo_in_path). */
static int pg_find_in_path(const struct pg_debug_want *w, const char *path_in,
                           const char *file_name, const char *debuglink, char **out)
{
        bool cancheck = w->crc != 0, made_up = debuglink == NULL, defcheck = true;
        const char *base = file_name ? pg_tail(file_name) : NULL;
        char *localname = NULL, *localpath, *path, *dirname = NULL, *p;
        int fd = -1, err = 0;

        if (made_up) {
                /* no .gnu_debuglink: BASENAME.debug (an alternate file has a name) */
                if (base == NULL || w->alt) {
                        errno = 0;
                        return -1;
                }
                localname = pg_xasprintf("%s.debug", base);
                debuglink = localname;
                cancheck = false;
        }
        localpath = pg_xstrdup(path_in ? path_in : PG_DEFAULT_DEBUGINFO_PATH);
        path = localpath;
        /* a leading '-' or '+' of the whole path: whether to check CRCs */
        if (path[0] == '-' || path[0] == '+')
                defcheck = *path++ == '+';
        if (base != file_name)
                dirname = pg_xstrndup(file_name, (size_t) (base - 1 - file_name));
        while ((p = strsep(&path, ":")) != NULL) {
                bool check = defcheck, try_base;
                const char *dir, *sub, *file;
                char *fname = NULL;

                /* a leading '-' or '+' of an entry: the same for this entry */
                if (*p == '+' || *p == '-')
                        check = *p++ == '+';
                check = check && cancheck;
                if (p[0] == '\0') {
                        /* the module's directory */
                        dir = dirname;
                        sub = NULL;
                        file = debuglink;
                        try_base = false;
                } else if (p[0] == '/') {
                        /* DIR/ + the module's absolute directory, then its tails;
                         * an alternate file: DIR/ + its name's last part */
                        if (!w->alt && (dirname == NULL || dirname[0] != '/'))
                                continue;
                        dir = p;
                        sub = w->alt ? NULL : dirname;
                        file = w->alt ? pg_tail(debuglink) : debuglink;
                        try_base = made_up;
                        if (!w->alt)
                                goto next_tail;
                } else {
                        /* a subdirectory of the module's directory */
                        dir = dirname;
                        sub = p;
                        file = debuglink;
                        try_base = made_up;
                }
                for (;;) {
                        fd = pg_try_open(w, dir, sub, file, &fname);
                        if (fd < 0 && try_base)
                                fd = pg_try_open(w, dir, sub, base, &fname);
                        if (fd < 0 && errno != ENOENT && errno != ENOTDIR) {
                                err = errno;
                                goto done;
                        }
                        if (fd < 0 && w->alt && (p[0] == '\0' || p[0] == '/')) {
                                fd = pg_try_open(w, dir, ".dwz", pg_tail(file), &fname);
                                if (fd < 0 && errno != ENOENT && errno != ENOTDIR) {
                                        err = errno;
                                        goto done;
                                }
                        }
                        if (fd >= 0 || w->alt || sub == NULL)
                                break;
                        /* the same below DIR with one more leading directory
                         * dropped (after a relative entry: DIR alone) */
                next_tail:
                        sub = strchr(sub, '/');
                        if (sub != NULL)
                                sub++;
                        if (sub != NULL && *sub == '\0')
                                break;
                        file = debuglink;
                }
                if (fd < 0)
                        continue;
                if (pg_debug_valid(w, fd, check)) {
                        *out = fname;
                        goto done;
                }
                free(fname);
                close(fd);
                fd = -1;
        }
done:
        free(localpath);
        free(localname);
        free(dirname);
        errno = err;
        return fd;
}

/* Step 1 of pg_debugfind(): DIR/.build-id/xx/rest.debug for each absolute
 * DIR of @path_in, as libdwfl's __libdwfl_open_by_build_id() names it, but
 * opened by pg_try_open() instead of dwfl_build_id_find_debuginfo(): libdwfl's
 * open(2) there blocks on a FIFO planted at that name. A file whose
 * build-id differs is passed by (libdwfl: a mismatch, then the name search).
 * Returns the descriptor with *@out its name (resolved, as libdwfl's), or -1
 * (errno 0: nothing found). */
static int pg_find_by_build_id(const struct pg_debug_want *w, const char *path_in, char **out)
{
        const unsigned char *id = w->id;
        char name[sizeof("/.build-id/") + 1 + 64 * 2 + sizeof(".debug")], *localpath, *path, *p;
        int fd = -1, err = 0, len;

        /* libdwfl takes build-ids of 3 to 64 bytes */
        if (id == NULL || w->id_len < 3 || w->id_len > 64) {
                errno = 0;
                return -1;
        }
        len = snprintf(name, sizeof(name), ".build-id/%02x/", id[0]);
        for (int i = 1; i < w->id_len; i++)
                len += snprintf(name + len, sizeof(name) - (size_t) len, "%02x", id[i]);
        snprintf(name + len, sizeof(name) - (size_t) len, ".debug");
        localpath = pg_xstrdup(path_in ? path_in : PG_DEFAULT_DEBUGINFO_PATH);
        path = localpath;
        while ((p = strsep(&path, ":")) != NULL) {
                char *fname = NULL, *real;

                if (*p == '+' || *p == '-')
                        p++;
                if (p[0] != '/')
                        continue; /* only absolute directories hold a .build-id tree */
                fd = pg_try_open(w, p, NULL, name, &fname);
                if (fd < 0 && errno != ENOENT && errno != ENOTDIR) {
                        err = errno;
                        break;
                }
                if (fd < 0)
                        continue;
                if (pg_debug_valid(w, fd, false)) {
                        real = realpath(fname, NULL);
                        *out = real ? real : fname;
                        if (real)
                                free(fname);
                        break;
                }
                free(fname);
                close(fd);
                fd = -1;
        }
        free(localpath);
        errno = err;
        return fd;
}

/* What @mod's search looks for: its debug file by its build-id, or (once
 * its DWARF is open, as libdwfl asks then) the DWZ alternate file by the
 * build-id .gnu_debugaltlink names. Sets w->alt, w->id and w->id_len. */
static void pg_want_init(struct pg_debug_want *w, Dwfl_Module *mod)
{
        const unsigned char *bits = NULL;
        const char *altname;
        Dwarf_Addr dwbias = (Dwarf_Addr) -1, bias;
        GElf_Addr vaddr;
        int bits_len;

        dwfl_module_info(mod, NULL, NULL, NULL, &dwbias, NULL, NULL, NULL);
        w->alt = dwbias != (Dwarf_Addr) -1;
        bits_len = dwfl_module_build_id(mod, &bits, &vaddr);
        if (w->alt) {
                Dwarf *dw = dwfl_module_getdwarf(mod, &bias); /* open: no new look-up */
                ssize_t n = dw ? dwelf_dwarf_gnu_debugaltlink(dw, &altname, &w->id) : -1;

                w->id_len = n > 0 ? (int) n : 0;
                if (n <= 0)
                        w->id = NULL;
        } else if (bits_len > 0) {
                w->id = bits;
                w->id_len = bits_len;
        }
}

int pg_debugfind(Dwfl_Module *mod, const char *path, const char *file_name,
                 const char *debuglink_file, GElf_Word debuglink_crc, char **debuginfo_file_name)
{
        struct pg_debug_want w = { .crc = debuglink_crc };
        const char *mainfile = NULL;
        int fd = -1;
        char *canon;

        if (mod == NULL)
                return -1;
        pg_want_init(&w, mod);
        /* by build-id first: what it finds, or fails on other than finding
         * nothing, is the answer */
        fd = pg_find_by_build_id(&w, path, debuginfo_file_name);
        if (fd >= 0 || errno != 0)
                return fd;
        dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
        memset(&w.main_st, 0, sizeof(w.main_st));
        if (mainfile == NULL || stat(mainfile, &w.main_st) != 0)
                if (file_name == NULL || stat(file_name, &w.main_st) != 0)
                        memset(&w.main_st, 0, sizeof(w.main_st));
        fd = pg_find_in_path(&w, path, file_name, debuglink_file, debuginfo_file_name);
        if (fd < 0 && errno == 0 && file_name != NULL) {
                /* a symlink's debug file may be named after its target */
                canon = realpath(file_name, NULL);
                if (canon != NULL && strcmp(file_name, canon) != 0)
                        fd = pg_find_in_path(&w, path, canon, debuglink_file, debuginfo_file_name);
                free(canon);
        }
        return fd;
}

/* The part of libdebuginfod's API (debuginfod_find_debuginfo(3), ABI
 * libdebuginfod.so.1) that pg_debugfind_debuginfod() calls; declared here
 * since the library is loaded only when asked for, as libdwfl loads it. */
typedef struct pg_debuginfod_client pg_debuginfod_client;
typedef pg_debuginfod_client *(*pg_debuginfod_begin_fn)(void);
typedef int (*pg_debuginfod_find_fn)(pg_debuginfod_client *, const unsigned char *, int, char **);
typedef void (*pg_debuginfod_end_fn)(pg_debuginfod_client *);

int pg_debugfind_debuginfod(Dwfl_Module *mod, char **debuginfo_file_name)
{
        struct pg_debug_want w = { 0 };
        pg_debuginfod_begin_fn begin;
        pg_debuginfod_find_fn find;
        pg_debuginfod_end_fn end;
        pg_debuginfod_client *c;
        void *lib;
        char *name = NULL;
        int fd;

        if (mod == NULL)
                return -1;
        pg_want_init(&w, mod);
        /* loaded once, kept for the process (libdwfl's debuginfod-client.c) */
        lib = dlopen("libdebuginfod.so.1", RTLD_LAZY);
        if (w.id == NULL || lib == NULL) {
                errno = 0;
                return -1;
        }
        *(void **) &begin = dlsym(lib, "debuginfod_begin");
        *(void **) &find = dlsym(lib, "debuginfod_find_debuginfo");
        *(void **) &end = dlsym(lib, "debuginfod_end");
        if (begin == NULL || find == NULL || end == NULL || (c = begin()) == NULL) {
                errno = 0;
                return -1;
        }
        fd = find(c, w.id, w.id_len, &name);
        end(c);
        if (fd < 0) {
                free(name);
                errno = 0;
                return -1;
        }
        *debuginfo_file_name = name;
        return fd;
}

int pg_debugfind_callback(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
        (void) modname;
        (void) base;
        return pg_debugfind(mod, userdata ? (const char *) *userdata : NULL, file_name,
                            debuglink_file, debuglink_crc, debuginfo_file_name);
}
