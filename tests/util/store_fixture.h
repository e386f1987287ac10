/*
 * store_fixture.h - git repositories for the baseline-store tests, built
 * with libgit2 inside the test's sandbox (never the project's repository):
 * commits with a fixed author and time on any ref, checkouts, lightweight
 * tags, pushes to a bare "remote" and clones, and result files written with
 * pg_result_save(). Included by test_store.c and test_baseline_cli.c; every
 * helper fails the running cmocka test on error.
 */
#ifndef PG_TEST_STORE_FIXTURE_H
#define PG_TEST_STORE_FIXTURE_H

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

#define FX_UNUSED __attribute__((unused))

/* Run perfgate (the binary under test); on an unexpected status, show its
 * output. */
#define FX_PERFGATE PG_TEST_PERFGATE_EXPECT

static FX_UNUSED void fx_expect(const struct pg_buf *b, const char *needle)
{
        if (!strstr(b->ptr, needle))
                fail_msg("missing '%s' in:\n%s", needle, b->ptr);
}

static FX_UNUSED void fx_check(int rc, const char *what)
{
        if (rc < 0) {
                const git_error *e = git_error_last();
                fail_msg("%s: %s", what, e && e->message ? e->message : "libgit2 error");
        }
}

static FX_UNUSED const char *fx_hex(const git_oid *id)
{
        static char hex[4][GIT_OID_HEXSZ + 1];
        static int slot;
        slot = (slot + 1) % 4;
        git_oid_tostr(hex[slot], sizeof(hex[slot]), id);
        return hex[slot];
}

/* pg_test_sandbox(), and libgit2 in this process told to read global and
 * system config only from there (it caches $HOME when first initialised). */
static FX_UNUSED const char *fx_sandbox(void)
{
        const char *sb = pg_test_sandbox();
        fx_check(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, sb), "opts");
        fx_check(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, sb), "opts");
        fx_check(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, sb), "opts");
        return sb;
}

/* A repository at @path whose HEAD is the unborn branch "main". */
static FX_UNUSED git_repository *fx_init(const char *path, bool bare)
{
        git_repository *repo = NULL;
        fx_check(git_repository_init(&repo, path, bare), "init");
        fx_check(git_repository_set_head(repo, "refs/heads/main"), "set HEAD");
        return repo;
}

/*
 * Make a commit on @ref (NULL: no ref moves) whose tree is the first
 * parent's (or empty) with @file set to @content, at time @t (s since the
 * epoch) so commit order is fixed. Returns the commit id in @out.
 */
static FX_UNUSED void fx_commit(git_repository *repo, const char *ref, const git_oid *parents,
                                size_t nparents, const char *file, const char *content, long long t,
                                git_oid *out)
{
        git_commit *pc[2] = { NULL, NULL };
        git_tree *base = NULL, *tree = NULL;
        git_signature *sig = NULL;
        git_treebuilder *tb = NULL;
        git_oid blob, tree_id, empty_id;
        git_tree_update up;

        assert_true(nparents <= 2);
        for (size_t i = 0; i < nparents; i++)
                fx_check(git_commit_lookup(&pc[i], repo, &parents[i]), "parent lookup");
        if (nparents)
                fx_check(git_commit_tree(&base, pc[0]), "parent tree");
        else {
                fx_check(git_treebuilder_new(&tb, repo, NULL), "treebuilder");
                fx_check(git_treebuilder_write(&empty_id, tb), "empty tree");
                git_treebuilder_free(tb);
                fx_check(git_tree_lookup(&base, repo, &empty_id), "empty tree lookup");
        }
        fx_check(git_blob_create_from_buffer(&blob, repo, content, strlen(content)), "blob");
        up = (git_tree_update){ GIT_TREE_UPDATE_UPSERT, blob, GIT_FILEMODE_BLOB, file };
        fx_check(git_tree_create_updated(&tree_id, repo, base, 1, &up), "tree");
        fx_check(git_tree_lookup(&tree, repo, &tree_id), "tree lookup");
        fx_check(git_signature_new(&sig, "Test Author", "test@example.com", (git_time_t) t, 0),
                 "signature");
        fx_check(git_commit_create(out, repo, NULL, sig, sig, NULL, file, tree, nparents,
                                   (const git_commit **) pc),
                 "commit");
        if (ref) {
                git_reference *r = NULL;
                fx_check(git_reference_create(&r, repo, ref, out, 1, "test"), "ref");
                git_reference_free(r);
        }
        git_signature_free(sig);
        git_tree_free(tree);
        git_tree_free(base);
        git_commit_free(pc[0]);
        git_commit_free(pc[1]);
}

/* Point HEAD at branch @branch and check it out (work tree and index). */
static FX_UNUSED void fx_checkout(git_repository *repo, const char *branch)
{
        git_checkout_options co;
        char *ref = pg_xasprintf("refs/heads/%s", branch);
        fx_check(git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION), "checkout opts");
        co.checkout_strategy = GIT_CHECKOUT_FORCE;
        fx_check(git_repository_set_head(repo, ref), "set HEAD");
        fx_check(git_checkout_head(repo, &co), "checkout");
        free(ref);
}

static FX_UNUSED void fx_tag(git_repository *repo, const char *name, const git_oid *id)
{
        git_object *obj = NULL;
        git_oid tag;
        fx_check(git_object_lookup(&obj, repo, id, GIT_OBJECT_COMMIT), "tag target");
        fx_check(git_tag_create_lightweight(&tag, repo, name, obj, 1), "tag");
        git_object_free(obj);
}

/* Fill @r as one benchmark measured at @commit (hex) on @machine. */
static FX_UNUSED void fx_result(struct pg_result *r, const char *name, const char *commit,
                                const char *machine, bool dirty, double task_clock_ns)
{
        double tc[3] = { task_clock_ns, task_clock_ns * 1.01, task_clock_ns * 0.99 };
        pg_result_init(r);
        r->name = pg_xstrdup(name);
        r->ncommand = 1;
        r->command = pg_xcalloc(2, sizeof(char *));
        r->command[0] = pg_xasprintf("bench/%s", name);
        r->created = pg_xstrdup("2026-11-29T10:00:00Z");
        if (commit) {
                r->has_git = true;
                r->git_commit = pg_xstrdup(commit);
                r->git_dirty = dirty;
        }
        r->machine = pg_xstrdup(machine);
        r->host.cpu = pg_xstrdup("Test CPU");
        r->host.cpus = 2;
        r->host.kernel = pg_xstrdup("6.18.44");
        r->host.arch = pg_xstrdup("x86_64");
        r->counters = pg_xstrdup("software");
        r->repeat = 3;
        r->warmup = 1;
        pg_result_add_metric(r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, 3, NULL);
}

/* Write @dir/@name.json with pg_result_save(). */
static FX_UNUSED void fx_result_file(const char *dir, const char *name, const char *commit,
                                     const char *machine, bool dirty, double task_clock_ns)
{
        struct pg_result r;
        char *path = pg_xasprintf("%s/%s.json", dir, name);
        assert_int_equal(pg_mkdir_p(dir), 0);
        fx_result(&r, name, commit, machine, dirty, task_clock_ns);
        assert_int_equal(pg_result_save(&r, path), 0);
        pg_result_release(&r);
        free(path);
}

/* A set of results named by the NULL-terminated list @names, at @commit. */
static FX_UNUSED void fx_set(struct pg_result_set *s, const char *commit, const char *machine,
                             double task_clock_ns, const char *const *names)
{
        pg_result_set_init(s);
        for (size_t i = 0; names[i]; i++) {
                struct pg_result r;
                fx_result(&r, names[i], commit, machine, false, task_clock_ns);
                assert_int_equal(pg_result_set_add(s, &r), 0);
        }
}

/* Push @refspecs (NULL-terminated) from @repo to the repository at @url. */
static FX_UNUSED void fx_push(git_repository *repo, const char *url, const char *const *refspecs)
{
        git_remote *remote = NULL;
        git_strarray arr;
        size_t n = 0;
        while (refspecs[n])
                n++;
        arr.strings = (char **) refspecs;
        arr.count = n;
        fx_check(git_remote_create_anonymous(&remote, repo, url), "remote");
        fx_check(git_remote_push(remote, &arr, NULL), "push");
        git_remote_free(remote);
}

/* Fetch everything the "origin" remote of @repo is configured for. */
static FX_UNUSED void fx_fetch(git_repository *repo)
{
        git_remote *remote = NULL;
        fx_check(git_remote_lookup(&remote, repo, "origin"), "origin");
        fx_check(git_remote_fetch(remote, NULL, NULL, NULL), "fetch");
        git_remote_free(remote);
}

static FX_UNUSED git_repository *fx_clone(const char *url, const char *path)
{
        git_repository *repo = NULL;
        fx_check(git_clone(&repo, url, path, NULL), "clone");
        return repo;
}

/* The commit @ref names (fails the test when it does not exist). */
static FX_UNUSED void fx_ref(git_repository *repo, const char *ref, git_oid *out)
{
        fx_check(git_reference_name_to_id(out, repo, ref), ref);
}

/* The blob at @path in the tree of commit @id, as a new string; NULL if absent. */
static FX_UNUSED char *fx_blob_at(git_repository *repo, const git_oid *id, const char *path)
{
        git_commit *c = NULL;
        git_tree *t = NULL;
        git_tree_entry *e = NULL;
        git_blob *b = NULL;
        char *out = NULL;
        fx_check(git_commit_lookup(&c, repo, id), "commit");
        fx_check(git_commit_tree(&t, c), "tree");
        if (git_tree_entry_bypath(&e, t, path) == 0) {
                fx_check(git_blob_lookup(&b, repo, git_tree_entry_id(e)), "blob");
                out = pg_xstrndup(git_blob_rawcontent(b), (size_t) git_blob_rawsize(b));
        }
        git_blob_free(b);
        git_tree_entry_free(e);
        git_tree_free(t);
        git_commit_free(c);
        return out;
}

/* Every blob path in the tree of commit @id, sorted, one per line. */
static FX_UNUSED int fx_walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
        if (git_tree_entry_type(e) == GIT_OBJECT_BLOB)
                pg_buf_printf(payload, "%s%s\n", root, git_tree_entry_name(e));
        return 0;
}

static FX_UNUSED char *fx_paths(git_repository *repo, const git_oid *id)
{
        struct pg_buf b = PG_BUF_INIT;
        git_commit *c = NULL;
        git_tree *t = NULL;
        fx_check(git_commit_lookup(&c, repo, id), "commit");
        fx_check(git_commit_tree(&t, c), "tree");
        fx_check(git_tree_walk(t, GIT_TREEWALK_PRE, fx_walk_cb, &b), "walk");
        git_tree_free(t);
        git_commit_free(c);
        pg_buf_puts(&b, "");
        return pg_buf_detach(&b, NULL);
}

static FX_UNUSED unsigned fx_parentcount(git_repository *repo, const git_oid *id)
{
        git_commit *c = NULL;
        unsigned n;
        fx_check(git_commit_lookup(&c, repo, id), "commit");
        n = git_commit_parentcount(c);
        git_commit_free(c);
        return n;
}

static FX_UNUSED void fx_parent(git_repository *repo, const git_oid *id, unsigned i, git_oid *out)
{
        git_commit *c = NULL;
        fx_check(git_commit_lookup(&c, repo, id), "commit");
        assert_true(i < git_commit_parentcount(c));
        git_oid_cpy(out, git_commit_parent_id(c, i));
        git_commit_free(c);
}

/* cmocka group setup/teardown: libgit2 initialised once per test program */
static FX_UNUSED int fx_setup(void **state)
{
        (void) state;
        git_libgit2_init();
        return 0;
}

static FX_UNUSED int fx_teardown(void **state)
{
        (void) state;
        git_libgit2_shutdown();
        return 0;
}

#endif
