/*
 * safedir.c - git's ownership rule for a repository another user owns
 * (safedir.h): git 2.39's setup.c (ensure_valid_ownership,
 * safe_directory_cb, read_very_early_config), config.c
 * (git_config_from_parameters, parse_config_env_list), quote.c
 * (sq_dequote_step), path.c (interpolate_path) and git-compat-util.h
 * (is_path_owned_by_current_uid, extract_id_from_env); git-config(1),
 * "ENVIRONMENT" and "safe.directory".
 */
#include "baselines/safedir.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/store_git.h"
#include "common/buf.h"
#include "common/error.h"

/* the repository's path as git compares it, and the verdict so far */
struct pg_sd {
        const char *path;
        bool safe;
};

/* is_path_owned_by_current_uid(): root owns what root owns, and otherwise
 * stands for the user in $SUDO_UID when that is a whole decimal number */
static bool pg_sd_owned(const char *path)
{
        uid_t euid = geteuid();
        struct stat st;

        if (lstat(path, &st) != 0)
                return false;
        if (euid == 0) {
                const char *sudo = getenv("SUDO_UID");
                if (st.st_uid == 0)
                        return true;
                if (sudo && *sudo) {
                        char *end = NULL;
                        unsigned long id;
                        errno = 0;
                        id = strtoul(sudo, &end, 10);
                        if (*end == '\0' && errno == 0)
                                euid = (uid_t) id;
                }
        }
        return st.st_uid == euid;
}

/* interpolate_path() without "%(prefix)/": "~" and "~/..." from $HOME,
 * "~user/..." from the password database; NULL where git gives up */
static char *pg_sd_expand(const char *value)
{
        const char *slash, *home;
        char *user;
        struct passwd *pw;

        if (value[0] != '~')
                return pg_xstrdup(value);
        slash = strchr(value, '/');
        if (slash == NULL)
                slash = value + strlen(value);
        if (slash == value + 1) {
                home = getenv("HOME");
                return home ? pg_xasprintf("%s%s", home, slash) : NULL;
        }
        user = pg_xasprintf("%.*s", (int) (slash - value - 1), value + 1);
        pw = getpwnam(user);
        free(user);
        return pw ? pg_xasprintf("%s%s", pw->pw_dir, slash) : NULL;
}

/* safe_directory_cb() for one value (NULL: a key with no '=') */
static void pg_sd_value(struct pg_sd *d, const char *value)
{
        char *path;

        if (value == NULL || *value == '\0') {
                d->safe = false;
        } else if (strcmp(value, "*") == 0) {
                d->safe = true;
        } else if ((path = pg_sd_expand(value)) != NULL) {
                if (strcmp(path, d->path) == 0)
                        d->safe = true;
                free(path);
        }
}

static int pg_sd_cb(const git_config_entry *e, void *payload)
{
        pg_sd_value(payload, e->value);
        return 0;
}

/* One configuration file (with its includes), its values in file order. */
static int pg_sd_file(struct pg_sd *d, const char *file)
{
        git_config *cfg = NULL;
        int rc;

        /* access_or_die(..., ACCESS_EACCES_OK): a file that is missing or
         * that this user cannot read is skipped */
        if (file == NULL || *file == '\0' || access(file, R_OK) != 0)
                return 0;
        if (git_config_open_ondisk(&cfg, file) < 0)
                return pg_git_err(PG_EINPUT, "cannot read the git configuration '%s'", file);
        rc = git_config_get_multivar_foreach(cfg, "safe.directory", NULL, pg_sd_cb, d);
        git_config_free(cfg);
        git_error_clear();
        if (rc < 0 && rc != GIT_ENOTFOUND)
                return pg_error_set(PG_EINPUT, "cannot read the git configuration '%s'", file);
        return 0;
}

/* git_env_bool(): unset is false; git's boolean words, or a number */
static bool pg_sd_env_bool(const char *name)
{
        const char *v = getenv(name);
        char *end = NULL;
        long n;

        if (v == NULL)
                return false;
        if (!*v || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
                return false;
        if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
                return true;
        n = strtol(v, &end, 10);
        return *end != '\0' || n != 0; /* git dies on other words: taken as set */
}

/* One command-line pair (config_parse_pair()): the key's section and name
 * compare without case; a key without a section is an error */
static int pg_sd_pair(struct pg_sd *d, const char *key, const char *value, const char *from)
{
        const char *dot = strchr(key, '.'), *last = strrchr(key, '.');

        if (dot == NULL || dot == key || last[1] == '\0')
                return pg_error_set(PG_EINPUT,
                                    "%s names the git configuration key '%s', which has no "
                                    "section or name; git refuses to run with it",
                                    from, key);
        if (dot == last && strcasecmp(key, "safe.directory") == 0)
                pg_sd_value(d, value);
        return 0;
}

/* $GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> */
static int pg_sd_count(struct pg_sd *d)
{
        const char *env = getenv("GIT_CONFIG_COUNT");
        unsigned long count;
        char *end = NULL;
        int error = 0;

        if (env == NULL)
                return 0;
        errno = 0;
        count = strtoul(env, &end, 10);
        if (*end != '\0' || errno != 0 || count > INT_MAX)
                return pg_error_set(PG_EINPUT,
                                    "GIT_CONFIG_COUNT='%s' is not a count; git refuses to run "
                                    "with it (unset it, or give the number of "
                                    "GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> pairs)",
                                    env);
        for (unsigned long i = 0; i < count && error == 0; i++) {
                char *kname = pg_xasprintf("GIT_CONFIG_KEY_%lu", i);
                char *vname = pg_xasprintf("GIT_CONFIG_VALUE_%lu", i);
                const char *key = getenv(kname), *value = getenv(vname);
                if (key == NULL || value == NULL)
                        error = pg_error_set(PG_EINPUT,
                                             "GIT_CONFIG_COUNT=%lu but %s is not set; git "
                                             "refuses to run with it",
                                             count, key ? vname : kname);
                else
                        error = pg_sd_pair(d, key, value, kname);
                free(kname);
                free(vname);
        }
        return error;
}

/* sq_dequote_step(): one single-quoted word at *@at, in place; outside the
 * quotes only \' and \! between two quoted parts. NULL when malformed;
 * *@at is then the rest (NULL at the end). */
static char *pg_sd_sq_word(char **at)
{
        char *src = *at, *dst = *at, *word = *at;

        if (*src != '\'')
                return NULL;
        for (;;) {
                char c = *++src;
                if (c == '\0')
                        return NULL;
                if (c != '\'') {
                        *dst++ = c;
                        continue;
                }
                c = *++src;
                if (c == '\0') {
                        *dst = '\0';
                        *at = NULL;
                        return word;
                }
                if (c == '\\' && (src[1] == '\'' || src[1] == '!') && src[2] == '\'') {
                        *dst++ = src[1];
                        src += 2;
                        continue;
                }
                *dst = '\0';
                *at = src;
                return word;
        }
}

/* $GIT_CONFIG_PARAMETERS (parse_config_env_list()): 'key'='value' words,
 * 'key'= (no value), or the older 'key=value' */
static int pg_sd_parameters(struct pg_sd *d)
{
        const char *env = getenv("GIT_CONFIG_PARAMETERS");
        char *copy, *cur;
        int error = 0;

        if (env == NULL)
                return 0;
        copy = pg_xstrdup(env);
        cur = copy;
        while (cur && *cur && error == 0) {
                char *key = pg_sd_sq_word(&cur), *value = NULL;
                if (key == NULL) {
                        error = -1;
                } else if (cur == NULL || isspace((unsigned char) *cur)) {
                        char *eq = strchr(key, '=');
                        if (eq) {
                                *eq = '\0';
                                value = eq + 1;
                        }
                        error = pg_sd_pair(d, key, value, "GIT_CONFIG_PARAMETERS");
                } else if (*cur == '=') {
                        cur++;
                        if (*cur == '\'') {
                                value = pg_sd_sq_word(&cur);
                                if (value == NULL || (cur && !isspace((unsigned char) *cur)))
                                        error = -1;
                        } else if (*cur && !isspace((unsigned char) *cur)) {
                                error = -1;
                        }
                        if (error == 0)
                                error = pg_sd_pair(d, key, value, "GIT_CONFIG_PARAMETERS");
                } else {
                        error = -1;
                }
                while (cur && isspace((unsigned char) *cur))
                        cur++;
        }
        free(copy);
        if (error == -1)
                error = pg_error_set(PG_EINPUT,
                                     "GIT_CONFIG_PARAMETERS is not in git's quoted form; git "
                                     "refuses to run with it (unset it)");
        return error;
}

/* @p as a real path without a trailing '/' (owned) */
static char *pg_sd_real(const char *p)
{
        char *r = realpath(p, NULL);
        size_t n;

        if (r == NULL)
                r = pg_xstrdup(p);
        n = strlen(r);
        while (n > 1 && r[n - 1] == '/')
                r[--n] = '\0';
        return r;
}

int pg_git_owner_ok(git_repository *repo, const char *start, char **path)
{
        const char *wd = git_repository_workdir(repo);
        char *top = wd ? pg_sd_real(wd) : NULL, *gitdir = pg_sd_real(git_repository_path(repo));
        char *from = pg_sd_real(start ? start : ".");
        char *gitfile = NULL, *global = NULL, *xdg = NULL;
        size_t glen = strlen(gitdir);
        struct pg_sd d;
        struct stat st;
        int error = 0;

        /* git's search finds the git directory itself when it starts inside
         * it, and then judges it as a bare repository would be (the path
         * compared is the git directory), where libgit2 gives it the work
         * tree above */
        if (top && strncmp(from, gitdir, glen) == 0 && (from[glen] == '/' || from[glen] == '\0')) {
                free(top);
                top = NULL;
        }
        d.path = top ? top : gitdir;
        d.safe = false;
        if (top) {
                gitfile = pg_xasprintf("%s/.git", top);
                if (lstat(gitfile, &st) != 0 || !S_ISREG(st.st_mode)) {
                        free(gitfile);
                        gitfile = NULL;
                }
        }
        if ((!gitfile || pg_sd_owned(gitfile)) && (!top || pg_sd_owned(top)) &&
            pg_sd_owned(gitdir)) {
                d.safe = true;
                goto done;
        }
        /* read_very_early_config(): system, global, command line; never the
         * repository's own files */
        if (!pg_sd_env_bool("GIT_CONFIG_NOSYSTEM")) {
                const char *sys = getenv("GIT_CONFIG_SYSTEM");
                if ((error = pg_sd_file(&d, sys ? sys : "/etc/gitconfig")) < 0)
                        goto done;
        }
        if (getenv("GIT_CONFIG_GLOBAL")) {
                global = pg_xstrdup(getenv("GIT_CONFIG_GLOBAL"));
        } else {
                const char *home = getenv("HOME"), *xdgh = getenv("XDG_CONFIG_HOME");
                if (xdgh && *xdgh)
                        xdg = pg_xasprintf("%s/git/config", xdgh);
                else if (home)
                        xdg = pg_xasprintf("%s/.config/git/config", home);
                if (home)
                        global = pg_xasprintf("%s/.gitconfig", home);
        }
        if ((error = pg_sd_file(&d, xdg)) < 0 || (error = pg_sd_file(&d, global)) < 0 ||
            (error = pg_sd_count(&d)) < 0 || (error = pg_sd_parameters(&d)) < 0)
                goto done;
done:
        if (path)
                *path = pg_xstrdup(d.path);
        free(top);
        free(gitdir);
        free(from);
        free(gitfile);
        free(global);
        free(xdg);
        return error < 0 ? error : d.safe ? 1 : 0;
}
