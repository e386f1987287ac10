/*
 * manpage.c - turn the text `perfgate help [COMMAND]` prints into a man page
 * (roff with the man(7) macros), so that perfgate(1) and perfgate-CMD(1) are
 * generated from the same text as --help and cannot drift from it. A
 * build-time tool: packaging/man.cmake runs it for every command.
 *
 *   pg-manpage --name perfgate-compare --summary TEXT --version V --date D
 *              [--examples docs/compare.md] [--doc PATH] [--see-also PAGE]...
 *              < help.txt > perfgate-compare.1
 *
 * How the help text maps to sections (blocks are separated by blank lines):
 *   "usage:" lines                       SYNOPSIS
 *   "options:" or a block of "  -x ..."  OPTIONS (a tagged paragraph each)
 *   "commands:"                          COMMANDS
 *   "examples:"                          EXAMPLES (verbatim)
 *   "exit status: ..."                   EXIT STATUS
 *   anything else                        DESCRIPTION, in order: paragraphs of
 *                                        prose, two-column lists as tagged
 *                                        paragraphs, other indented text verbatim
 * Two-column lists are recognised the way they are written: a term, at least
 * two spaces, the description at one column, continuation lines indented to
 * that column. Without an "examples:" block, EXAMPLES is the first code block
 * under "## EXAMPLES" of the docs page given by --examples.
 *
 * Exit status: 0 written; 2 usage error, or a help text without "usage:";
 * 4 I/O error.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A growable string. */
struct buf {
        char *s;
        size_t n, cap;
};

static void *xrealloc(void *p, size_t n)
{
        p = realloc(p, n);
        if (!p) {
                fputs("pg-manpage: out of memory\n", stderr);
                exit(4);
        }
        return p;
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
        if (b->n + n + 1 > b->cap) {
                b->cap = (b->n + n + 1) * 2;
                b->s = xrealloc(b->s, b->cap);
        }
        memcpy(b->s + b->n, s, n);
        b->n += n;
        b->s[b->n] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
        buf_add(b, s, strlen(s));
}

/*
 * Append @n bytes of @s as roff text: backslashes as \e, hyphens as \- (so
 * options stay copyable), and a leading '.' or '\'' (a control line) guarded
 * by \&. @at_line_start: @s begins an output line.
 */
static void buf_roff(struct buf *b, const char *s, size_t n, bool at_line_start)
{
        for (size_t i = 0; i < n; i++) {
                if (i == 0 && at_line_start && (s[i] == '.' || s[i] == '\''))
                        buf_puts(b, "\\&");
                if (s[i] == '\\')
                        buf_puts(b, "\\e");
                else if (s[i] == '-')
                        buf_puts(b, "\\-");
                else
                        buf_add(b, s + i, 1);
        }
}

/*
 * buf_roff() for running text: a `code` span (Markdown's backticks, which the
 * help text uses for commands and file names) becomes bold instead of
 * showing its backticks. @in_code carries an open span from one line to the
 * next; end_code() closes it at the end of the paragraph.
 */
static void buf_roff_text(struct buf *b, const char *s, size_t n, bool at_line_start, bool *in_code)
{
        size_t from = 0;

        for (size_t i = 0; i <= n; i++) {
                if (i < n && s[i] != '`')
                        continue;
                buf_roff(b, s + from, i - from, at_line_start && from == 0);
                if (i < n) {
                        buf_puts(b, *in_code ? "\\fR" : "\\fB");
                        *in_code = !*in_code;
                }
                from = i + 1;
        }
}

static void end_code(struct buf *b, bool *in_code)
{
        if (*in_code)
                buf_puts(b, "\\fR");
        *in_code = false;
}

/* The input, split into lines (without their newlines). */
struct text {
        char **line;
        size_t n;
};

static int read_lines(FILE *f, struct text *t)
{
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;

        t->line = NULL;
        t->n = 0;
        while ((len = getline(&line, &cap, f)) >= 0) {
                while (len > 0 &&
                       (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
                        line[--len] = '\0';
                t->line = xrealloc(t->line, (t->n + 1) * sizeof(char *));
                t->line[t->n++] = strdup(line);
        }
        free(line);
        return ferror(f) ? -1 : 0;
}

static void text_free(struct text *t)
{
        for (size_t i = 0; i < t->n; i++)
                free(t->line[i]);
        free(t->line);
}

static size_t indent_of(const char *l)
{
        size_t i = 0;
        while (l[i] == ' ')
                i++;
        return i;
}

/* Column where the description starts after a term and a gap of two or more
 * spaces, or 0 when the line has no such gap. */
static size_t gap_column(const char *l)
{
        size_t i = indent_of(l);
        while (l[i]) {
                if (l[i] == ' ' && l[i + 1] == ' ') {
                        while (l[i] == ' ')
                                i++;
                        return l[i] ? i : 0;
                }
                i++;
        }
        return 0;
}

/* Whether the term of @l ends just before column @col and its description
 * starts there (one space is enough when the term fills the column). */
static bool splits_at(const char *l, size_t col)
{
        return indent_of(l) < col && strlen(l) > col && l[col - 1] == ' ' && l[col] != ' ';
}

/* The description column of a two-column block, or 0 when lines [a, b) are
 * not one: the most common gap column, with every line either a term (text
 * left of the column, gap exactly there or an option-only line) or a
 * continuation indented to the column, and at least one term with a gap. */
static size_t two_column(char **line, size_t a, size_t b)
{
        size_t best = 0, best_count = 0;

        for (size_t i = a; i < b; i++) {
                size_t g = gap_column(line[i]), count = 0;
                if (!g || indent_of(line[i]) >= g)
                        continue;
                for (size_t j = a; j < b; j++)
                        count += gap_column(line[j]) == g && indent_of(line[j]) < g;
                if (count > best_count) {
                        best = g;
                        best_count = count;
                }
        }
        if (!best)
                return 0;
        for (size_t i = a; i < b; i++) {
                size_t ind = indent_of(line[i]);
                if (ind == best)
                        continue; /* continuation */
                if (ind < best && (splits_at(line[i], best) || line[i][ind] == '-'))
                        continue; /* term */
                return 0;
        }
        return indent_of(line[a]) < best ? best : 0;
}

/* Append @term as a tag: words starting with '-' in bold (a trailing comma
 * plain), other words in italics when @args, else everything in bold. */
static void put_tag(struct buf *b, const char *term, bool args)
{
        const char *p = term;
        bool first = true;

        while (*p) {
                size_t n = strcspn(p, " ");
                size_t w = n;
                if (n) {
                        bool comma = p[n - 1] == ',';
                        if (comma)
                                w--;
                        buf_puts(b, !args || p[0] == '-' ? "\\fB" : "\\fI");
                        buf_roff(b, p, w, first);
                        buf_puts(b, "\\fR");
                        if (comma)
                                buf_puts(b, ",");
                        first = false;
                }
                p += n;
                if (*p == ' ') {
                        buf_puts(b, " ");
                        while (*p == ' ')
                                p++;
                }
        }
}

/* Emit the tagged paragraph head for @term (".TP" and the tag line). */
static void put_tp(struct buf *b, const struct buf *term, bool args)
{
        buf_puts(b, ".TP\n");
        put_tag(b, term->s, args);
        buf_puts(b, "\n");
}

/*
 * Lines [a, b) as tagged paragraphs (.TP), description column @col: a term
 * line starts an entry (consecutive term-only lines share one tag), its
 * description and continuation lines are the paragraph. @args: the terms
 * are options with argument names (put_tag()).
 */
static void put_two_column(struct buf *b, char **line, size_t a, size_t b_end, size_t col,
                           bool args)
{
        struct buf term = { 0 };
        bool pending = false; /* term collected, .TP not written yet */
        bool code = false;

        for (size_t i = a; i < b_end; i++) {
                const char *l = line[i];
                size_t ind = indent_of(l), len = strlen(l);
                if (ind != col) {
                        bool split = splits_at(l, col);
                        size_t end = split ? col : len;
                        while (end > ind && l[end - 1] == ' ')
                                end--;
                        if (pending) {
                                buf_puts(&term, " ");
                        } else {
                                term.n = 0;
                                buf_puts(&term, "");
                        }
                        buf_add(&term, l + ind, end - ind);
                        pending = true;
                        if (!split)
                                continue;
                        ind = col;
                }
                if (pending) {
                        end_code(b, &code);
                        put_tp(b, &term, args);
                        pending = false;
                }
                buf_roff_text(b, l + ind, len - ind, true, &code);
                buf_puts(b, "\n");
        }
        end_code(b, &code);
        if (pending)
                put_tp(b, &term, args);
        free(term.s);
}

/* Lines [a, b) verbatim (no filling), less their common indentation. */
static void put_verbatim(struct buf *b, char **line, size_t a, size_t b_end)
{
        size_t common = (size_t) -1;

        for (size_t i = a; i < b_end; i++)
                if (line[i][0] && indent_of(line[i]) < common)
                        common = indent_of(line[i]);
        buf_puts(b, ".PP\n.RS 4\n.nf\n");
        for (size_t i = a; i < b_end; i++) {
                const char *l = strlen(line[i]) > common ? line[i] + common : "";
                buf_roff(b, l, strlen(l), true);
                buf_puts(b, "\n");
        }
        buf_puts(b, ".fi\n.RE\n");
}

/* Lines [a, b) as one filled paragraph. */
static void put_prose(struct buf *b, char **line, size_t a, size_t b_end)
{
        bool code = false;

        buf_puts(b, ".PP\n");
        for (size_t i = a; i < b_end; i++) {
                const char *l = line[i] + indent_of(line[i]);
                buf_roff_text(b, l, strlen(l), true, &code);
                buf_puts(b, "\n");
        }
        end_code(b, &code);
}

/* Prose when every line starts at column 0 and has no two-space gap. */
static bool is_prose(char **line, size_t a, size_t b)
{
        for (size_t i = a; i < b; i++)
                if (indent_of(line[i]) || gap_column(line[i]))
                        return false;
        return true;
}

/* A header line such as "options:" or "examples:"; its name in @name. */
static bool is_header(const char *l, char *name, size_t size)
{
        size_t n = strlen(l);
        if (n < 2 || n >= size || l[n - 1] != ':' || !islower((unsigned char) l[0]))
                return false;
        for (size_t i = 0; i + 1 < n; i++)
                if (!islower((unsigned char) l[i]) && l[i] != ' ')
                        return false;
        memcpy(name, l, n - 1);
        name[n - 1] = '\0';
        return true;
}

/* The synopsis: "usage: perfgate cmd [x]" and its aligned continuation lines,
 * with "perfgate" and the subcommand words in bold. */
static void put_synopsis(struct buf *b, char **line, size_t a, size_t b_end)
{
        buf_puts(b, ".nf\n");
        for (size_t i = a; i < b_end; i++) {
                const char *l = line[i];
                if (strncmp(l, "usage:", 6) == 0)
                        l += 6;
                l += indent_of(l);
                size_t bold = 0;
                if (strncmp(l, "perfgate", 8) == 0) {
                        bold = 8;
                        while (l[bold] == ' ' && islower((unsigned char) l[bold + 1])) {
                                size_t w = bold + 1;
                                while (islower((unsigned char) l[w]) || l[w] == '-')
                                        w++;
                                if (l[w] && l[w] != ' ')
                                        break;
                                bold = w;
                        }
                }
                buf_puts(b, "\\fB");
                buf_roff(b, l, bold, true);
                buf_puts(b, "\\fR");
                buf_roff(b, l + bold, strlen(l + bold), false);
                buf_puts(b, "\n");
        }
        buf_puts(b, ".fi\n");
}

/* The first fenced code block under "## EXAMPLES" of the Markdown page @path,
 * as verbatim text in @b. Returns -1 when the file cannot be read. */
static int put_doc_examples(struct buf *b, const char *path)
{
        FILE *f = fopen(path, "r");
        struct text t;
        size_t i = 0, a;

        if (!f)
                return -1;
        if (read_lines(f, &t) < 0) {
                text_free(&t);
                fclose(f);
                return -1;
        }
        fclose(f);
        while (i < t.n && strncasecmp(t.line[i], "## examples", 11) != 0)
                i++;
        while (i < t.n && strncmp(t.line[i], "```", 3) != 0)
                i++;
        a = ++i;
        while (i < t.n && strncmp(t.line[i], "```", 3) != 0)
                i++;
        if (i < t.n && i > a)
                put_verbatim(b, t.line, a, i);
        text_free(&t);
        return 0;
}

/* Append section @title holding @body, unless @body is empty. */
static void put_section(struct buf *out, const char *title, const struct buf *body)
{
        if (!body->n)
                return;
        buf_puts(out, ".SH ");
        buf_puts(out, title);
        buf_puts(out, "\n");
        buf_add(out, body->s, body->n);
}

static void usage(void)
{
        fputs("usage: pg-manpage --name NAME --summary TEXT --version V --date YYYY-MM-DD\n"
              "                  [--examples DOC.md] [--doc PATH] [--see-also PAGE(N)]...\n"
              "                  < help.txt > NAME.1\n",
              stderr);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "name", required_argument, NULL, 'n' },
                { "summary", required_argument, NULL, 's' },
                { "version", required_argument, NULL, 'v' },
                { "date", required_argument, NULL, 'd' },
                { "examples", required_argument, NULL, 'e' },
                { "doc", required_argument, NULL, 'D' },
                { "see-also", required_argument, NULL, 'a' },
                { NULL, 0, NULL, 0 },
        };
        const char *name = NULL, *summary = NULL, *version = NULL, *date = NULL;
        const char *examples = NULL, *doc = NULL;
        char **see = NULL;
        size_t nsee = 0;
        struct buf syn = { 0 }, desc = { 0 }, cmds = { 0 }, opt = { 0 }, ex = { 0 }, st = { 0 };
        struct buf out = { 0 };
        struct text t;
        int c, status = 0;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'n':
                        name = optarg;
                        break;
                case 's':
                        summary = optarg;
                        break;
                case 'v':
                        version = optarg;
                        break;
                case 'd':
                        date = optarg;
                        break;
                case 'e':
                        examples = optarg;
                        break;
                case 'D':
                        doc = optarg;
                        break;
                case 'a':
                        see = xrealloc(see, (nsee + 1) * sizeof(char *));
                        see[nsee++] = optarg;
                        break;
                default:
                        usage();
                        free(see);
                        return 2;
                }
        }
        if (!name || !summary || !version || !date || optind != argc) {
                usage();
                free(see);
                return 2;
        }
        if (read_lines(stdin, &t) < 0) {
                fprintf(stderr, "pg-manpage: cannot read the help text: %s\n", strerror(errno));
                status = 4;
                goto done;
        }

        for (size_t i = 0; i < t.n;) {
                size_t a, b;
                char header[32] = "";
                while (i < t.n && !t.line[i][0])
                        i++;
                if (i == t.n)
                        break;
                a = i;
                while (i < t.n && t.line[i][0])
                        i++;
                b = i;
                if (strncmp(t.line[a], "usage:", 6) == 0) {
                        put_synopsis(&syn, t.line, a, b);
                        continue;
                }
                if (strncasecmp(t.line[a], "exit status:", 12) == 0) {
                        const char *first = t.line[a] + 12;
                        bool code = false;
                        first += indent_of(first);
                        buf_puts(&st, ".PP\n");
                        buf_roff_text(&st, first, strlen(first), true, &code);
                        buf_puts(&st, "\n");
                        for (size_t k = a + 1; k < b; k++) {
                                const char *l = t.line[k] + indent_of(t.line[k]);
                                buf_roff_text(&st, l, strlen(l), true, &code);
                                buf_puts(&st, "\n");
                        }
                        end_code(&st, &code);
                        continue;
                }
                if (is_header(t.line[a], header, sizeof(header)))
                        a++;
                if (a == b)
                        continue;
                size_t col = two_column(t.line, a, b);
                if (strcmp(header, "examples") == 0)
                        put_verbatim(&ex, t.line, a, b);
                else if (col && strcmp(header, "commands") == 0)
                        put_two_column(&cmds, t.line, a, b, col, false);
                else if (col &&
                         (strcmp(header, "options") == 0 || t.line[a][indent_of(t.line[a])] == '-'))
                        put_two_column(&opt, t.line, a, b, col, true);
                else if (col)
                        put_two_column(&desc, t.line, a, b, col, false);
                else if (is_prose(t.line, a, b))
                        put_prose(&desc, t.line, a, b);
                else
                        put_verbatim(&desc, t.line, a, b);
        }
        if (!syn.n) {
                fputs("pg-manpage: the help text has no 'usage:' line\n", stderr);
                status = 2;
                goto done;
        }
        if (!ex.n && examples && put_doc_examples(&ex, examples) < 0) {
                fprintf(stderr, "pg-manpage: %s: %s\n", examples, strerror(errno));
                status = 4;
                goto done;
        }

        buf_puts(&out, ".\\\" generated by pg-manpage from `");
        buf_puts(&out, name);
        buf_puts(&out, " --help`; edit the help text in cli/, not this page\n");
        buf_puts(&out, ".TH \"");
        for (const char *p = name; *p; p++) {
                char u = (char) toupper((unsigned char) *p);
                buf_roff(&out, &u, 1, false);
        }
        buf_puts(&out, "\" 1 \"");
        buf_puts(&out, date);
        buf_puts(&out, "\" \"perfgate ");
        buf_roff(&out, version, strlen(version), false);
        buf_puts(&out, "\" \"perfgate manual\"\n.nh\n.ad l\n.SH NAME\n");
        buf_roff(&out, name, strlen(name), true);
        buf_puts(&out, " \\- ");
        buf_roff(&out, summary, strlen(summary), false);
        buf_puts(&out, "\n.SH SYNOPSIS\n");
        buf_add(&out, syn.s, syn.n);
        put_section(&out, "DESCRIPTION", &desc);
        put_section(&out, "COMMANDS", &cmds);
        put_section(&out, "OPTIONS", &opt);
        put_section(&out, "EXIT STATUS", &st);
        put_section(&out, "EXAMPLES", &ex);
        if (nsee || doc) {
                buf_puts(&out, ".SH SEE ALSO\n");
                for (size_t i = 0; i < nsee; i++) {
                        const char *paren = strchr(see[i], '(');
                        size_t n = paren ? (size_t) (paren - see[i]) : strlen(see[i]);
                        buf_puts(&out, "\\fB");
                        buf_roff(&out, see[i], n, i == 0);
                        buf_puts(&out, "\\fR");
                        buf_roff(&out, see[i] + n, strlen(see[i] + n), false);
                        buf_puts(&out, i + 1 < nsee ? ",\n" : "\n");
                }
                if (doc) {
                        buf_puts(&out, ".PP\nThe full reference: \\fI");
                        buf_roff(&out, doc, strlen(doc), false);
                        buf_puts(&out, "\\fR.\n");
                }
        }
        if (fwrite(out.s, 1, out.n, stdout) != out.n || fflush(stdout) != 0) {
                fprintf(stderr, "pg-manpage: cannot write the page: %s\n", strerror(errno));
                status = 4;
        }
done:
        text_free(&t);
        free(see);
        free(syn.s);
        free(desc.s);
        free(cmds.s);
        free(opt.s);
        free(ex.s);
        free(st.s);
        free(out.s);
        return status;
}
