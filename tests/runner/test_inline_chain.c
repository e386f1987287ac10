/*
 * test_inline_chain.c - the inlined frames of Rust, Go, C and C++ code
 * (gcc and clang), against
 * perf and addr2line on the same addresses. Real programs (the Rust and Go
 * programs of the differential test, built by Debian's rustc -O (bfd and
 * lld) and go, a cgo program and a Rust iterator-adapter loop built here
 * with opt-level 3) are sampled by
 * `perf record --call-graph dwarf`; every address of the program that perf
 * script shows (leaf or caller) is then folded by the symbolizer (a
 * hand-built sample whose chain is that address alone) and its frames
 * compared with perf's (the symbol, then the "(inlined)" lines outermost
 * first), with `addr2line -i -f -C` (every function but the last is an
 * inlined one) and, for Go, with llvm-addr2line: every address must agree,
 * but for one documented difference of binutils (binutils_renamed). Also:
 * Self and the hotspots charge the adapter loop to the function it was
 * inlined into, as perf report --no-children does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "compare/hotspot.h"
#include "runner/records.h"
#include "runner/sample.h"
#include "runner/symbolize.h"
#include "tests/util/perfrec.h"
#include "tests/util/testutil.h"

/* perf's frames at one address of the program: "symbol;outer_[i];...;inner_[i]" */
struct want {
        uint64_t addr;
        char *perf;
        char *got;  /* the symbolizer's, comm frame removed */
        char *a2l;  /* addr2line's inlined functions, "outer_[i];...;inner_[i]" */
        char *llvm; /* llvm-addr2line's, the same */
        bool mixed; /* perf printed two chains for the address */
};

struct wants {
        struct want *v;
        size_t n, cap;
        struct wants *cut; /* addresses perf printed inlined lines for but no symbol */
        size_t unaligned;  /* samples whose two perf script outputs did not pair up */
};

static struct want *want_at(struct wants *w, uint64_t addr)
{
        for (size_t i = 0; i < w->n; i++)
                if (w->v[i].addr == addr)
                        return &w->v[i];
        if (w->n == w->cap) {
                w->cap = w->cap ? w->cap * 2 : 256;
                w->v = realloc(w->v, w->cap * sizeof(*w->v));
                assert_non_null(w->v);
        }
        memset(&w->v[w->n], 0, sizeof(w->v[0]));
        w->v[w->n].addr = addr;
        return &w->v[w->n++];
}

/* One frame of perf's: @names (*@count of them, freed here) innermost
 * first, the last one the symbol when @last_dso is the program. */
static void group_done(struct wants *w, uint64_t addr, char **names, size_t *count,
                       const char *last_dso, const char *prog)
{
        size_t n = *count;
        struct pg_buf b = PG_BUF_INIT;
        struct want *x;

        if (n > 0 && strcmp(last_dso, "inlined") == 0) {
                (void) want_at(w->cut, addr); /* perf lost the symbol line (see main) */
        } else if (n > 0 && strcmp(last_dso, prog) == 0) {
                pg_buf_puts(&b, names[n - 1]);
                for (size_t i = n - 1; i-- > 0;)
                        pg_buf_printf(&b, ";%s_[i]", names[i]);
                x = want_at(w, addr);
                if (x->perf == NULL)
                        x->perf = pg_xstrdup(b.ptr);
                else if (strcmp(x->perf, b.ptr) != 0)
                        x->mixed = true;
                pg_buf_release(&b);
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        *count = 0;
}

/* One line of `perf script -F ip,sym,dso`: false at a sample's end. */
static bool perf_line(FILE *f, uint64_t *ip, char *name, size_t namesz, char *dso, size_t dsosz)
{
        char line[8192], *p = line, *end, *open;

        if (fgets(line, sizeof(line), f) == NULL)
                return false;
        line[strcspn(line, "\n")] = '\0';
        while (*p == ' ' || *p == '\t')
                p++;
        *ip = strtoull(p, &end, 16);
        if (*p == '\0' || end == p || *end != ' ' || (open = strrchr(end, '(')) == NULL ||
            open == end + 1)
                return false;
        open[-1] = '\0';
        snprintf(dso, dsosz, "%.*s", (int) strcspn(open + 1, ")"), open + 1);
        snprintf(name, namesz, "%s", end + 1);
        return true;
}

/*
 * Read perf script's output with inlined frames (@inl) and without
 * (@noinl, the same samples in the same order) into @w: the frames of
 * @prog's addresses. The run of lines of one address in @inl holds the
 * frames of as many consecutive frames of that address in @noinl (a
 * recursive call repeats its return address), each the same number of
 * lines; a line alone cannot say which frame it belongs to, as perf prints
 * an inlined function named like the symbol (binutils' rename, below) with
 * the module, not "(inlined)".
 */
static void read_perf(struct wants *w, const char *inl, const char *noinl, const char *prog)
{
        FILE *fi = fopen(inl, "r"), *fn = fopen(noinl, "r");
        char name[8192], dso[4096], *names[512];
        uint64_t ips[512], ip;
        size_t nips = 0, n = 0;
        bool more = true;

        assert_non_null(fi);
        assert_non_null(fn);
        while (more) {
                /* one sample from each */
                uint64_t lines_ip[2048];
                char *lines_name[2048], *lines_mod[2048];
                size_t nl = 0, li = 0;

                nips = 0;
                while ((more = !feof(fn)) &&
                       perf_line(fn, &ip, name, sizeof(name), dso, sizeof(dso)))
                        if (nips < 512)
                                ips[nips++] = ip;
                while (!feof(fi) && perf_line(fi, &ip, name, sizeof(name), dso, sizeof(dso)))
                        if (nl < 2048) {
                                lines_ip[nl] = ip;
                                lines_name[nl] = pg_xstrdup(name);
                                lines_mod[nl] = pg_xstrdup(dso);
                                nl++;
                        }
                for (size_t k = 0; k < nips;) {
                        size_t r = 1, run = 0;

                        while (k + r < nips && ips[k + r] == ips[k])
                                r++;
                        while (li + run < nl && lines_ip[li + run] == ips[k])
                                run++;
                        if (run == 0 || run % r != 0) {
                                w->unaligned++;
                                break; /* the two outputs disagree: not this sample */
                        }
                        for (size_t fr = 0; fr < r; fr++) {
                                for (size_t j = 0; j < run / r; j++)
                                        if (n < 512)
                                                names[n++] =
                                                    pg_xstrdup(lines_name[li + fr * (run / r) + j]);
                                group_done(w, ips[k], names, &n,
                                           lines_mod[li + fr * (run / r) + run / r - 1], prog);
                        }
                        li += run;
                        k += r;
                }
                for (size_t j = 0; j < nl; j++) {
                        free(lines_name[j]);
                        free(lines_mod[j]);
                }
        }
        fclose(fi);
        fclose(fn);
}

static const struct pg_perf_format fmt = { PG_REC_FP_TYPE, 0, true };

static void rec_end(struct pg_record_log *log, struct pg_rec *r, uint32_t tid, uint64_t t)
{
        pg_rec_put32x2(r, 100, tid);
        pg_rec_put64(r, t);
        pg_rec_put32x2(r, 0, 0);
        pg_rec_put64(r, 1);
        pg_rec_finish(r);
        pg_record_log_add(log, r->b, r->n, t);
}

/* The executable PT_LOAD segments of an ELF file, and whether it is a PIE. */
struct segs {
        GElf_Phdr v[16];
        size_t n;
        bool dyn;
};

static void read_segs(const char *path, struct segs *sg)
{
        int fd = open(path, O_RDONLY);
        Elf *elf;
        size_t nph;
        GElf_Ehdr eh;

        assert_true(fd >= 0);
        elf_version(EV_CURRENT);
        elf = elf_begin(fd, ELF_C_READ, NULL);
        assert_non_null(elf);
        assert_int_equal(elf_getphdrnum(elf, &nph), 0);
        assert_non_null(gelf_getehdr(elf, &eh));
        sg->dyn = eh.e_type == ET_DYN;
        sg->n = 0;
        for (size_t i = 0; i < nph && sg->n < 16; i++)
                if (gelf_getphdr(elf, (int) i, &sg->v[sg->n]) != NULL &&
                    sg->v[sg->n].p_type == PT_LOAD && (sg->v[sg->n].p_flags & PF_X))
                        sg->n++;
        elf_end(elf);
        close(fd);
}

/* perf script prints a user address as its offset in the file (the mapping's
 * map_ip: address - start + pgoff); the link-time address of each, in place */
static void offsets_to_vaddrs(struct wants *w, const struct segs *sg)
{
        for (size_t i = 0; i < w->n; i++)
                for (size_t k = 0; k < sg->n; k++)
                        if (w->v[i].addr >= sg->v[k].p_offset &&
                            w->v[i].addr < sg->v[k].p_offset + sg->v[k].p_filesz) {
                                w->v[i].addr += sg->v[k].p_vaddr - sg->v[k].p_offset;
                                break;
                        }
}

/* The symbolizer's frames at each address of @w in @prog, mapped where the
 * kernel maps it (a PIE at 0x555555554000). */
static void fold_each(struct wants *w, const char *prog, const struct segs *sg)
{
        struct pg_symbolizer_opts o = { .max_stack = 127 };
        struct pg_symbolizer *s;
        struct pg_record_log log;
        struct pg_profile p = { 0 };
        struct pg_rec r;
        uint64_t t = 10, base = sg->dyn ? 0x555555554000ULL : 0;

        pg_record_log_init(&log);
        pg_rec_begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
        pg_rec_put32x2(&r, 100, 100);
        pg_rec_putstr(&r, "prog");
        rec_end(&log, &r, 100, t++);
        for (size_t i = 0; i < sg->n; i++) {
                uint64_t skew = sg->v[i].p_vaddr & 0xfff;

                pg_rec_begin(&r, PERF_RECORD_MMAP2, 0);
                pg_rec_put32x2(&r, 100, 100);
                pg_rec_put64(&r, base + sg->v[i].p_vaddr - skew);
                pg_rec_put64(&r, sg->v[i].p_filesz + skew);
                pg_rec_put64(&r, sg->v[i].p_offset - skew);
                memset(r.b + r.n, 0, 24);
                r.n += 24;
                pg_rec_put32x2(&r, 5, 2);
                pg_rec_putstr(&r, prog);
                rec_end(&log, &r, 100, t++);
        }
        /* one thread per address, named by its index: the comm frame says which */
        for (size_t i = 0; i < w->n; i++) {
                uint64_t chain[] = { (uint64_t) PERF_CONTEXT_USER, base + w->v[i].addr };
                char comm[32];

                snprintf(comm, sizeof(comm), "a%zu", i);
                pg_rec_begin(&r, PERF_RECORD_COMM, 0);
                pg_rec_put32x2(&r, 100, (uint32_t) (1000 + i));
                pg_rec_putstr(&r, comm);
                rec_end(&log, &r, (uint32_t) (1000 + i), t++);
                pg_rec_begin(&r, PERF_RECORD_SAMPLE, 0);
                pg_rec_put64(&r, chain[1]);
                pg_rec_put64(&r, 0);
                pg_rec_put32x2(&r, 100, (uint32_t) (1000 + i));
                pg_rec_put64(&r, t);
                pg_rec_put32x2(&r, 0, 0);
                pg_rec_put64(&r, 1001001);
                pg_rec_put64(&r, 2);
                pg_rec_put64(&r, chain[0]);
                pg_rec_put64(&r, chain[1]);
                pg_rec_finish(&r);
                pg_record_log_add(&log, r.b, r.n, t++);
        }
        assert_int_equal(pg_symbolizer_new(&s, &o), 0);
        pg_record_log_sort(&log);
        pg_symbolizer_process(s, &log, &fmt);
        pg_symbolizer_export(s, &p);
        for (size_t i = 0; i < p.nstacks; i++) {
                const char *k = p.stacks[i].frames;
                char *semi = strchr(k, ';');
                size_t idx;

                if (k[0] != 'a' || semi == NULL)
                        continue;
                idx = strtoull(k + 1, NULL, 10);
                assert_true(idx < w->n);
                w->v[idx].got = pg_xstrdup(semi + 1);
        }
        pg_profile_release(&p);
        pg_record_log_release(&log);
        pg_symbolizer_free(s);
}

/*
 * @tool -a -i -f -C on every address of @w (binutils' addr2line or
 * llvm-addr2line): into field @at of each (a2l or llvm), the inlined
 * functions there, "outer_[i];...;inner_[i]" (every function it lists but the
 * last, which is the one they were inlined into). false when @tool is missing.
 */
static bool ask_addr2line(struct wants *w, const char *prog, const char *tool, size_t at)
{
        char in[4096], out[4096], cmd[16384], line[8192];
        struct pg_buf b = PG_BUF_INIT;
        char *names[512];
        size_t n = 0, lines = 0;
        struct want *x = NULL;
        FILE *f;

        if (access(tool, X_OK) != 0)
                return false;
        snprintf(in, sizeof(in), "%s/addrs", pg_test_sandbox());
        snprintf(out, sizeof(out), "%s/a2l", pg_test_sandbox());
        f = fopen(in, "w");
        assert_non_null(f);
        for (size_t i = 0; i < w->n; i++)
                fprintf(f, "%#llx\n", (unsigned long long) w->v[i].addr);
        fclose(f);
        snprintf(cmd, sizeof(cmd), "'%s' -a -i -f -C -e '%s' <'%s' >'%s'", tool, prog, in, out);
        assert_int_equal(system(cmd), 0);
        f = fopen(out, "r");
        assert_non_null(f);
        /* "0xADDR", then a function line and a file:line line per level */
        for (bool more = true; more;) {
                more = fgets(line, sizeof(line), f) != NULL;
                line[strcspn(line, "\n")] = '\0';
                if (more && line[0] == '\0')
                        continue;
                if ((!more || strncmp(line, "0x", 2) == 0) && x != NULL) {
                        pg_buf_reset(&b);
                        for (size_t i = n - 1; n > 0 && i-- > 0;)
                                pg_buf_printf(&b, "%s%s_[i]", b.len ? ";" : "", names[i]);
                        *(char **) ((char *) x + at) = pg_xstrdup(b.len ? b.ptr : "");
                        for (size_t i = 0; i < n; i++)
                                free(names[i]);
                        n = 0;
                        x = NULL;
                }
                if (!more)
                        break;
                if (strncmp(line, "0x", 2) == 0) {
                        x = want_at(w, strtoull(line, NULL, 16));
                        lines = 0;
                } else if (x != NULL && lines++ % 2 == 0 && n < 512) {
                        names[n++] = pg_xstrdup(line);
                }
        }
        fclose(f);
        pg_buf_release(&b);
        return true;
}

/* The _[i] frames of @frames ("symbol;a_[i];b_[i]"): after the first ';'. */
static const char *inlined_part(const char *frames)
{
        const char *semi = strchr(frames, ';');

        return semi ? semi + 1 : "";
}

/*
 * @chain ("a<T>::f(int) const_[i];g_[i]") with what C++ names differ in
 * between llvm-addr2line -C and perfgate left out: template arguments,
 * parameter lists, " const", the _[i] suffixes; a new string.
 */
static char *plain_names(const char *chain)
{
        struct pg_buf b = PG_BUF_INIT;
        int angle = 0, paren = 0;

        for (const char *p = chain; *p; p++) {
                if (*p == '<' && paren == 0 && strncmp(p - (p > chain), "operator<", 9) != 0)
                        angle++;
                else if (*p == '>' && angle > 0 && paren == 0)
                        angle--;
                else if (*p == '(' && angle == 0)
                        paren++;
                else if (*p == ')' && paren > 0 && angle == 0)
                        paren--;
                else if (angle == 0 && paren == 0)
                        pg_buf_putc(&b, *p);
        }
        for (char *q; (q = strstr(b.ptr ? b.ptr : "", " const")) != NULL;)
                memmove(q, q + 6, strlen(q + 6) + 1);
        for (char *q; (q = strstr(b.ptr ? b.ptr : "", "_[i]")) != NULL;)
                memmove(q, q + 4, strlen(q + 4) + 1);
        return b.ptr ? pg_buf_detach(&b, NULL) : strdup("");
}

/*
 * Whether the C++ chains @l (llvm-addr2line's) and @g (perfgate's), both
 * plain_names(), name the same functions: frame by frame, llvm-addr2line's
 * return type of a template function ("unsigned int& std::vector::
 * emplace_back") left out, and a name LLVM 14 could not demangle ("_ZSt...")
 * matching any.
 */
static bool same_cxx_chain(const char *l, const char *g)
{
        while (*l && *g) {
                size_t nl = strcspn(l, ";"), ng = strcspn(g, ";");
                const char *fl = l, *sp;

                for (sp = l; sp < l + nl; sp++)
                        if (*sp == ' ')
                                fl = sp + 1;
                if (strncmp(l, "_Z", 2) != 0 &&
                    ((size_t) (l + nl - fl) != ng || strncmp(fl, g, ng) != 0))
                        return false;
                l += nl + (l[nl] == ';');
                g += ng + (g[ng] == ';');
        }
        return *l == '\0' && *g == '\0';
}

/*
 * Whether perf's @perf is @got with the innermost inlined frame named after
 * the symbol (@got's first frame): binutils' addr2line (which perf 6.1 runs)
 * replaces the DWARF name of the function at an address with the ELF symbol
 * there when the DWARF name is not a linkage name (bfd/dwarf2.c,
 * _bfd_dwarf2_find_nearest_line), so Go's innermost inlined function takes
 * the name of the function it was inlined into. llvm-addr2line names it
 * from DWARF.
 */
static bool binutils_renamed(const char *perf, const char *got)
{
        const char *last = strrchr(got, ';');
        size_t symlen = strcspn(got, ";"), keep;

        if (last == NULL || strstr(got, "_[i]") == NULL)
                return false;
        keep = (size_t) (last - got) + 1; /* up to the innermost frame */
        return strlen(perf) == keep + symlen + 4 && strncmp(perf, got, keep) == 0 &&
               strncmp(perf + keep, got, symlen) == 0 && strcmp(perf + keep + symlen, "_[i]") == 0;
}

/* Run @cmd; false (and a message) when perf cannot record here. */
static bool perf_recorded(const char *cmd)
{
        if (access("/usr/bin/perf", X_OK) != 0 || system(cmd) != 0) {
                print_message("SKIP: perf record --call-graph dwarf failed here\n");
                return false;
        }
        return true;
}

/* Compare the frames at every address perf sampled in @path (run with @arg). */
/*
 * Check @path (run with @arg) as above; @go: a Go program. C++
 * (!@a2l_names): addr2line prints parameter lists ("find(unsigned int
 * const&) const") that perf, which runs it, strips, so llvm-addr2line's
 * names are compared without template arguments and parameters instead.
 * !@perf_exact: clang's DWARF 5, where binutils' addr2line (and so perf
 * 6.1) finds no inlined frames at some addresses that llvm-addr2line and
 * the DWARF show: llvm-addr2line is the oracle there.
 */
static void check_program_as(const char *path, const char *arg, size_t min_addrs, bool go,
                             bool a2l_names, bool perf_exact)
{
        struct segs sg;
        char cmd[32768], data[4096], txt[4096], txt2[4096], prog[4096];
        struct wants cut = { 0 }, w = { .cut = &cut };
        size_t perf_same = 0, perf_renamed = 0, perf_diff = 0, a2l_same = 0, a2l_diff = 0;
        size_t llvm_same = 0, llvm_diff = 0, inlined = 0, nested = 0, perf_data = 0;
        bool a2l, llvm;

        assert_non_null(realpath(path, prog)); /* as perf names it */
        snprintf(data, sizeof(data), "%s/perf.data", pg_test_sandbox());
        snprintf(txt, sizeof(txt), "%s/perf.txt", pg_test_sandbox());
        snprintf(txt2, sizeof(txt2), "%s/perf-noinline.txt", pg_test_sandbox());
        snprintf(cmd, sizeof(cmd),
                 "perf record -q -F 1999 --call-graph dwarf -o '%s' -- '%s' %s >/dev/null 2>&1 && "
                 "perf script -F ip,sym,dso -i '%s' >'%s' 2>/dev/null && "
                 "perf script --no-inline -F ip,sym,dso -i '%s' >'%s' 2>/dev/null",
                 data, prog, arg, data, txt, data, txt2);
        if (!perf_recorded(cmd))
                skip();
        read_perf(&w, txt, txt2, prog);
        read_segs(prog, &sg);
        offsets_to_vaddrs(&w, &sg);
        fold_each(&w, prog, &sg);
        a2l =
            a2l_names && ask_addr2line(&w, prog, "/usr/bin/addr2line", offsetof(struct want, a2l));
        llvm = ask_addr2line(&w, prog, "/usr/bin/llvm-addr2line", offsetof(struct want, llvm));
        for (size_t i = 0; i < w.n; i++) {
                struct want *x = &w.v[i];
                bool renamed = false;

                if (x->perf == NULL)
                        continue; /* asked of addr2line only */
                assert_non_null(x->got);
                inlined += strstr(x->got, "_[i]") != NULL;
                nested += strstr(x->got, "_[i];") != NULL;
                if (!x->mixed && strcmp(x->perf, x->got) != 0 &&
                    binutils_renamed(x->perf, x->got)) {
                        renamed = true;
                        if (perf_renamed++ < 3)
                                fprintf(stderr,
                                        "%s %#llx: perf %s (binutils' rename)\n  perfgate %s\n",
                                        prog, (unsigned long long) x->addr, x->perf, x->got);
                } else if (!x->mixed && strcmp(x->perf, x->got) == 0) {
                        perf_same++;
                } else if (go && strcmp(x->got, "[unknown]") == 0 &&
                           strncmp(x->perf, "go.", 3) == 0) {
                        /* a return address outside code (a cgo chain unwound
                         * into data): perf names the nearest symbol, the Go
                         * linker's data (go.string.*), perfgate no function */
                        perf_data++;
                } else if (perf_diff++ < 10) {
                        fprintf(stderr, "%s %#llx: perf %s%s\n  perfgate %s\n", prog,
                                (unsigned long long) x->addr, x->perf,
                                x->mixed ? " (and another)" : "", x->got);
                }
                if (a2l) {
                        struct pg_buf g = PG_BUF_INIT;

                        /* compared as frames under one symbol, as perf's */
                        pg_buf_printf(&g, "%.*s;%s", (int) strcspn(x->got, ";"), x->got, x->a2l);
                        if (strcmp(x->a2l, inlined_part(x->got)) == 0)
                                a2l_same++;
                        else if (renamed && binutils_renamed(g.ptr, x->got))
                                ; /* the same rename (perf runs addr2line) */
                        else if (a2l_diff++ < 10)
                                fprintf(stderr, "%s %#llx: addr2line %s\n  perfgate %s\n", prog,
                                        (unsigned long long) x->addr, x->a2l, x->got);
                        pg_buf_release(&g);
                }
                /* llvm-addr2line prints DWARF's names as they are: Go's (the
                 * Rust ones it would have to demangle, which LLVM 14 does not) */
                if (llvm && go) {
                        if (strcmp(x->llvm, inlined_part(x->got)) == 0)
                                llvm_same++;
                        else if (llvm_diff++ < 10)
                                fprintf(stderr, "%s %#llx: llvm-addr2line %s\n  perfgate %s\n",
                                        prog, (unsigned long long) x->addr, x->llvm, x->got);
                } else if (llvm && !a2l_names) {
                        /* C++: llvm-addr2line -C's names as perfgate's, but for
                         * template arguments and parameter lists */
                        char *l = plain_names(x->llvm), *g = plain_names(inlined_part(x->got));

                        if (same_cxx_chain(l, g))
                                llvm_same++;
                        else if (llvm_diff++ < 10)
                                fprintf(stderr, "%s %#llx: llvm-addr2line %s\n  perfgate %s\n",
                                        prog, (unsigned long long) x->addr, l, g);
                        free(l);
                        free(g);
                }
                free(x->perf);
                free(x->got);
                free(x->a2l);
                free(x->llvm);
        }
        fprintf(stderr,
                "%s: %zu addresses: perf agrees on %zu, on %zu but for binutils' name of the "
                "innermost, differs on %zu; addr2line agrees on %zu, differs on %zu; "
                "llvm-addr2line agrees on %zu, differs on %zu\n",
                prog, w.n, perf_same, perf_renamed, perf_diff, a2l_same, a2l_diff, llvm_same,
                llvm_diff);
        fprintf(stderr,
                "%s: %zu with inlined frames, %zu of them nested; %zu perf printed without their "
                "symbol; %zu samples not paired with perf script --no-inline's; %zu outside "
                "code, named by perf after Go's data\n",
                prog, inlined, nested, cut.n, w.unaligned, perf_data);
        free(w.v);
        free(cut.v);
        assert_true(w.n >= min_addrs);
        /* there were inlined frames to compare, and (Rust) chains of them; a
         * Go program's sampled addresses hold few nested ones */
        assert_true(inlined > 0);
        if (!go)
                assert_true(nested > 0);
        if (perf_exact)
                assert_int_equal(perf_diff, 0);
        if (a2l)
                assert_int_equal(a2l_diff, 0);
        if (llvm && (go || !a2l_names)) {
                assert_int_equal(llvm_diff, 0);
                assert_true(llvm_same > 0);
        }
        /* binutils' rename is of names without a linkage name: Go's, and now
         * and then one sampled address of a g++ build (1 of 38 in a CI run:
         * an inlined function whose linkage name bfd does not reach); where
         * llvm-addr2line judged every address above (C++), or binutils
         * already differs (clang's DWARF, !perf_exact), it is the oracle and
         * a sampled address may also look renamed; for Rust, addr2line's
         * demangled linkage names leave none */
        if (!go && perf_exact && !(llvm && !a2l_names))
                assert_int_equal(perf_renamed, 0);
        pg_test_sandbox_remove();
}

static void check_program(const char *path, const char *arg, size_t min_addrs, bool go)
{
        check_program_as(path, arg, min_addrs, go, true, true);
}

static void test_rust_vs_perf(void **state)
{
        const char *names[] = { "diff/diff_rust_bfd", "diff/diff_rust_lld" };
        int n = 0;

        (void) state;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (access(pg_test_fixture(names[i]), X_OK) == 0) {
                        check_program(pg_test_fixture(names[i]), "3", 50, false);
                        n++;
                }
        if (n == 0)
                skip();
}

/* C++ from g++ (bfd) and clang++ (lld: no .debug_aranges, functions nested
 * in DW_TAG_namespace): the same chains of inlined standard-library calls
 * as perf and addr2line -i (tests/fixtures/inline/dedup.cpp) */
static void test_cxx_vs_perf(void **state)
{
        const char *cc[][2] = { { "/usr/bin/g++", "gxx" }, { "/usr/bin/clang++", "clangxx" } };
        char src[4096], prog[4096], cmd[16384];
        int n = 0;

        (void) state;
        snprintf(src, sizeof(src), "%s/tests/fixtures/inline/dedup.cpp",
                 pg_test_env("PG_SOURCE_DIR"));
        for (size_t i = 0; i < sizeof(cc) / sizeof(cc[0]); i++) {
                if (access(cc[i][0], X_OK) != 0)
                        continue;
                snprintf(prog, sizeof(prog), "%s/dedup_%s", pg_test_sandbox(), cc[i][1]);
                snprintf(cmd, sizeof(cmd), "'%s' -O2 -g -fno-omit-frame-pointer %s -o '%s' '%s'",
                         cc[i][0], i == 1 ? "-fuse-ld=lld" : "", prog, src);
                assert_int_equal(system(cmd), 0);
                check_program_as(prog, "20 6", 10, false, false, i == 0);
                n++;
        }
        if (n == 0)
                skip();
}

static void test_go_vs_perf(void **state)
{
        (void) state;
        if (access(pg_test_fixture("diff/diff_go"), X_OK) != 0)
                skip();
        check_program(pg_test_fixture("diff/diff_go"), "2", 50, true);
}

/* Go calling C through cgo: the binary's .debug_aranges cover its C code only */
static const char cgo_src[] =
    "package main\n"
    "\n"
    "// int twice(int x) { return 2 * x; }\n"
    "import \"C\"\n"
    "import (\"fmt\"; \"sort\"; \"strings\")\n"
    "\n"
    "func key(s string) string { return strings.ToLower(s) }\n"
    "\n"
    "func main() {\n"
    "\tt := 0\n"
    "\tfor i := 0; i < 300000; i++ {\n"
    "\t\tw := strings.Fields(\"b a C d B e A\")\n"
    "\t\tsort.Slice(w, func(i, j int) bool { return key(w[i]) < key(w[j]) })\n"
    "\t\tt += len(w[0]) + int(C.twice(C.int(i&7)))\n"
    "\t}\n"
    "\tfmt.Println(t)\n"
    "}\n";

static void test_cgo_vs_perf(void **state)
{
        const char *dir = pg_test_sandbox();
        char src[4096], prog[4096], cmd[16384];
        const char *go = access("/usr/lib/go/bin/go", X_OK) == 0 ? "/usr/lib/go/bin/go"
                         : access("/usr/bin/go", X_OK) == 0      ? "/usr/bin/go"
                                                                 : NULL;

        (void) state;
        if (go == NULL || access("/usr/bin/gcc", X_OK) != 0)
                skip();
        snprintf(src, sizeof(src), "%s/m.go", dir);
        snprintf(prog, sizeof(prog), "%s/cgoprog", dir);
        pg_test_write(src, cgo_src);
        snprintf(cmd, sizeof(cmd),
                 "cd '%s' && GOCACHE='%s/cache' GOPATH='%s/gopath' GO111MODULE=off GOFLAGS= "
                 "CGO_ENABLED=1 '%s' build -o cgoprog m.go",
                 dir, dir, dir, go);
        assert_int_equal(system(cmd), 0);
        check_program(prog, "", 20, true);
}

/* a hot loop of iterator adapters, all inlined into sum_squares */
static const char adapter_src[] =
    "#[inline(never)]\n"
    "fn sum_squares(v: &[u64]) -> u64 {\n"
    "    v.iter().map(|x| x.wrapping_mul(*x) ^ (x >> 3)).filter(|x| x % 3 != 0)\n"
    "        .fold(0u64, |a, b| a.wrapping_add(b))\n"
    "}\n"
    "fn main() {\n"
    "    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200);\n"
    "    let v: Vec<u64> = (0..100_000u64).collect();\n"
    "    let mut t = 0u64;\n"
    "    for i in 0..n { t = t.wrapping_add(sum_squares(&v[..99_000 + i % 7])); }\n"
    "    println!(\"{}\", t);\n"
    "}\n";

/* The adapter program built with opt-level @opt; its path, or NULL without rustc. */
static const char *build_adapter(const char *opt)
{
        static char prog[4096];
        char src[4096], cmd[16384 + 64];

        if (access("/usr/bin/rustc", X_OK) != 0)
                return NULL;
        snprintf(src, sizeof(src), "%s/adapter.rs", pg_test_sandbox());
        snprintf(prog, sizeof(prog), "%s/adapter", pg_test_sandbox());
        pg_test_write(src, adapter_src);
        snprintf(cmd, sizeof(cmd),
                 "/usr/bin/rustc -C debuginfo=2 -C opt-level=%s -C force-frame-pointers=yes "
                 "-o '%s' '%s'",
                 opt, prog, src);
        assert_int_equal(system(cmd), 0);
        return prog;
}

static void test_adapter_vs_perf(void **state)
{
        const char *prog = build_adapter("3");

        (void) state;
        if (prog == NULL)
                skip();
        check_program(prog, "1500", 10, false); /* a tight loop: few addresses */
}

/*
 * Self and the hotspots name sum_squares, the function the adapters were
 * inlined into, not an adapter: the inlined frames are there, above it.
 */
static void test_adapter_self(void **state)
{
        const char *prog = build_adapter("2");
        char arg[] = "3000";
        char *argv[] = { NULL, arg, NULL };
        struct pg_sample_opts o = { .argv = argv,
                                    .freq_hz = 999,
                                    .call_graph = PG_CALL_GRAPH_FP,
                                    .timeout_ns = 120000000000ULL };
        struct pg_profile p = { 0 };
        struct pg_buf warn = PG_BUF_INIT;
        struct pg_hotspot_rule rule = { .threshold_pp = 1, .alpha = 0.01, .min_samples = 1 };
        struct pg_hotspots h;
        uint64_t self_sum = 0, adapters = 0;
        const struct pg_hotspot *top = NULL;

        (void) state;
        if (prog == NULL)
                skip();
        argv[0] = (char *) prog;
        if (pg_sample_profile(&o, &p, &warn) < 0)
                fail_msg("%s", pg_error_last());
        for (size_t i = 0; i < p.nstacks; i++) {
                const char *k = p.stacks[i].frames;
                size_t len, at = pg_frame_self(k, strlen(k), &len);

                if (len == strlen("adapter::sum_squares") &&
                    strncmp(k + at, "adapter::sum_squares", len) == 0)
                        self_sum += p.stacks[i].count;
                if (strstr(k, ";adapter::sum_squares;<core::iter::adapters::"))
                        adapters += p.stacks[i].count;
        }
        pg_hotspots_init(&h);
        pg_hotspots_compare(&p, &p, 0, 0, &rule, &h);
        for (size_t i = 0; i < h.n; i++)
                if (top == NULL || h.items[i].head_self > top->head_self)
                        top = &h.items[i];
        fprintf(stderr, "%llu samples: %llu under the adapters, %llu self in sum_squares\n",
                (unsigned long long) p.samples, (unsigned long long) adapters,
                (unsigned long long) self_sum);
        assert_true(adapters * 2 > p.samples);
        assert_true(self_sum * 2 > p.samples);
        assert_non_null(top);
        assert_string_equal(top->function, "adapter::sum_squares");
        assert_int_equal(top->head_self, self_sum);
        pg_hotspots_release(&h);
        pg_profile_release(&p);
        pg_buf_release(&warn);
        pg_test_sandbox_remove();
}

int main(void)
{
        /* perf 6.1's perf script --call-graph dwarf sometimes prints an
         * address's "(inlined)" lines without the symbol line after them (seen
         * in glibc and Rust std frames); those addresses are counted and left
         * out, not compared */
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rust_vs_perf),    cmocka_unit_test(test_cxx_vs_perf),
                cmocka_unit_test(test_go_vs_perf),      cmocka_unit_test(test_cgo_vs_perf),
                cmocka_unit_test(test_adapter_vs_perf), cmocka_unit_test(test_adapter_self),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
