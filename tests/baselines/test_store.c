/*
 * test_store.c - the git baseline store (baselines/store.h) on real
 * repositories built with libgit2 in a sandbox: a main line with a merged
 * side branch, a feature branch ahead of it, tags, a bare "remote" and its
 * clones, a shallow clone made with the git CLI. Covers every lookup rule
 * (merge-base, first-parent walk and its limit, each kind of revision, the
 * local or remote-tracking data branch), orphan creation, building on
 * origin/, a diverged local branch, concurrent saves from several
 * processes, replace-on-resave, the refusals and every documented error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baselines/store.h"
#include "common/error.h"
#include "tests/util/store_fixture.h"
#include "tests/util/testutil.h"

/*
 * The history every lookup test uses (times increase left to right):
 *
 *   m0 - m1 - m2 - m3 ------ m4 - m5      main (m4 merges side into main)
 *          \    \           /
 *           \    f1-f2-f3  /              feature (HEAD)
 *            s0 - s1 -----                side
 *
 * tag v1 = m2. Baselines: machine "default" at m0, m2, m5; "walk" at m0;
 * "merge" at s1 and m2 (a walk that followed second parents would find s1).
 */
struct fx_history {
        char *sandbox;
        char *path; /* the work repository */
        git_repository *repo;
        git_oid m[6], s[2], f[3];
};

static const char *const fx_one[] = { "parse", NULL };

/* Save @names as the baseline of commit @at on @machine through the public
 * API, by detaching HEAD there for the duration. */
static void fx_save_at(struct fx_history *h, const git_oid *at, const char *machine,
                       const char *const *names)
{
        struct pg_store_opts o = { h->path, NULL, machine };
        struct pg_store_save_info info;
        struct pg_result_set set;
        git_reference *head = NULL;
        char *orig;

        fx_check(git_repository_head(&head, h->repo), "HEAD");
        orig = pg_xstrdup(git_reference_name(head));
        git_reference_free(head);
        fx_check(git_repository_set_head_detached(h->repo, at), "detach");
        fx_set(&set, fx_hex(at), machine, 1e6, names);
        if (pg_store_save(&o, &set, false, &info) != 0)
                fail_msg("save: %s", pg_error_last());
        assert_string_equal(info.head, fx_hex(at));
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        fx_check(git_repository_set_head(h->repo, orig), "reattach");
        free(orig);
}

static void fx_history_build(struct fx_history *h, bool with_baselines)
{
        const char *sb = fx_sandbox();
        git_oid p2[2];

        memset(h, 0, sizeof(*h));
        h->sandbox = pg_xstrdup(sb);
        h->path = pg_xasprintf("%s/work", sb);
        h->repo = fx_init(h->path, false);
        fx_commit(h->repo, "refs/heads/main", NULL, 0, "a.txt", "m0\n", 1000, &h->m[0]);
        fx_commit(h->repo, "refs/heads/main", &h->m[0], 1, "a.txt", "m1\n", 2000, &h->m[1]);
        fx_commit(h->repo, "refs/heads/main", &h->m[1], 1, "a.txt", "m2\n", 3000, &h->m[2]);
        fx_commit(h->repo, "refs/heads/side", &h->m[1], 1, "side.txt", "s0\n", 3500, &h->s[0]);
        fx_commit(h->repo, "refs/heads/side", &h->s[0], 1, "side.txt", "s1\n", 3600, &h->s[1]);
        fx_commit(h->repo, "refs/heads/main", &h->m[2], 1, "a.txt", "m3\n", 4000, &h->m[3]);
        p2[0] = h->m[3];
        p2[1] = h->s[1];
        fx_commit(h->repo, "refs/heads/main", p2, 2, "side.txt", "s1\n", 5000, &h->m[4]);
        fx_commit(h->repo, "refs/heads/main", &h->m[4], 1, "a.txt", "m5\n", 6000, &h->m[5]);
        fx_commit(h->repo, "refs/heads/feature", &h->m[2], 1, "f.txt", "f1\n", 7000, &h->f[0]);
        fx_commit(h->repo, "refs/heads/feature", &h->f[0], 1, "f.txt", "f2\n", 8000, &h->f[1]);
        fx_commit(h->repo, "refs/heads/feature", &h->f[1], 1, "f.txt", "f3\n", 9000, &h->f[2]);
        fx_tag(h->repo, "v1", &h->m[2]);
        fx_checkout(h->repo, "feature");
        if (!with_baselines)
                return;
        fx_save_at(h, &h->m[0], "default", fx_one);
        fx_save_at(h, &h->m[2], "default", fx_one);
        fx_save_at(h, &h->m[5], "default", fx_one);
        fx_save_at(h, &h->m[0], "walk", fx_one);
        fx_save_at(h, &h->s[1], "merge", fx_one);
        fx_save_at(h, &h->m[2], "merge", fx_one);
}

static void fx_history_free(struct fx_history *h)
{
        git_repository_free(h->repo);
        free(h->path);
        free(h->sandbox);
        pg_test_sandbox_remove();
}

/* find_baseline with the history's repository; fails the test on error. */
static void fx_find(const struct fx_history *h, const char *machine, const char *rev,
                    unsigned max_walk, struct pg_result_set *set, struct pg_store_lookup *l)
{
        struct pg_store_opts o = { h->path, NULL, machine };
        pg_result_set_init(set);
        if (pg_store_find_baseline(&o, rev, max_walk, set, l) != 0)
                fail_msg("find '%s': %s", rev, pg_error_last());
}

/* ---- lookup ---------------------------------------------------------------- */

static void test_store_lookup_uses_merge_base_not_latest(void **state)
{
        struct fx_history h;
        struct pg_result_set set;
        struct pg_store_lookup l;
        (void) state;

        fx_history_build(&h, true);
        /* main's newest baseline is m5, but feature forked at m2 */
        fx_find(&h, NULL, "main", 50, &set, &l);
        assert_true(l.found);
        assert_string_equal(l.base_commit, fx_hex(&h.m[5]));
        assert_string_equal(l.merge_base, fx_hex(&h.m[2]));
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        assert_int_equal(l.distance, 0);
        assert_string_equal(l.source_ref, "perfgate-baselines");
        assert_int_equal(set.n, 1);
        assert_string_equal(set.items[0].name, "parse");
        assert_string_equal(set.items[0].git_commit, fx_hex(&h.m[2]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_history_free(&h);
}

static void test_store_lookup_revision_forms(void **state)
{
        struct fx_history h;
        struct pg_result_set set;
        struct pg_store_lookup l;
        char shortsha[13];
        (void) state;

        fx_history_build(&h, true);
        /* a tag and a SHA (full and short) of m2 */
        fx_find(&h, NULL, "v1", 50, &set, &l);
        assert_true(l.found);
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_find(&h, NULL, fx_hex(&h.m[2]), 50, &set, &l);
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        snprintf(shortsha, sizeof(shortsha), "%s", fx_hex(&h.m[2]));
        fx_find(&h, NULL, shortsha, 50, &set, &l);
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        /* HEAD~2 = f1: merge-base f1 has no baseline, one step back is m2 */
        fx_find(&h, NULL, "HEAD~2", 50, &set, &l);
        assert_true(l.found);
        assert_string_equal(l.base_commit, fx_hex(&h.f[0]));
        assert_string_equal(l.merge_base, fx_hex(&h.f[0]));
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        assert_int_equal(l.distance, 1);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        /* HEAD itself: f3 -> f2 -> f1 -> m2 */
        fx_find(&h, NULL, "HEAD", 50, &set, &l);
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        assert_int_equal(l.distance, 3);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_history_free(&h);
}

static void test_store_lookup_walks_first_parents_with_limit(void **state)
{
        struct fx_history h;
        struct pg_result_set set;
        struct pg_store_lookup l;
        (void) state;

        fx_history_build(&h, true);
        /* machine "walk" only has m0: m2 -> m1 -> m0 */
        fx_find(&h, "walk", "main", 50, &set, &l);
        assert_true(l.found);
        assert_string_equal(l.merge_base, fx_hex(&h.m[2]));
        assert_string_equal(l.used_commit, fx_hex(&h.m[0]));
        assert_int_equal(l.distance, 2);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_find(&h, "walk", "main", 2, &set, &l);
        assert_true(l.found);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        /* one step short of m0: nothing, and no error */
        fx_find(&h, "walk", "main", 1, &set, &l);
        assert_false(l.found);
        assert_null(l.used_commit);
        assert_int_equal(set.n, 0);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_find(&h, "walk", "main", 0, &set, &l);
        assert_false(l.found);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_history_free(&h);
}

static void test_store_lookup_first_parent_through_merge(void **state)
{
        struct fx_history h;
        struct pg_result_set set;
        struct pg_store_lookup l;
        (void) state;

        fx_history_build(&h, true);
        /* on main: m5 -> m4 (merge) -> m3 -> m2; s1 (second parent side) is
         * two steps away but not on the main line */
        fx_check(git_repository_set_head(h.repo, "refs/heads/main"), "HEAD main");
        fx_find(&h, "merge", "main", 50, &set, &l);
        assert_true(l.found);
        assert_string_equal(l.merge_base, fx_hex(&h.m[5]));
        assert_string_equal(l.used_commit, fx_hex(&h.m[2]));
        assert_int_equal(l.distance, 3);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        /* and the merge commit itself as BASE while on side: merge-base is s1 */
        fx_check(git_repository_set_head(h.repo, "refs/heads/side"), "HEAD side");
        fx_find(&h, "merge", "main", 50, &set, &l);
        assert_string_equal(l.merge_base, fx_hex(&h.s[1]));
        assert_string_equal(l.used_commit, fx_hex(&h.s[1]));
        assert_int_equal(l.distance, 0);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_history_free(&h);
}

static void test_store_lookup_no_baseline_is_not_an_error(void **state)
{
        struct fx_history h;
        struct pg_result_set set;
        struct pg_store_lookup l;
        (void) state;

        /* no data branch at all */
        fx_history_build(&h, false);
        fx_find(&h, NULL, "main", 50, &set, &l);
        assert_false(l.found);
        assert_null(l.source_ref);
        assert_string_equal(l.merge_base, fx_hex(&h.m[2]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_history_free(&h);
        /* a data branch without this machine */
        fx_history_build(&h, true);
        fx_find(&h, "elsewhere", "main", 50, &set, &l);
        assert_false(l.found);
        assert_string_equal(l.source_ref, "perfgate-baselines");
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_history_free(&h);
}

static void test_store_lookup_errors(void **state)
{
        struct fx_history h;
        struct pg_result_set set;
        struct pg_store_lookup l;
        struct pg_store_opts o = { NULL, NULL, NULL };
        git_oid tip, bad, newer, root;
        const char *corrupt = "{\n  \"schema\": \"perfgate/result/1\",\n  \"name\": }\n";
        char *path, *dir;
        (void) state;

        fx_history_build(&h, true);
        o.repo_path = h.path;
        pg_result_set_init(&set);
        /* unknown revision */
        assert_int_equal(pg_store_find_baseline(&o, "no-such-branch", 50, &set, &l), PG_ENOTFOUND);
        assert_non_null(strstr(pg_error_last(), "unknown revision 'no-such-branch'"));
        assert_non_null(strstr(pg_error_last(), "`git fetch origin "
                                                "+refs/heads/no-such-branch:refs/remotes/origin/"
                                                "no-such-branch`"));
        pg_store_lookup_release(&l);
        /* a remote-tracking name is fetched by its branch name */
        assert_int_equal(pg_store_find_baseline(&o, "origin/release", 50, &set, &l), PG_ENOTFOUND);
        assert_non_null(strstr(
            pg_error_last(), "`git fetch origin +refs/heads/release:refs/remotes/origin/release`"));
        /* an expression beyond the history cannot be fetched by name */
        assert_int_equal(pg_store_find_baseline(&o, "HEAD~40", 50, &set, &l), PG_ENOTFOUND);
        assert_non_null(strstr(pg_error_last(), "unknown revision 'HEAD~40'"));
        assert_null(strstr(pg_error_last(), "git fetch"));
        /* a revision that is not a commit (a blob) */
        assert_int_equal(pg_store_find_baseline(&o, "main:a.txt", 50, &set, &l), PG_EINPUT);
        pg_store_lookup_release(&l);
        /* not a repository */
        dir = pg_xasprintf("%s/plain", h.sandbox);
        assert_int_equal(pg_mkdir_p(dir), 0);
        o.repo_path = dir;
        assert_int_equal(pg_store_find_baseline(&o, "main", 50, &set, &l), PG_ENOTFOUND);
        assert_non_null(strstr(pg_error_last(), "not a git repository"));
        pg_store_lookup_release(&l);
        o.repo_path = h.path;
        /* unrelated history */
        fx_commit(h.repo, "refs/heads/unrelated", NULL, 0, "u.txt", "u\n", 500, &root);
        assert_int_equal(pg_store_find_baseline(&o, "unrelated", 50, &set, &l), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "no common ancestor"));
        pg_store_lookup_release(&l);
        /* a corrupt blob in the baseline of m2 */
        fx_ref(h.repo, "refs/heads/perfgate-baselines", &tip);
        path = pg_xasprintf("default/%s/broken.json", fx_hex(&h.m[2]));
        fx_commit(h.repo, "refs/heads/perfgate-baselines", &tip, 1, path, corrupt, 9500, &bad);
        assert_int_equal(pg_store_find_baseline(&o, "main", 50, &set, &l), PG_EINPUT);
        assert_int_equal(set.n, 0);
        {
                /* the parser stops at the '}' where a value should be */
                char *want = pg_xasprintf("perfgate-baselines:%s", path);
                char *at = pg_xasprintf("line 3, column 11 (byte %zu)",
                                        (size_t) (strchr(corrupt, '}') - corrupt));
                assert_non_null(strstr(pg_error_last(), want));
                if (!strstr(pg_error_last(), at))
                        fail_msg("no '%s' in: %s", at, pg_error_last());
                free(want);
                free(at);
        }
        pg_store_lookup_release(&l);
        free(path);
        /* a newer schema, in place of the corrupt blob */
        path = pg_xasprintf("default/%s/broken.json", fx_hex(&h.m[2]));
        fx_commit(h.repo, "refs/heads/perfgate-baselines", &bad, 1, path,
                  "{\"schema\": \"perfgate/result/2\", \"name\": \"broken\"}\n", 9600, &newer);
        assert_int_equal(pg_store_find_baseline(&o, "main", 50, &set, &l), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "perfgate/result/2"));
        assert_non_null(strstr(pg_error_last(), "upgrade perfgate"));
        pg_store_lookup_release(&l);
        free(path);
        /* a bad machine or branch name */
        o.machine = "../x";
        assert_int_equal(pg_store_find_baseline(&o, "main", 50, &set, &l), PG_EINPUT);
        pg_store_lookup_release(&l);
        o.machine = NULL;
        o.branch = "bad..branch";
        assert_int_equal(pg_store_find_baseline(&o, "main", 50, &set, &l), PG_EINPUT);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        free(dir);
        fx_history_free(&h);
}

/* ---- saving ---------------------------------------------------------------- */

static void test_store_save_creates_orphan_branch(void **state)
{
        const char *sb = fx_sandbox();
        char *path = pg_xasprintf("%s/repo", sb);
        static const char *const names[] = { "parse", "sort", NULL };
        struct pg_store_opts o = { path, NULL, NULL };
        struct pg_store_save_info info;
        struct pg_result_set set;
        struct pg_buf json = PG_BUF_INIT;
        git_repository *repo = fx_init(path, false);
        git_oid head, tip;
        git_commit *c = NULL;
        char *paths, *want, *blob;
        (void) state;

        fx_commit(repo, "refs/heads/main", NULL, 0, "src.c", "int x;\n", 1000, &head);
        fx_checkout(repo, "main");
        fx_set(&set, fx_hex(&head), "ci-box", 2e6, names);
        if (pg_store_save(&o, &set, false, &info) != 0)
                fail_msg("save: %s", pg_error_last());
        assert_true(info.created_branch);
        assert_false(info.from_remote);
        assert_false(info.replaced);
        assert_int_equal(info.retries, 0);
        assert_int_equal(info.saved, 2);
        assert_string_equal(info.branch, "perfgate-baselines");
        assert_string_equal(info.machine, "ci-box"); /* from the results */
        assert_string_equal(info.head, fx_hex(&head));
        fx_ref(repo, "refs/heads/perfgate-baselines", &tip);
        assert_string_equal(info.commit, fx_hex(&tip));
        /* an orphan holding only the baselines */
        assert_int_equal(fx_parentcount(repo, &tip), 0);
        paths = fx_paths(repo, &tip);
        want = pg_xasprintf("ci-box/%s/parse.json\nci-box/%s/sort.json\n", fx_hex(&head),
                            fx_hex(&head));
        assert_string_equal(paths, want);
        /* each blob is exactly pg_result_to_json() */
        assert_int_equal(pg_result_to_json(&set.items[0], &json), 0);
        free(want);
        want = pg_xasprintf("ci-box/%s/parse.json", fx_hex(&head));
        blob = fx_blob_at(repo, &tip, want);
        assert_string_equal(blob, json.ptr);
        /* author from git config, else perfgate <perfgate@localhost> */
        fx_check(git_commit_lookup(&c, repo, &tip), "commit");
        assert_string_equal(git_commit_author(c)->name, "perfgate");
        assert_string_equal(git_commit_author(c)->email, "perfgate@localhost");
        git_commit_free(c);
        c = NULL;
        {
                git_config *cfg = NULL;
                fx_check(git_repository_config(&cfg, repo), "config");
                fx_check(git_config_set_string(cfg, "user.name", "CI Bot"), "user.name");
                fx_check(git_config_set_string(cfg, "user.email", "ci@example.com"), "email");
                git_config_free(cfg);
        }
        pg_store_save_info_release(&info);
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        fx_ref(repo, "refs/heads/perfgate-baselines", &tip);
        fx_check(git_commit_lookup(&c, repo, &tip), "commit");
        assert_string_equal(git_commit_author(c)->name, "CI Bot");
        assert_string_equal(git_commit_author(c)->email, "ci@example.com");
        assert_false(info.created_branch);
        git_commit_free(c);
        /* HEAD still on main */
        fx_ref(repo, "HEAD", &tip);
        assert_true(git_oid_equal(&tip, &head));
        pg_store_save_info_release(&info);
        pg_buf_release(&json);
        pg_result_set_release(&set);
        free(blob);
        free(want);
        free(paths);
        free(path);
        git_repository_free(repo);
        pg_test_sandbox_remove();
}

static void test_store_save_replaces_on_resave(void **state)
{
        struct fx_history h;
        static const char *const both[] = { "parse", "sort", NULL };
        struct pg_store_opts o = { NULL, NULL, "box" };
        struct pg_store_save_info info;
        struct pg_result_set set;
        struct pg_buf json = PG_BUF_INIT;
        git_oid first, second;
        char *p, *blob, *paths, *want;
        (void) state;

        fx_history_build(&h, false);
        o.repo_path = h.path;
        fx_set(&set, fx_hex(&h.f[2]), "box", 1e6, both);
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        assert_false(info.replaced);
        fx_ref(h.repo, "refs/heads/perfgate-baselines", &first);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        /* again, parse only, new numbers */
        fx_set(&set, fx_hex(&h.f[2]), "box", 5e6, fx_one);
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        assert_true(info.replaced);
        assert_int_equal(info.nreplaced, 1);
        fx_ref(h.repo, "refs/heads/perfgate-baselines", &second);
        assert_false(git_oid_equal(&first, &second));
        assert_int_equal(fx_parentcount(h.repo, &second), 1);
        {
                git_oid parent;
                fx_parent(h.repo, &second, 0, &parent);
                assert_true(git_oid_equal(&parent, &first));
        }
        p = pg_xasprintf("box/%s/parse.json", fx_hex(&h.f[2]));
        blob = fx_blob_at(h.repo, &second, p);
        assert_int_equal(pg_result_to_json(&set.items[0], &json), 0);
        assert_string_equal(blob, json.ptr);
        /* the benchmark not saved again stays */
        paths = fx_paths(h.repo, &second);
        want =
            pg_xasprintf("box/%s/parse.json\nbox/%s/sort.json\n", fx_hex(&h.f[2]), fx_hex(&h.f[2]));
        assert_string_equal(paths, want);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        pg_buf_release(&json);
        free(p);
        free(blob);
        free(paths);
        free(want);
        fx_history_free(&h);
}

static void test_store_save_refusals(void **state)
{
        struct fx_history h;
        struct pg_store_opts o = { NULL, NULL, NULL };
        struct pg_store_save_info info;
        struct pg_result_set set;
        struct pg_result r;
        git_oid tip;
        (void) state;

        fx_history_build(&h, false);
        o.repo_path = h.path;
        /* a repository without any commit yet */
        {
                char *fresh = pg_xasprintf("%s/fresh", h.sandbox);
                struct pg_store_opts fo = { fresh, NULL, NULL };
                git_repository_free(fx_init(fresh, false));
                fx_set(&set, fx_hex(&h.f[2]), "default", 1e6, fx_one);
                assert_int_equal(pg_store_save(&fo, &set, true, &info), PG_EINPUT);
                assert_non_null(strstr(pg_error_last(), "HEAD has no commit yet"));
                pg_result_set_release(&set);
                free(fresh);
        }
        /* empty set */
        pg_result_set_init(&set);
        assert_int_equal(pg_store_save(&o, &set, false, &info), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "no results"));
        /* measured at another commit */
        fx_set(&set, fx_hex(&h.m[5]), "default", 1e6, fx_one);
        assert_int_equal(pg_store_save(&o, &set, false, &info), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "measured at commit"));
        assert_non_null(strstr(pg_error_last(), "--force"));
        assert_null(info.commit);
        pg_result_set_release(&set);
        /* a dirty tree */
        pg_result_set_init(&set);
        fx_result(&r, "parse", fx_hex(&h.f[2]), "default", true, 1e6);
        assert_int_equal(pg_result_set_add(&set, &r), 0);
        assert_int_equal(pg_store_save(&o, &set, false, &info), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "dirty"));
        pg_result_set_release(&set);
        /* no git information */
        pg_result_set_init(&set);
        fx_result(&r, "parse", NULL, "default", false, 1e6);
        assert_int_equal(pg_result_set_add(&set, &r), 0);
        assert_int_equal(pg_store_save(&o, &set, false, &info), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "no git commit"));
        /* nothing was written by any refusal */
        assert_int_equal(git_reference_name_to_id(&tip, h.repo, "refs/heads/perfgate-baselines"),
                         GIT_ENOTFOUND);
        /* --force files them under HEAD anyway */
        assert_int_equal(pg_store_save(&o, &set, true, &info), 0);
        assert_string_equal(info.head, fx_hex(&h.f[2]));
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        /* machines that disagree, without --machine */
        pg_result_set_init(&set);
        fx_result(&r, "a", fx_hex(&h.f[2]), "one", false, 1e6);
        assert_int_equal(pg_result_set_add(&set, &r), 0);
        fx_result(&r, "b", fx_hex(&h.f[2]), "two", false, 1e6);
        assert_int_equal(pg_result_set_add(&set, &r), 0);
        assert_int_equal(pg_store_save(&o, &set, false, &info), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "different machines"));
        o.machine = "both";
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        assert_string_equal(info.machine, "both");
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        /* HEAD on the data branch itself */
        fx_check(git_repository_set_head(h.repo, "refs/heads/perfgate-baselines"), "HEAD");
        fx_set(&set, fx_hex(&h.f[2]), "default", 1e6, fx_one);
        assert_int_equal(pg_store_save(&o, &set, true, &info), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "data branch"));
        pg_result_set_release(&set);
        /* not a repository */
        o.repo_path = h.sandbox;
        fx_set(&set, fx_hex(&h.f[2]), "default", 1e6, fx_one);
        assert_int_equal(pg_store_save(&o, &set, true, &info), PG_ENOTFOUND);
        pg_result_set_release(&set);
        fx_history_free(&h);
}

/* ---- remote ---------------------------------------------------------------- */

struct fx_remote {
        struct fx_history h;
        char *url;   /* bare remote */
        char *clone; /* a clone of it */
        git_repository *crepo;
};

static const char *const fx_all_refs[] = {
        "refs/heads/main:refs/heads/main",
        "refs/heads/feature:refs/heads/feature",
        "refs/heads/perfgate-baselines:refs/heads/perfgate-baselines",
        "refs/tags/v1:refs/tags/v1",
        NULL,
};

static void fx_remote_build(struct fx_remote *r)
{
        git_repository *bare;

        fx_history_build(&r->h, true);
        r->url = pg_xasprintf("%s/remote.git", r->h.sandbox);
        r->clone = pg_xasprintf("%s/clone", r->h.sandbox);
        bare = fx_init(r->url, true);
        fx_push(r->h.repo, r->url, fx_all_refs);
        git_repository_free(bare);
        r->crepo = fx_clone(r->url, r->clone);
}

static void fx_remote_free(struct fx_remote *r)
{
        git_repository_free(r->crepo);
        free(r->url);
        free(r->clone);
        fx_history_free(&r->h);
}

static void test_store_reads_remote_tracking_branch(void **state)
{
        struct fx_remote r;
        struct pg_store_opts o = { NULL, NULL, NULL };
        struct pg_result_set set;
        struct pg_store_lookup l;
        git_oid id;
        (void) state;

        fx_remote_build(&r);
        o.repo_path = r.clone;
        /* the clone has no local data branch, only origin/perfgate-baselines */
        assert_int_equal(git_reference_name_to_id(&id, r.crepo, "refs/heads/perfgate-baselines"),
                         GIT_ENOTFOUND);
        pg_result_set_init(&set);
        /* the clone is on main (m5): BASE origin/main, a remote-tracking branch */
        assert_int_equal(pg_store_find_baseline(&o, "origin/main", 50, &set, &l), 0);
        assert_true(l.found);
        assert_string_equal(l.source_ref, "origin/perfgate-baselines");
        assert_string_equal(l.used_commit, fx_hex(&r.h.m[5]));
        assert_int_equal(set.n, 1);
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        /* a CI checkout: detached HEAD, no local main, only origin/main:
         * BASE "main" means origin/main (as `git checkout main` guesses) */
        {
                git_reference *ref = NULL;
                fx_check(git_repository_set_head_detached(r.crepo, &r.h.m[5]), "detach");
                fx_check(git_reference_lookup(&ref, r.crepo, "refs/heads/main"), "main");
                fx_check(git_reference_delete(ref), "delete main");
                git_reference_free(ref);
        }
        assert_int_equal(pg_store_find_baseline(&o, "main", 50, &set, &l), 0);
        assert_true(l.found);
        assert_string_equal(l.used_commit, fx_hex(&r.h.m[5]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        assert_int_equal(pg_store_find_baseline(&o, "no-such-branch", 50, &set, &l), PG_ENOTFOUND);
        assert_non_null(strstr(pg_error_last(), "nor origin/no-such-branch"));
        pg_result_set_release(&set);
        /* a stale local branch behind origin: origin is read */
        fx_ref(r.crepo, "refs/remotes/origin/perfgate-baselines", &id);
        fx_parent(r.crepo, &id, 0, &id);
        {
                git_reference *ref = NULL;
                fx_check(git_reference_create(&ref, r.crepo, "refs/heads/perfgate-baselines", &id,
                                              0, "test"),
                         "stale");
                git_reference_free(ref);
        }
        assert_int_equal(pg_store_find_baseline(&o, "origin/main", 50, &set, &l), 0);
        assert_string_equal(l.source_ref, "origin/perfgate-baselines");
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        fx_remote_free(&r);
}

static void test_store_save_builds_on_origin(void **state)
{
        struct fx_remote r;
        struct pg_store_opts o = { NULL, NULL, "clone-box" };
        struct pg_store_save_info info;
        struct pg_result_set set;
        git_oid origin_tip, stale, tip, parent;
        char *paths, *p;
        (void) state;

        fx_remote_build(&r);
        o.repo_path = r.clone;
        fx_ref(r.crepo, "HEAD", &tip);
        assert_true(git_oid_equal(&tip, &r.h.m[5]));
        fx_ref(r.crepo, "refs/remotes/origin/perfgate-baselines", &origin_tip);
        /* no local branch: built on origin, not as an orphan */
        fx_set(&set, fx_hex(&r.h.m[5]), "clone-box", 1e6, fx_one);
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        assert_true(info.from_remote);
        assert_true(info.no_local);
        assert_false(info.created_branch);
        fx_ref(r.crepo, "refs/heads/perfgate-baselines", &tip);
        fx_parent(r.crepo, &tip, 0, &parent);
        assert_true(git_oid_equal(&parent, &origin_tip));
        paths = fx_paths(r.crepo, &tip);
        p = pg_xasprintf("default/%s/parse.json", fx_hex(&r.h.m[5]));
        assert_non_null(strstr(paths, p)); /* origin's baselines kept */
        free(p);
        p = pg_xasprintf("clone-box/%s/parse.json", fx_hex(&r.h.m[5]));
        assert_non_null(strstr(paths, p));
        free(p);
        free(paths);
        pg_store_save_info_release(&info);
        /* local now ahead of origin: built on local */
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        assert_false(info.from_remote);
        assert_true(info.replaced);
        {
                git_oid prev = tip;
                fx_ref(r.crepo, "refs/heads/perfgate-baselines", &tip);
                fx_parent(r.crepo, &tip, 0, &parent);
                assert_true(git_oid_equal(&parent, &prev));
        }
        pg_store_save_info_release(&info);
        /* local behind origin: reset local to origin~1, save builds on origin */
        fx_parent(r.crepo, &origin_tip, 0, &stale);
        {
                git_reference *ref = NULL;
                fx_check(git_reference_create(&ref, r.crepo, "refs/heads/perfgate-baselines",
                                              &stale, 1, "test"),
                         "stale");
                git_reference_free(ref);
        }
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        assert_true(info.from_remote);
        assert_false(info.no_local);
        assert_false(info.merged_local);
        fx_ref(r.crepo, "refs/heads/perfgate-baselines", &tip);
        fx_parent(r.crepo, &tip, 0, &parent);
        assert_true(git_oid_equal(&parent, &origin_tip));
        assert_int_equal(fx_parentcount(r.crepo, &tip), 1);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        fx_remote_free(&r);
}

static void test_store_save_merges_diverged_local_branch(void **state)
{
        struct fx_remote r;
        struct pg_store_opts wo = { NULL, NULL, "work-box" }, co = { NULL, NULL, "clone-box" };
        struct pg_store_save_info info;
        struct pg_result_set set;
        git_oid local, origin, tip, p0, p1;
        char *paths, *want;
        static const char *const pb[] = { "refs/heads/perfgate-baselines:refs/heads/"
                                          "perfgate-baselines",
                                          NULL };
        (void) state;

        fx_remote_build(&r);
        wo.repo_path = r.h.path;
        co.repo_path = r.clone;
        /* the clone saves locally (not pushed) ... */
        fx_set(&set, fx_hex(&r.h.m[5]), "clone-box", 1e6, fx_one);
        assert_int_equal(pg_store_save(&co, &set, false, &info), 0);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        fx_ref(r.crepo, "refs/heads/perfgate-baselines", &local);
        /* ... while the work repository saves and pushes */
        fx_set(&set, fx_hex(&r.h.f[2]), "work-box", 1e6, fx_one);
        assert_int_equal(pg_store_save(&wo, &set, false, &info), 0);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        fx_push(r.h.repo, r.url, pb);
        fx_fetch(r.crepo);
        fx_ref(r.crepo, "refs/remotes/origin/perfgate-baselines", &origin);
        /* the next save in the clone keeps both sides: built on origin, two parents */
        fx_set(&set, fx_hex(&r.h.m[5]), "clone-box", 2e6, fx_one);
        assert_int_equal(pg_store_save(&co, &set, false, &info), 0);
        assert_true(info.merged_local);
        assert_true(info.replaced); /* clone-box/m5/parse.json was on the local side */
        fx_ref(r.crepo, "refs/heads/perfgate-baselines", &tip);
        assert_int_equal(fx_parentcount(r.crepo, &tip), 2);
        fx_parent(r.crepo, &tip, 0, &p0);
        fx_parent(r.crepo, &tip, 1, &p1);
        assert_true(git_oid_equal(&p0, &origin));
        assert_true(git_oid_equal(&p1, &local));
        paths = fx_paths(r.crepo, &tip);
        want = pg_xasprintf("clone-box/%s/parse.json", fx_hex(&r.h.m[5]));
        assert_non_null(strstr(paths, want));
        free(want);
        want = pg_xasprintf("work-box/%s/parse.json", fx_hex(&r.h.f[2]));
        assert_non_null(strstr(paths, want));
        free(want);
        want = pg_xasprintf("default/%s/parse.json", fx_hex(&r.h.m[5]));
        assert_non_null(strstr(paths, want));
        free(want);
        free(paths);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        fx_remote_free(&r);
}

/* ---- concurrency ----------------------------------------------------------- */

#define FX_WRITERS       4
#define FX_ROUNDS        3
#define FX_CREATE_ROUNDS 8
#define FX_CREATORS      6

/* Start @n processes that each save a baseline of HEAD for machine
 * "<label>-<i>" at the same instant; wait for them all, fail the test if
 * any save failed, and return their compare-and-swap retries. */
static unsigned fx_race(const struct fx_history *h, const char *label, int n)
{
        int gate[2], report[2];
        pid_t pids[16];
        unsigned total = 0;

        assert_true(n <= 16);
        assert_int_equal(pipe(gate), 0);
        assert_int_equal(pipe(report), 0);
        for (int i = 0; i < n; i++) {
                pids[i] = fork();
                assert_true(pids[i] >= 0);
                if (pids[i] == 0) {
                        char machine[32], c;
                        struct pg_store_opts o = { h->path, NULL, machine };
                        struct pg_store_save_info info;
                        struct pg_result_set set;
                        unsigned retries;
                        int rc;
                        close(gate[1]);
                        snprintf(machine, sizeof(machine), "%s-%d", label, i);
                        fx_set(&set, fx_hex(&h->f[2]), machine, 1e6, fx_one);
                        (void) !read(gate[0], &c, 1); /* all start when the gate closes */
                        /* staggered by up to ~2 ms, so one writer's check can fall
                         * before another's lock and its write after the unlock */
                        usleep((useconds_t) ((i * 617 + getpid() * 131) % 2000));
                        rc = pg_store_save(&o, &set, false, &info);
                        if (rc != 0)
                                fprintf(stderr, "writer %s: %s\n", machine, pg_error_last());
                        retries = rc == 0 ? info.retries : 0;
                        (void) !write(report[1], &retries, sizeof(retries));
                        _exit(rc == 0 ? 0 : 1);
                }
        }
        close(gate[0]);
        close(gate[1]); /* release everyone at once */
        close(report[1]);
        for (int i = 0; i < n; i++) {
                int status = 0;
                unsigned retries = 0;
                assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
                assert_true(WIFEXITED(status));
                assert_int_equal(WEXITSTATUS(status), 0);
                if (read(report[0], &retries, sizeof(retries)) == sizeof(retries))
                        total += retries;
        }
        close(report[0]);
        return total;
}

/* Whether every "<label>-<i>" baseline (i < n) is on the branch tip, and
 * the branch is a linear history of @ncommits commits. */
static void fx_race_check(const struct fx_history *h, const char *label, int n, unsigned ncommits)
{
        git_oid tip, c;
        unsigned count = 1;
        char *paths;

        fx_ref(h->repo, "refs/heads/perfgate-baselines", &tip);
        paths = fx_paths(h->repo, &tip);
        for (int i = 0; i < n; i++) {
                char *want = pg_xasprintf("%s-%d/%s/parse.json", label, i, fx_hex(&h->f[2]));
                if (!strstr(paths, want))
                        fail_msg("lost update: no '%s' on the branch:\n%s", want, paths);
                free(want);
        }
        c = tip;
        while (fx_parentcount(h->repo, &c) > 0) {
                assert_int_equal(fx_parentcount(h->repo, &c), 1);
                fx_parent(h->repo, &c, 0, &c);
                count++;
        }
        assert_int_equal(count, ncommits);
        free(paths);
}

static void test_store_save_concurrent_processes_all_land(void **state)
{
        struct fx_history h;
        unsigned retries = 0;
        (void) state;

        fx_history_build(&h, false);
        /* writers racing to move an existing branch */
        for (int round = 0; round < FX_ROUNDS; round++) {
                char label[16];
                snprintf(label, sizeof(label), "m%d", round);
                retries += fx_race(&h, label, FX_WRITERS);
                fx_race_check(&h, label, FX_WRITERS, (unsigned) (FX_WRITERS * (round + 1)));
        }
        /* writers racing to create the branch: each round starts without it */
        for (int round = 0; round < FX_CREATE_ROUNDS; round++) {
                git_reference *ref = NULL;
                char label[16];
                fx_check(git_reference_lookup(&ref, h.repo, "refs/heads/perfgate-baselines"),
                         "lookup");
                fx_check(git_reference_delete(ref), "delete");
                git_reference_free(ref);
                snprintf(label, sizeof(label), "c%d", round);
                retries += fx_race(&h, label, FX_CREATORS);
                fx_race_check(&h, label, FX_CREATORS, FX_CREATORS);
        }
        print_message("concurrent saves: %d writers x %d rounds, then %d creators x %d rounds: "
                      "%u compare-and-swap retries\n",
                      FX_WRITERS, FX_ROUNDS, FX_CREATORS, FX_CREATE_ROUNDS, retries);
        fx_history_free(&h);
}

static void test_store_save_gives_up_on_a_stale_lock(void **state)
{
        struct fx_history h;
        struct pg_store_opts o = { NULL, NULL, NULL };
        struct pg_store_save_info info;
        struct pg_result_set set;
        char *lock;
        git_oid before, after;
        (void) state;

        fx_history_build(&h, true);
        o.repo_path = h.path;
        fx_ref(h.repo, "refs/heads/perfgate-baselines", &before);
        /* what a writer killed while holding the ref's lock leaves behind */
        lock = pg_xasprintf("%s/.git/refs/heads/perfgate-baselines.lock", h.path);
        pg_test_write(lock, "");
        fx_set(&set, fx_hex(&h.f[2]), "default", 1e6, fx_one);
        assert_int_equal(pg_store_save(&o, &set, false, &info), PG_ECONFLICT);
        assert_int_equal(pg_exit_status(PG_ECONFLICT), 4);
        assert_non_null(strstr(pg_error_last(), "gave up after 64 attempts"));
        assert_non_null(strstr(pg_error_last(), "perfgate-baselines.lock"));
        assert_non_null(strstr(pg_error_last(), "remove it"));
        assert_null(info.commit);
        fx_ref(h.repo, "refs/heads/perfgate-baselines", &after);
        assert_true(git_oid_equal(&before, &after));
        /* once the stale lock is gone, the same save lands */
        assert_int_equal(unlink(lock), 0);
        assert_int_equal(pg_store_save(&o, &set, false, &info), 0);
        pg_store_save_info_release(&info);
        pg_result_set_release(&set);
        free(lock);
        fx_history_free(&h);
}

/* ---- shallow clone ----------------------------------------------------------- */

static int fx_git(const char *const *argv)
{
        struct pg_run_out out;
        int status = pg_test_run(&out, NULL, (char *const *) argv);
        if (status != 0)
                print_message("git failed (%d): %s\n", status, out.err.ptr);
        pg_run_out_release(&out);
        return status;
}

#define FX_MAIN_REFSPEC      "+refs/heads/main:refs/remotes/origin/main"
#define FX_BASELINES_REFSPEC "+refs/heads/perfgate-baselines:refs/remotes/origin/perfgate-baselines"

/*
 * Clones @r's @branch with the git CLI at @depth into <sandbox>/shallow and
 * fetches the baselines branch, plus main at depth 1 when @with_main; returns
 * the clone's path (the caller frees it).
 */
static char *fx_shallow_clone(struct fx_remote *r, const char *depth, const char *branch,
                              bool with_main)
{
        char *url = pg_xasprintf("file://%s", r->url);
        char *shallow = pg_xasprintf("%s/shallow", r->h.sandbox);
        const char *clone[] = { "git",      "clone", "-q", "--depth", depth,
                                "--branch", branch,  url,  shallow,   NULL };
        const char *fetch[11]; /* the most it holds, NULL included */
        size_t n = 0;

        fetch[n++] = "git";
        fetch[n++] = "-C";
        fetch[n++] = shallow;
        fetch[n++] = "fetch";
        fetch[n++] = "-q";
        if (with_main) {
                fetch[n++] = "--depth";
                fetch[n++] = "1";
        }
        fetch[n++] = "origin";
        if (with_main)
                fetch[n++] = FX_MAIN_REFSPEC;
        fetch[n++] = FX_BASELINES_REFSPEC;
        fetch[n] = NULL;
        assert_int_equal(fx_git(clone), 0);
        assert_int_equal(fx_git(fetch), 0);
        free(url);
        return shallow;
}

static void test_store_shallow_clone_without_merge_base(void **state)
{
        struct fx_remote r;
        struct pg_store_opts o = { NULL, NULL, NULL };
        struct pg_result_set set;
        struct pg_store_lookup l;
        char *shallow;
        (void) state;

        fx_remote_build(&r);
        shallow = fx_shallow_clone(&r, "1", "feature", true);
        o.repo_path = shallow;
        pg_result_set_init(&set);
        /* origin/main is there, but not the merge-base m2 */
        assert_int_equal(pg_store_find_baseline(&o, "origin/main", 50, &set, &l), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "shallow clone"));
        assert_non_null(strstr(pg_error_last(), "fetch-depth: 0"));
        assert_non_null(strstr(pg_error_last(),
                               "`git fetch --unshallow origin "
                               "+refs/heads/main:refs/remotes/origin/main "
                               "+refs/heads/perfgate-baselines:refs/remotes/origin/"
                               "perfgate-baselines`"));
        pg_store_lookup_release(&l);
        /* a revision the shallow clone never fetched */
        assert_int_equal(pg_store_find_baseline(&o, "v1", 50, &set, &l), PG_ENOTFOUND);
        assert_non_null(strstr(pg_error_last(), "`git fetch --unshallow origin tag v1`"));
        assert_non_null(strstr(pg_error_last(), "shallow"));
        pg_store_lookup_release(&l);
        /* and the exact fetch it advised makes the lookup work */
        {
                const char *fetch[] = { "git",
                                        "-C",
                                        shallow,
                                        "fetch",
                                        "-q",
                                        "--unshallow",
                                        "origin",
                                        FX_MAIN_REFSPEC,
                                        FX_BASELINES_REFSPEC,
                                        NULL };
                assert_int_equal(fx_git(fetch), 0);
        }
        assert_int_equal(pg_store_find_baseline(&o, "origin/main", 50, &set, &l), 0);
        assert_true(l.found);
        assert_string_equal(l.used_commit, fx_hex(&r.h.m[2]));
        assert_string_equal(l.source_ref, "origin/perfgate-baselines");
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        free(shallow);
        fx_remote_free(&r);
}

static void test_store_shallow_clone_cut_before_a_baseline(void **state)
{
        struct fx_remote r;
        struct pg_store_opts o = { NULL, NULL, "walk" };
        struct pg_result_set set;
        struct pg_store_lookup l;
        char *shallow;
        (void) state;

        fx_remote_build(&r);
        /* main at depth 2: m5 and m4 are here, m4's parents are not */
        shallow = fx_shallow_clone(&r, "2", "main", false);
        o.repo_path = shallow;
        pg_result_set_init(&set);
        /* the merge-base (m5) is here, but machine "walk" has only m0, beyond the cut */
        assert_int_equal(pg_store_find_baseline(&o, "HEAD", 50, &set, &l), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "shallow clone"));
        assert_non_null(strstr(pg_error_last(), "history is cut"));
        assert_non_null(strstr(pg_error_last(), "fetch-depth: 0"));
        pg_store_lookup_release(&l);
        /* a baseline inside the fetched part is found */
        o.machine = "default";
        assert_int_equal(pg_store_find_baseline(&o, "HEAD", 50, &set, &l), 0);
        assert_true(l.found);
        assert_string_equal(l.used_commit, fx_hex(&r.h.m[5]));
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        free(shallow);
        fx_remote_free(&r);
}

static void test_store_repository_owned_by_another_user(void **state)
{
        struct fx_history h;
        struct pg_store_opts o = { NULL, NULL, NULL };
        struct pg_result_set set;
        struct pg_store_lookup l;
        char *gitdir;
        (void) state;

        fx_history_build(&h, false);
        gitdir = pg_xasprintf("%s/.git", h.path);
        if (geteuid() != 0 || chown(h.path, 65534, 65534) != 0 ||
            chown(gitdir, 65534, 65534) != 0) {
                free(gitdir);
                fx_history_free(&h);
                skip(); /* needs root to give the repository away */
        }
        o.repo_path = h.path;
        pg_result_set_init(&set);
        if (pg_store_find_baseline(&o, "main", 50, &set, &l) != PG_EINPUT)
                fail_msg("want PG_EINPUT: %s", pg_error_last());
        assert_non_null(strstr(pg_error_last(), "safe.directory"));
        pg_store_lookup_release(&l);
        /* and the advice works */
        {
                char *cfg = pg_xasprintf("%s/.gitconfig", h.sandbox);
                char *text = pg_xasprintf("[safe]\n\tdirectory = %s\n", h.path);
                pg_test_write(cfg, text);
                free(cfg);
                free(text);
        }
        if (pg_store_find_baseline(&o, "main", 50, &set, &l) != 0)
                fail_msg("with safe.directory: %s", pg_error_last());
        pg_store_lookup_release(&l);
        pg_result_set_release(&set);
        assert_int_equal(chown(h.path, 0, 0), 0);
        assert_int_equal(chown(gitdir, 0, 0), 0);
        free(gitdir);
        fx_history_free(&h);
}

/* ---- list and show ------------------------------------------------------------ */

static void test_store_list_and_load_commit(void **state)
{
        struct fx_history h;
        struct pg_store_opts o = { NULL, NULL, NULL };
        struct pg_store_list l;
        struct pg_result_set set;
        struct pg_store_lookup info;
        char prefix[9];
        (void) state;

        fx_history_build(&h, true);
        o.repo_path = h.path;
        assert_int_equal(pg_store_list_load(&o, &l), 0);
        assert_string_equal(l.source_ref, "perfgate-baselines");
        /* default: m5 m2 m0, walk: m0, merge: s1 m2 -> newest commit first */
        assert_int_equal(l.n, 6);
        assert_string_equal(l.items[0].commit, fx_hex(&h.m[5]));
        assert_string_equal(l.items[1].commit, fx_hex(&h.s[1]));
        assert_string_equal(l.items[2].commit, fx_hex(&h.m[2]));
        assert_string_equal(l.items[3].commit, fx_hex(&h.m[2]));
        assert_string_equal(l.items[2].machine, "default");
        assert_string_equal(l.items[3].machine, "merge");
        assert_string_equal(l.items[5].commit, fx_hex(&h.m[0]));
        assert_int_equal(l.items[0].time_s, 6000);
        assert_string_equal(l.items[0].summary, "a.txt");
        assert_int_equal(l.items[0].nbenchmarks, 1);
        assert_string_equal(l.items[0].benchmarks[0], "parse");
        pg_store_list_release(&l);
        o.machine = "walk";
        assert_int_equal(pg_store_list_load(&o, &l), 0);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.items[0].commit, fx_hex(&h.m[0]));
        pg_store_list_release(&l);
        /* show: exactly that commit, no walk */
        o.machine = NULL;
        pg_result_set_init(&set);
        assert_int_equal(pg_store_load_commit(&o, "v1", &set, &info), 0);
        assert_true(info.found);
        assert_int_equal(set.n, 1);
        pg_store_lookup_release(&info);
        pg_result_set_release(&set);
        assert_int_equal(pg_store_load_commit(&o, "main~1", &set, &info), 0);
        assert_false(info.found);
        assert_string_equal(info.base_commit, fx_hex(&h.m[4]));
        pg_store_lookup_release(&info);
        /* a stored commit this clone does not have, by hex prefix */
        {
                git_oid tip, c;
                char *path;
                fx_ref(h.repo, "refs/heads/perfgate-baselines", &tip);
                path =
                    pg_xasprintf("default/%s/x.json", "abcdef0123456789abcdef0123456789abcdef01");
                {
                        struct pg_buf json = PG_BUF_INIT;
                        struct pg_result r;
                        fx_result(&r, "x", "abcdef0123456789abcdef0123456789abcdef01", "default",
                                  false, 1e6);
                        assert_int_equal(pg_result_to_json(&r, &json), 0);
                        fx_commit(h.repo, "refs/heads/perfgate-baselines", &tip, 1, path, json.ptr,
                                  9999, &c);
                        pg_result_release(&r);
                        pg_buf_release(&json);
                }
                free(path);
        }
        snprintf(prefix, sizeof(prefix), "abcdef01");
        assert_int_equal(pg_store_load_commit(&o, prefix, &set, &info), 0);
        assert_true(info.found);
        assert_string_equal(info.used_commit, "abcdef0123456789abcdef0123456789abcdef01");
        assert_string_equal(set.items[0].name, "x");
        pg_store_lookup_release(&info);
        pg_result_set_release(&set);
        assert_int_equal(pg_store_list_load(&o, &l), 0);
        assert_int_equal(l.n, 7);
        assert_null(l.items[6].summary); /* not in this clone: listed last */
        assert_int_equal(l.items[6].time_s, 0);
        pg_store_list_release(&l);
        assert_int_equal(pg_store_load_commit(&o, "nope", &set, &info), PG_ENOTFOUND);
        pg_store_lookup_release(&info);
        fx_history_free(&h);
}

/* Assets: publish commits a directory's regular files under a path of the
 * assets branch without touching HEAD; --max-history squashes into a root
 * commit holding the whole tree; prune removes a directory, and nothing to
 * remove is no commit; bad paths are refused. */
static void test_store_assets_publish_squash_prune(void **state)
{
        const char *sb = fx_sandbox();
        char *path = pg_xasprintf("%s/repo", sb), *dir = pg_xasprintf("%s/fg", sb);
        char *file, *paths, *blob, *link;
        struct pg_assets_opts o = { path, NULL, 3 };
        struct pg_assets_info info;
        git_repository *repo = fx_init(path, false);
        git_oid head, tip, h2;
        (void) state;

        fx_commit(repo, "refs/heads/main", NULL, 0, "src.c", "int x;\n", 1000, &head);
        fx_checkout(repo, "main");
        assert_int_equal(pg_mkdir_p(dir), 0);
        file = pg_path_join(dir, "w.image.svg");
        assert_int_equal(pg_write_file_atomic(file, "<svg/>\n", 7), 0);
        free(file);
        file = pg_path_join(dir, ".hidden");
        assert_int_equal(pg_write_file_atomic(file, "x", 1), 0);
        free(file);
        link = pg_path_join(dir, "secret.svg"); /* a symlink is never followed */
        assert_int_equal(symlink("/etc/passwd", link), 0);
        free(link);

        if (pg_assets_publish(&o, dir, "pr-7/abc", &info) != 0)
                fail_msg("publish: %s", pg_error_last());
        assert_true(info.created_branch);
        assert_false(info.squashed);
        assert_int_equal(info.files, 1);
        fx_ref(repo, "refs/heads/perfgate-assets", &tip);
        assert_string_equal(info.commit, fx_hex(&tip));
        paths = fx_paths(repo, &tip);
        assert_string_equal(paths, "pr-7/abc/w.image.svg\n");
        free(paths);
        blob = fx_blob_at(repo, &tip, "pr-7/abc/w.image.svg");
        assert_string_equal(blob, "<svg/>\n");
        free(blob);
        pg_assets_info_release(&info);
        fx_ref(repo, "HEAD", &h2);
        assert_true(git_oid_equal(&h2, &head));

        /* commits 2 and 3 chain; the 4th finds 3 commits and squashes */
        assert_int_equal(pg_assets_publish(&o, dir, "pr-7/def", &info), 0);
        assert_false(info.squashed);
        pg_assets_info_release(&info);
        assert_int_equal(pg_assets_publish(&o, dir, "pr-8/abc", &info), 0);
        assert_false(info.squashed);
        fx_ref(repo, "refs/heads/perfgate-assets", &tip);
        assert_int_equal(fx_parentcount(repo, &tip), 1);
        pg_assets_info_release(&info);
        assert_int_equal(pg_assets_publish(&o, dir, "pr-9/abc", &info), 0);
        assert_true(info.squashed);
        fx_ref(repo, "refs/heads/perfgate-assets", &tip);
        assert_int_equal(fx_parentcount(repo, &tip), 0);
        paths = fx_paths(repo, &tip);
        assert_string_equal(paths, "pr-7/abc/w.image.svg\npr-7/def/w.image.svg\n"
                                   "pr-8/abc/w.image.svg\npr-9/abc/w.image.svg\n");
        free(paths);
        pg_assets_info_release(&info);

        /* prune a pull request's folder; again: nothing to do */
        assert_int_equal(pg_assets_prune(&o, "pr-7", &info), 0);
        assert_non_null(info.commit);
        fx_ref(repo, "refs/heads/perfgate-assets", &tip);
        paths = fx_paths(repo, &tip);
        assert_string_equal(paths, "pr-8/abc/w.image.svg\npr-9/abc/w.image.svg\n");
        free(paths);
        pg_assets_info_release(&info);
        assert_int_equal(pg_assets_prune(&o, "pr-7", &info), 0);
        assert_null(info.commit);

        /* refused */
        assert_int_equal(pg_assets_publish(&o, dir, "../x", &info), PG_EINPUT);
        assert_int_equal(pg_assets_publish(&o, dir, "a//b", &info), PG_EINPUT);
        assert_int_equal(pg_assets_publish(&o, dir, "a/", &info), PG_EINPUT);
        assert_int_equal(pg_assets_publish(&o, dir, "a b", &info), PG_EINPUT);
        assert_int_equal(pg_assets_publish(&o, dir, "pr-7/.git/hooks", &info), PG_EINPUT);
        assert_int_equal(pg_assets_publish(&o, dir, "pr-7/.GIT", &info), PG_EINPUT);
        assert_int_equal(pg_assets_prune(&o, "", &info), PG_EINPUT);
        file = pg_xasprintf("%s/empty", sb);
        assert_int_equal(pg_mkdir_p(file), 0);
        assert_int_equal(pg_assets_publish(&o, file, "x", &info), PG_EINPUT);
        free(file);
        free(dir);
        free(path);
        git_repository_free(repo);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_store_lookup_uses_merge_base_not_latest),
                cmocka_unit_test(test_store_lookup_revision_forms),
                cmocka_unit_test(test_store_lookup_walks_first_parents_with_limit),
                cmocka_unit_test(test_store_lookup_first_parent_through_merge),
                cmocka_unit_test(test_store_lookup_no_baseline_is_not_an_error),
                cmocka_unit_test(test_store_lookup_errors),
                cmocka_unit_test(test_store_save_creates_orphan_branch),
                cmocka_unit_test(test_store_save_replaces_on_resave),
                cmocka_unit_test(test_store_save_refusals),
                cmocka_unit_test(test_store_reads_remote_tracking_branch),
                cmocka_unit_test(test_store_save_builds_on_origin),
                cmocka_unit_test(test_store_save_merges_diverged_local_branch),
                cmocka_unit_test(test_store_save_concurrent_processes_all_land),
                cmocka_unit_test(test_store_save_gives_up_on_a_stale_lock),
                cmocka_unit_test(test_store_shallow_clone_without_merge_base),
                cmocka_unit_test(test_store_shallow_clone_cut_before_a_baseline),
                cmocka_unit_test(test_store_repository_owned_by_another_user),
                cmocka_unit_test(test_store_list_and_load_commit),
                cmocka_unit_test(test_store_assets_publish_squash_prune),
        };
        return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
