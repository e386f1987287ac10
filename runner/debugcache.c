/*
 * debugcache.c - see debugcache.h. The uncompressed copy keeps the file's
 * layout: every section and the program headers stay at their offsets, the
 * decompressed sections (never loaded: not in any segment) are appended,
 * then the section header table (libelf's ELF_F_LAYOUT). elfutils'
 * elf_compress(3) does the decompression, as eu-elfcompress -t none does.
 */
#include "runner/debugcache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/interrupt.h"
#include "runner/debugfind.h"
#include "runner/libdw.h"

/* Whether @path is a directory of this user's that others cannot write, created when missing. */
static bool pg_own_dir(const char *path)
{
        struct stat st;

        if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return false;
        return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
               (st.st_mode & 022) == 0;
}

bool pg_cache_dir(const char *sub, const char *off_env, char *out, size_t size)
{
        const char *env = getenv(off_env);
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        char base[4096];

        if (env != NULL && strcmp(env, "0") == 0)
                return false;
        /* XDG Base Directory Specification: a relative $XDG_CACHE_HOME is ignored */
        if (xdg != NULL && xdg[0] == '/')
                snprintf(base, sizeof(base), "%s", xdg);
        else if (home != NULL && home[0] == '/')
                snprintf(base, sizeof(base), "%s/.cache", home);
        else
                return false;
        if (mkdir(base, 0700) != 0 && errno != EEXIST)
                return false;
        if ((size_t) snprintf(out, size, "%s/perfgate", base) >= size || !pg_own_dir(out))
                return false;
        if (sub == NULL)
                return true;
        if ((size_t) snprintf(out, size, "%s/perfgate/%s", base, sub) >= size)
                return false;
        return pg_own_dir(out);
}

bool pg_debugcache_dir(char *out, size_t size)
{
        return pg_cache_dir("debuginfo", "PERFGATE_DEBUGINFO_CACHE", out, size);
}

/* Whether @e has a section with SHF_COMPRESSED (-1: not a readable ELF file). */
static int pg_has_compressed(Elf *e)
{
        Elf_Scn *scn = NULL;
        GElf_Shdr sh;

        if (e == NULL || elf_kind(e) != ELF_K_ELF)
                return -1;
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                if (gelf_getshdr(scn, &sh) == NULL)
                        return -1;
                if (sh.sh_flags & SHF_COMPRESSED)
                        return 1;
        }
        return 0;
}

/* Open the cache file @path if it is usable for build-id @id (@len bytes); -1 if not. */
static int pg_cache_open(const char *path, const unsigned char *id, size_t len)
{
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        Elf *e;
        const void *bid = NULL;
        bool ok;

        if (fd < 0)
                return -1;
        ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
             (st.st_mode & 022) == 0;
        if (ok) {
                e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
                ok = pg_has_compressed(e) >= 0 &&
                     dwelf_elf_gnu_build_id(e, &bid) == (ssize_t) len && memcmp(bid, id, len) == 0;
                if (e != NULL)
                        elf_end(e);
        }
        if (!ok) {
                close(fd);
                (void) unlink(path); /* in our own directory: made again below */
                return -1;
        }
        (void) futimens(fd, NULL); /* used now: the last to be evicted */
        return fd;
}

/* Copy the whole of @in to @out. Returns 0 or -1. */
static int pg_copy_fd(int in, int out)
{
        char buf[1 << 16];
        ssize_t n;
        off_t off = 0;

        while ((n = pread(in, buf, sizeof(buf), off)) > 0) {
                for (ssize_t w = 0; w < n;) {
                        ssize_t k = write(out, buf + w, (size_t) (n - w));

                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k <= 0)
                                return -1;
                        w += k;
                }
                off += n;
        }
        return n < 0 ? -1 : 0;
}

struct pg_cache_ent {
        char name[80];
        time_t mtime;
        off_t size;
};

static int pg_ent_older(const void *a, const void *b)
{
        const struct pg_cache_ent *x = a, *y = b;

        return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Remove the least recently used files of @dir until it holds at most the limit. */
static void pg_cache_trim(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        struct pg_cache_ent *v = NULL;
        size_t n = 0, cap = 0;
        unsigned long long total = 0;
        char path[4096];

        if (d == NULL)
                return;
        while ((de = readdir(d)) != NULL) {
                struct stat st;
                size_t len = strlen(de->d_name);

                if (len < 7 || len >= sizeof(v->name) ||
                    strcmp(de->d_name + len - 6, ".debug") != 0 ||
                    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                        continue;
                if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        v = pg_xreallocarray(v, cap, sizeof(*v));
                }
                memcpy(v[n].name, de->d_name, len + 1); /* len < sizeof(name): checked above */
                v[n].mtime = st.st_mtime;
                v[n].size = st.st_size;
                total += (unsigned long long) st.st_size;
                n++;
        }
        closedir(d);
        if (n > 1)
                qsort(v, n, sizeof(*v), pg_ent_older);
        for (size_t i = 0; i < n && total > PG_DEBUGCACHE_MAX_BYTES; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
                if (unlink(path) == 0)
                        total -= (unsigned long long) v[i].size;
        }
        free(v);
}

/* pwrite all of @len bytes of @buf at @off. Returns 0 or -1. */
static int pg_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
        const char *p = buf;

        while (len > 0) {
                ssize_t k = pwrite(fd, p, len, off);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -1;
                p += k;
                len -= (size_t) k;
                off += k;
        }
        return 0;
}

/*
 * Write to @out a copy of the ELF file @in (ELFCLASS64, host byte order)
 * in which the sections that @mem (the same file, its sections inflated by
 * libdw) holds uncompressed are stored uncompressed: the file's bytes, then
 * those sections' data, then a new section header table. Returns the number
 * of sections written out uncompressed (0: nothing to gain), or -1.
 */
static int pg_write_inflated(int in, int out, Elf *mem)
{
        Elf64_Ehdr eh;
        Elf64_Shdr *sh = NULL;
        struct stat st;
        uint64_t end;
        size_t shnum;
        int n = 0, rc = -1;

        if (fstat(in, &st) != 0 || pread(in, &eh, sizeof(eh), 0) != (ssize_t) sizeof(eh) ||
            memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
            eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
            elf_getshdrnum(mem, &shnum) != 0 || shnum != eh.e_shnum ||
            eh.e_shoff + (uint64_t) shnum * sizeof(*sh) > (uint64_t) st.st_size)
                return -1;
        sh = pg_xreallocarray(NULL, shnum, sizeof(*sh));
        if (pread(in, sh, shnum * sizeof(*sh), (off_t) eh.e_shoff) !=
                (ssize_t) (shnum * sizeof(*sh)) ||
            pg_copy_fd(in, out) < 0)
                goto done;
        end = (uint64_t) st.st_size;
        for (size_t i = 1; i < shnum; i++) {
                Elf_Scn *scn = elf_getscn(mem, i);
                GElf_Shdr m;
                Elf_Data *d;
                uint64_t align;

                if (!(sh[i].sh_flags & SHF_COMPRESSED) || scn == NULL ||
                    gelf_getshdr(scn, &m) == NULL || (m.sh_flags & SHF_COMPRESSED) ||
                    (d = elf_getdata(scn, NULL)) == NULL || d->d_size != m.sh_size)
                        continue; /* left compressed: libdw did not read it */
                align = m.sh_addralign > 1 ? m.sh_addralign : 1;
                end = (end + align - 1) / align * align;
                if (pg_pwrite_all(out, d->d_buf, d->d_size, (off_t) end) < 0)
                        goto done;
                sh[i].sh_flags &= ~(uint64_t) SHF_COMPRESSED;
                sh[i].sh_offset = end;
                sh[i].sh_size = m.sh_size;
                sh[i].sh_addralign = m.sh_addralign;
                end += m.sh_size;
                n++;
        }
        eh.e_shoff = (end + 7) / 8 * 8;
        if (n > 0 && (pg_pwrite_all(out, sh, shnum * sizeof(*sh), (off_t) eh.e_shoff) < 0 ||
                      pg_pwrite_all(out, &eh, sizeof(eh), 0) < 0))
                goto done;
        rc = n;
done:
        free(sh);
        return rc;
}

/* BUILDID.debug in @dir for @mod's build-id into @path; false without one. */
static bool pg_cache_path(Dwfl_Module *mod, const char *dir, char *path, size_t size,
                          const unsigned char **id, int *idlen)
{
        GElf_Addr idaddr;
        size_t off;

        if ((*idlen = dwfl_module_build_id(mod, id, &idaddr)) <= 0 || *idlen > 64 ||
            size < strlen(dir) + 2 * (size_t) *idlen + 8)
                return false;
        off = (size_t) snprintf(path, size, "%s/", dir);
        for (int i = 0; i < *idlen; i++)
                off += (size_t) snprintf(path + off, size - off, "%02x", (*id)[i]);
        snprintf(path + off, size - off, ".debug");
        return true;
}

int pg_debugcache_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                                 GElf_Word debuglink_crc, char **debuginfo_file_name)
{
        const char *debugfile = NULL;
        const unsigned char *id;
        int idlen, fd;
        char dir[4096], path[4096 + 160];

        /* the module's own debug file (not a dwz alternate file, asked for
         * once the debug file is known), cached */
        dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
        if (debugfile == NULL && pg_debugcache_dir(dir, sizeof(dir)) &&
            pg_cache_path(mod, dir, path, sizeof(path), &id, &idlen) &&
            (fd = pg_cache_open(path, id, (size_t) idlen)) >= 0) {
                *debuginfo_file_name = pg_xstrdup(path);
                return fd;
        }
        return pg_debugfind_callback(mod, userdata, modname, base, file_name, debuglink_file,
                                     debuglink_crc, debuginfo_file_name);
}

void pg_debugcache_save(Dwfl_Module *mod)
{
        const char *debugfile = NULL;
        const unsigned char *id;
        int idlen, in, out;
        char dir[4096], path[4096 + 160], tmp[4096 + 16];
        Dwarf_Addr bias;
        Dwarf *dw;
        Elf *mem;

        dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
        if (debugfile == NULL || !pg_debugcache_dir(dir, sizeof(dir)) ||
            strncmp(debugfile, dir, strlen(dir)) == 0 ||
            !pg_cache_path(mod, dir, path, sizeof(path), &id, &idlen) ||
            (dw = dwfl_module_getdwarf(mod, &bias)) == NULL || (mem = dwarf_getelf(dw)) == NULL)
                return;
        if ((in = open(debugfile, O_RDONLY | O_CLOEXEC)) < 0)
                return;
        snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir);
        if ((out = pg_mkstemp_tracked(tmp)) < 0) {
                close(in);
                return;
        }
        if (pg_write_inflated(in, out, mem) <= 0 || close(out) != 0 || rename(tmp, path) != 0) {
                close(out); /* EBADF after a failed close: harmless */
                (void) unlink(tmp);
        } else {
                pg_cache_trim(dir);
        }
        pg_interrupt_untrack(tmp);
        close(in);
}
