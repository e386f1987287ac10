/*
 * cmd_annotate.c - `perfgate annotate RESULT FUNCTION`: a function's own
 * samples by source line (hottest first, with the source text when the file
 * is found) and by instruction (disassembled), each with its share of the
 * function's samples, like `perf annotate --stdio` (runner/annotate.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines/result.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/annotate.h"

const char pg_usage_annotate[] =
    "usage: perfgate annotate [options] RESULT FUNCTION\n"
    "\n"
    "Show where FUNCTION spent its own samples in RESULT (written by 'perfgate\n"
    "run' or 'perfgate record'): its source lines, hottest first, from the DWARF\n"
    "line table, with the source text when the file is found; then its\n"
    "instructions, disassembled, each with its share of the function's samples,\n"
    "like 'perf annotate --stdio'. The binary must be the build that was\n"
    "recorded, at the path it ran from. FUNCTION may be a symbol's mangled name\n"
    "(as nm prints it), to pick one of the C++ overloads or Rust generic\n"
    "instances that share a name; by the shared name, the one with the most\n"
    "samples is shown, and a warning lists the others.\n"
    "\n"
    "options:\n"
    "  --source-dir DIR   look for source files under DIR too (by their path\n"
    "                     in the line table, then by shorter tails of it)\n"
    "  --debug-dir DIR    also look for separate debuginfo under DIR (by build-id)\n"
    "  -h, --help         this text\n"
    "\n"
    "exit status: 0 shown; 2 usage error, a missing or invalid result, a\n"
    "function without samples of its own in it (near names are listed) or a\n"
    "kernel function, or a binary rebuilt since the recording (its build-id\n"
    "differs); 4 the binary cannot be read, or it is stripped and no separate\n"
    "debuginfo was found\n"
    "\n"
    "examples:\n"
    "  perfgate annotate .perfgate/results/wordfreq.json count_words\n"
    "  perfgate annotate --source-dir ~/src/app svc.json parse_request\n";

enum { OPT_SOURCE_DIR = 256, OPT_DEBUG_DIR };

static const struct option pg_annotate_options[] = {
        { "source-dir", required_argument, NULL, OPT_SOURCE_DIR },
        { "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

/*
 * Source files are named by the binary's line table or found under
 * --source-dir: whoever built the benchmark controls them. Only regular files
 * of at most this size are read (docs/limits.md); others are shown without
 * their text.
 */
#define PG_ANNOTATE_SOURCE_MAX ((size_t) 64 << 20)

/* Lines indexed per entry of pg_src.starts: a file of newlines costs
 * 1/PG_SRC_STRIDE of an offset per line, a lookup scans under that many. */
#define PG_SRC_STRIDE 256

/* One source file's lines, read once. */
struct pg_src {
        const char *file;     /* as the line table names it (borrowed) */
        const char *comp_dir; /* its compile unit's directory when relative, or NULL */
        struct pg_buf text;
        size_t nlines;
        size_t *starts; /* offset of line 1 + k * PG_SRC_STRIDE */
        char *why;      /* NULL, or why a file that exists was not read */
        bool found;
};

/* Read @path into @s, or keep the first reason it was refused in s->why. */
static bool pg_src_try(struct pg_src *s, const char *path)
{
        int error = pg_read_regular_file(path, PG_ANNOTATE_SOURCE_MAX, &s->text);

        if (error == 0)
                return true;
        if (!s->why && error != PG_ENOTFOUND)
                s->why = pg_xstrdup(pg_error_last());
        return false;
}

/* Read @file: under @dir by each tail of its path, else (a relative @file)
 * under its compile unit's directory @comp_dir, as perf annotate and gdb
 * look for it, else as named (from the cwd). */
static void pg_src_load(struct pg_src *s, const char *file, const char *comp_dir, const char *dir)
{
        char *path = NULL;

        s->file = file;
        s->comp_dir = comp_dir;
        pg_buf_init(&s->text);
        if (dir) {
                for (const char *t = file; t && *t && !s->found; t = strchr(t + 1, '/')) {
                        path = pg_path_join(dir, *t == '/' ? t + 1 : t);
                        s->found = pg_src_try(s, path);
                        free(path);
                }
        }
        if (!s->found && comp_dir && file[0] != '/') {
                path = pg_path_join(comp_dir, file);
                s->found = pg_src_try(s, path);
                free(path);
        }
        if (!s->found)
                s->found = pg_src_try(s, file);
        if (!s->found)
                return;
        s->starts = pg_xcalloc(1, sizeof(*s->starts));
        s->nlines = 1;
        for (size_t i = 0; i < s->text.len; i++)
                if (s->text.ptr[i] == '\n' && i + 1 < s->text.len) {
                        if (s->nlines % PG_SRC_STRIDE == 0) {
                                s->starts = pg_xreallocarray(
                                    s->starts, s->nlines / PG_SRC_STRIDE + 1, sizeof(*s->starts));
                                s->starts[s->nlines / PG_SRC_STRIDE] = i + 1;
                        }
                        s->nlines++;
                }
}

/* Line @n (1-based) of @s, without leading blanks; "" when absent. */
static void pg_src_line(const struct pg_src *s, uint64_t n, char *out, size_t cap)
{
        const char *p, *e, *end;
        size_t len;

        out[0] = '\0';
        if (!s->found || n == 0 || n > s->nlines)
                return;
        end = s->text.ptr + s->text.len;
        p = s->text.ptr + s->starts[(n - 1) / PG_SRC_STRIDE];
        for (uint64_t k = (n - 1) % PG_SRC_STRIDE; k; k--)
                p = (const char *) memchr(p, '\n', (size_t) (end - p)) + 1;
        e = memchr(p, '\n', (size_t) (end - p));
        len = e ? (size_t) (e - p) : (size_t) (end - p);
        while (len && (*p == ' ' || *p == '\t'))
                p++, len--;
        if (len >= cap)
                len = cap - 1;
        for (size_t i = 0; i < len; i++)
                out[i] = (p[i] >= 0x20 && p[i] != 0x7f) || (p[i] & 0x80) ? p[i] : ' ';
        out[len] = '\0';
}

/* The source of @file in @srcs, loaded on first use. */
static const struct pg_src *pg_src_of(struct pg_src *srcs, size_t *nsrcs,
                                      const struct pg_annot_line *l, const char *dir)
{
        for (size_t k = 0; k < *nsrcs; k++)
                if (strcmp(srcs[k].file, l->file) == 0 &&
                    strcmp(srcs[k].comp_dir ? srcs[k].comp_dir : "",
                           l->comp_dir ? l->comp_dir : "") == 0)
                        return &srcs[k];
        pg_src_load(&srcs[*nsrcs], l->file, l->comp_dir, dir);
        return &srcs[(*nsrcs)++];
}

static void pg_print_annotation(const struct pg_annotation *a, const char *source_dir)
{
        struct pg_src *srcs = pg_xcalloc(a->nlines ? a->nlines : 1, sizeof(*srcs));
        size_t nsrcs = 0;
        double total = (double) a->samples;
        char text[160];
        bool missing = false;

        printf(" Percent | Source lines of %s (%s): %llu samples\n",
               a->nsymbols > 1 ? a->symbols[a->chosen].signature : a->function, a->module,
               (unsigned long long) a->samples);
        puts("---------+----------------------------------------------------------------------");
        for (size_t i = 0; i < a->nlines; i++) {
                const struct pg_src *s;

                if (a->lines[i].count == 0)
                        continue;
                s = pg_src_of(srcs, &nsrcs, &a->lines[i], source_dir);
                missing = missing || (!s->found && !s->why);
                pg_src_line(s, a->lines[i].line, text, sizeof(text));
                printf(" %6.2f%% | %s:%llu%s%s\n", 100.0 * (double) a->lines[i].count / total,
                       pg_basename(a->lines[i].file), (unsigned long long) a->lines[i].line,
                       text[0] ? "    " : "", text);
        }
        if (a->no_line)
                printf(" %6.2f%% | (no line table entry)\n", 100.0 * (double) a->no_line / total);
        if (a->outside && a->outside_symbol)
                printf(" %6.2f%% | (in another symbol of this name, not shown: %s)\n",
                       100.0 * (double) a->outside / total, a->outside_symbol);
        else if (a->outside)
                printf(" %6.2f%% | (outside the function in this file: was it rebuilt?)\n",
                       100.0 * (double) a->outside / total);
        if (missing)
                printf("         | (source not found: use --source-dir DIR)\n");
        printf("\n Percent | Instructions of %s [%llx, %llx)\n", a->function,
               (unsigned long long) a->start, (unsigned long long) a->end);
        puts("---------+----------------------------------------------------------------------");
        if (a->disasm_error)
                printf("         | (%s)\n", a->disasm_error);
        for (size_t i = 0; i < a->ninsns; i++) {
                const struct pg_annot_insn *in = &a->insns[i];

                if (in->count)
                        printf(" %6.2f%% |", 100.0 * (double) in->count / total);
                else
                        printf("         |");
                printf(" %8llx:  %-40s", (unsigned long long) in->addr, in->text);
                if (in->line)
                        printf("  %s:%llu", pg_basename(a->lines[in->line - 1].file),
                               (unsigned long long) a->lines[in->line - 1].line);
                putchar('\n');
        }
        for (size_t i = 0; i < nsrcs; i++) {
                if (srcs[i].why)
                        pg_cli_warn("the text of '%s' is not shown: %s", pg_basename(srcs[i].file),
                                    srcs[i].why);
                free(srcs[i].why);
                pg_buf_release(&srcs[i].text);
                free(srcs[i].starts);
        }
        free(srcs);
}

int cmd_annotate(int argc, char **argv)
{
        const char *source_dir = NULL, *debug_dir = NULL, *argv_debug_dir = NULL;
        char *real_debug_dir = NULL;
        struct pg_result r;
        struct pg_annotation a;
        int c, error, status = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_annotate))
                return 0;
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", pg_annotate_options, NULL)) != -1) {
                switch (c) {
                case OPT_SOURCE_DIR:
                        source_dir = optarg;
                        break;
                case OPT_DEBUG_DIR:
                        debug_dir = argv_debug_dir = optarg;
                        break;
                case ':':
                        return pg_cli_usage_error("annotate", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("annotate", "unknown option '%s'",
                                                  argv[optind - 1]);
                }
        }
        if (argc - optind != 2)
                return pg_cli_usage_error("annotate", "give a result file and a function name");
        /* libdwfl reads a relative debuginfo_path entry as relative to the
         * binary's directory and never searches it by build-id */
        if (debug_dir && !(debug_dir = real_debug_dir = realpath(debug_dir, NULL)))
                return pg_cli_usage_error("annotate", "--debug-dir '%s': %s", argv_debug_dir,
                                          strerror(errno));
        pg_result_init(&r);
        if ((error = pg_result_load(&r, argv[optind])) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if (!r.profile.present) {
                pg_cli_error("'%s' has no profile (it was measured with --no-profile)",
                             argv[optind]);
                status = PG_EXIT_USAGE;
                goto done;
        }
        if ((error = pg_annotate(&r.profile, argv[optind + 1], debug_dir, &a)) < 0) {
                status = pg_cli_fail(error == PG_EIO ? PG_EIO : error);
                goto done;
        }
        if (a.warning)
                pg_cli_warn("%s", a.warning);
        if (a.nsymbols > 1 && !a.selected) {
                /* overloads, generics: say which one is shown and how to pick another */
                struct pg_buf list = PG_BUF_INIT;

                pg_annotation_list_symbols(&list, &a, true);
                pg_cli_warn("'%s' is %zu symbols with samples in '%s'; the one with the most is "
                            "shown; give another's mangled name to annotate it:%s",
                            a.function, a.nsymbols, a.module, list.ptr);
                pg_buf_release(&list);
        }
        pg_print_annotation(&a, source_dir);
        pg_annotation_release(&a);
done:
        free(real_debug_dir);
        pg_result_release(&r);
        return status;
}
