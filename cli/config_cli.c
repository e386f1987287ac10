/*
 * config_cli.c - the perfgate.json the judging commands (`compare`,
 * `history`) read their rules from: an explicit --config FILE, else the
 * first of ./perfgate.json and bench/perfgate.json that exists, else none
 * (the built-in defaults of docs/compare.md).
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "baselines/config.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/rules.h"

static int pg_is_regular(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int pg_cli_load_rules(const char *path, struct pg_rules *rules, char **base, char **build,
                      char **used_path)
{
        static const char *const defaults[] = { "perfgate.json", "bench/perfgate.json" };
        struct pg_buf text = PG_BUF_INIT;
        struct pg_config c;
        int error;

        if (!path) {
                for (size_t i = 0; i < 2 && !path; i++)
                        if (pg_is_regular(defaults[i]))
                                path = defaults[i];
                if (!path)
                        return 0;
        }
        if ((error = pg_read_input(path, "perfgate.json file", &text)) < 0) {
                pg_buf_release(&text);
                if (error == PG_ENOTFOUND)
                        return pg_error_set(PG_ENOTFOUND, "config '%s' does not exist", path);
                return pg_error_prefix(error, "cannot read config '%s'", path);
        }
        error = pg_config_parse_for(&c, text.ptr, text.len, path, PG_CONFIG_NEED_SETTINGS);
        pg_buf_release(&text);
        if (error < 0)
                return error;
        if (c.base && base)
                *base = pg_xstrdup(c.base);
        if (c.build && build)
                *build = pg_xstrdup(c.build);
        if (used_path)
                *used_path = pg_xstrdup(path);
        error = pg_rules_load(rules, c.compare, path);
        pg_config_release(&c);
        return error;
}
