/*
 * cli.h - what the subcommands share: the command table entry, error
 * printing that maps PG_E* codes to exit statuses (DESIGN.md section 2),
 * colour policy and progress output. cli/ is the only code that prints or
 * exits; each subcommand lives in cmd_<name>.c and returns an exit status.
 */
#ifndef PG_CLI_CLI_H
#define PG_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct pg_command {
        const char *name;
        int (*fn)(int argc, char **argv); /* argv[0] is the command name; returns exit status */
        const char *summary;              /* one line for `perfgate help` */
        const char *usage;                /* full --help text */
};

/* Each subcommand's entry point and --help text (cmd_<name>.c). */
#define PG_DECLARE_COMMAND(n)                                                                      \
        int cmd_##n(int argc, char **argv);                                                        \
        extern const char pg_usage_##n[]

PG_DECLARE_COMMAND(run);
PG_DECLARE_COMMAND(compare);
PG_DECLARE_COMMAND(baseline);
PG_DECLARE_COMMAND(assets);
PG_DECLARE_COMMAND(show);
PG_DECLARE_COMMAND(flamegraph);
PG_DECLARE_COMMAND(diff);
PG_DECLARE_COMMAND(fold);
PG_DECLARE_COMMAND(doctor);
PG_DECLARE_COMMAND(history);
PG_DECLARE_COMMAND(bisect);
PG_DECLARE_COMMAND(record);
PG_DECLARE_COMMAND(annotate);
PG_DECLARE_COMMAND(top);

/**
 * perfgate's exact version, e.g. "0.2.0" on a release tag or
 * "0.2.0+5.gabc1234" five commits after it: `git describe` at build time,
 * else the release tarball's packaging/archival.txt, else the VERSION file
 * (packaging/version.cmake generates the definition).
 */
extern const char pg_version[];

/** The command table (NULL-terminated by name). */
extern const struct pg_command pg_commands[];

/** Look up a command by name; NULL when unknown. */
const struct pg_command *pg_command_find(const char *name);

/**
 * Print "perfgate: error: <pg_error_last()>" to stderr and return the exit
 * status for @code (pg_exit_status()).
 */
int pg_cli_fail(int code);

/**
 * Print "perfgate: error: <message>" and "see 'perfgate help <cmd>'" and
 * return PG_EXIT_USAGE (2).
 */
int pg_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Print "perfgate: error: <message>" to stderr, control bytes but newline
 * shown as \xNN; the caller decides the exit status.
 */
void pg_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct pg_buf;

/**
 * Append @s (NUL-terminated text from a repository: a commit subject, a
 * data-branch entry name) to @out as it may be shown on a terminal:
 * invalid UTF-8 as U+FFFD, control bytes as \n \t \r \xNN, bidi controls
 * (U+202A..U+202E, U+2066..U+2069) as \uXXXX (docs/limits.md, "Names").
 * At most @max_bytes of @s are shown, then "... (N more bytes)" (cli/text.c).
 */
void pg_cli_text(struct pg_buf *out, const char *s, size_t max_bytes);

/**
 * End a progress line drawn in place on a terminal (stderr): when
 * *@line_open, write "\r" and the erase-line sequence, and clear it. The
 * progress of `run` and `compare --calibrate` uses it before any other line.
 */
void pg_cli_end_line(bool *line_open);

/** Print "perfgate: warning: <message>" to stderr (control bytes as for errors). */
void pg_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** pg_cli_warn() for each non-empty line of @text (NULL: nothing). */
void pg_cli_warn_lines(const char *text);

/** Whether @fd is a terminal and colour is allowed (NO_COLOR unset, TERM not dumb). */
bool pg_cli_color(int fd);

/**
 * Handle -h/--help for a subcommand: if argv has it, print @usage to stdout
 * and return true (the caller returns 0).
 */
bool pg_cli_wants_help(int argc, char **argv, const char *usage);

/**
 * Parse @s as a whole decimal number in [@min, @max] into *@out; false
 * when it is not one (empty, a sign, other characters, out of range).
 */
bool pg_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * The sampling options `run`, `record` and `top` share: parse a --freq
 * value (1 to 1000000 Hz) into *@hz, or a --call-graph value ("fp" -> 0,
 * PG_CALL_GRAPH_FP; "dwarf" -> 1, PG_CALL_GRAPH_DWARF; runner/sample.h) into
 * *@mode. Return 0, or print the usage error for command @cmd and return
 * PG_EXIT_USAGE.
 */
int pg_cli_freq_arg(const char *cmd, const char *arg, uint64_t *hz);
int pg_cli_call_graph_arg(const char *cmd, const char *arg, int *mode);

struct pg_rules;

/**
 * Load the judging rules into @rules (initialised by the caller with
 * pg_rules_init()) from perfgate.json's "compare" section: @path, or when
 * NULL the first of ./perfgate.json and bench/perfgate.json that exists
 * (none: @rules keeps the defaults). @base, @build: when not NULL, set to
 * the config's "base" and "build" (owned) if it has them; @used_path: when
 * not NULL, set to the file read (owned; untouched when none was).
 * Errors: PG_ENOTFOUND (@path does not exist), PG_EINPUT (invalid config),
 * PG_EIO.
 */
int pg_cli_load_rules(const char *path, struct pg_rules *rules, char **base, char **build,
                      char **used_path);

struct pg_result;
struct pg_flame_opts;
struct pg_buf;

/**
 * Parse the drawing options shared by `flamegraph` and `diff` (--title
 * --subtitle --width --height --minwidth --countname --colors --max-depth
 * --noise-floor --inverted --reverse --negate, -o/--output) into @o and
 * *output (NULL: stdout). --off-cpu sets *off_cpu (the inputs' off-CPU
 * profiles are drawn) and, unless given, the title "Off-CPU Time Flame
 * Graph", --countname ns and --colors io (FlameGraph's off-CPU
 * conventions, flamegraph.pl). Returns the index of the first operand, or
 * -PG_EXIT_USAGE after printing the usage error for @cmd.
 */
int pg_cli_flame_options(const char *cmd, int argc, char **argv, struct pg_flame_opts *o,
                         bool *off_cpu, const char **output);

/**
 * Write @data to @path atomically, or to stdout when @path is NULL or "-".
 * Errors: PG_EIO; PG_EINPUT when stdout is a terminal (an SVG there is noise).
 */
int pg_cli_write_output(const char *path, const struct pg_buf *data);

/**
 * Print @r as `perfgate show` does (perf stat -d -d style counter table,
 * then the hotspot list when it has a profile) to @f; used by `show` and
 * `baseline show`. @color: ANSI colours allowed.
 */
void pg_cli_print_result(FILE *f, const struct pg_result *r, bool color);

#endif
