/*
 * libgit2.h - libgit2, loaded when the baseline store is first used, not at
 * start-up. A library linked to the binary is mapped and relocated before
 * main() runs; libgit2 brings TLS, SSH and Kerberos libraries with it, about
 * half of perfgate's start-up (bench/startup.sh), which `perfgate run` would
 * pay before its first benchmark. The baselines/ files that use libgit2
 * include this header instead of <git2.h>: each git_* function they call is
 * a pointer filled in by pg_git_init() (dlopen(3) of the libgit2 the build
 * was compiled against, LIBGIT2_SOVERSION).
 */
#ifndef PG_BASELINES_LIBGIT2_H
#define PG_BASELINES_LIBGIT2_H

#include <git2.h>

/* every libgit2 function baselines/ calls */
#define PG_LIBGIT2_FUNCS(X)                                                                        \
        X(blob_create_from_buffer)                                                                 \
        X(blob_free)                                                                               \
        X(blob_lookup)                                                                             \
        X(blob_rawcontent)                                                                         \
        X(blob_rawsize)                                                                            \
        X(branch_is_checked_out)                                                                   \
        X(branch_name_is_valid)                                                                    \
        X(checkout_options_init)                                                                   \
        X(checkout_tree)                                                                           \
        X(commit_create)                                                                           \
        X(commit_free)                                                                             \
        X(commit_id)                                                                               \
        X(commit_lookup)                                                                           \
        X(commit_parent)                                                                           \
        X(commit_parent_id)                                                                        \
        X(commit_parentcount)                                                                      \
        X(commit_summary)                                                                          \
        X(commit_time)                                                                             \
        X(commit_tree)                                                                             \
        X(config_free)                                                                             \
        X(config_get_multivar_foreach)                                                             \
        X(config_open_ondisk)                                                                      \
        X(error_clear)                                                                             \
        X(error_last)                                                                              \
        X(graph_descendant_of)                                                                     \
        X(libgit2_init)                                                                            \
        X(libgit2_opts)                                                                            \
        X(libgit2_shutdown)                                                                        \
        X(merge_base)                                                                              \
        X(object_free)                                                                             \
        X(object_id)                                                                               \
        X(object_peel)                                                                             \
        X(odb_hash)                                                                                \
        X(odb_free)                                                                                \
        X(odb_read_header)                                                                         \
        X(oid_cpy)                                                                                 \
        X(oid_equal)                                                                               \
        X(oid_fromstr)                                                                             \
        X(oid_tostr)                                                                               \
        X(reference_create)                                                                        \
        X(reference_create_matching)                                                               \
        X(reference_dwim)                                                                          \
        X(reference_foreach_glob)                                                                  \
        X(reference_free)                                                                          \
        X(reference_lookup)                                                                        \
        X(reference_name)                                                                          \
        X(reference_name_is_valid)                                                                 \
        X(reference_name_to_id)                                                                    \
        X(repository_free)                                                                         \
        X(repository_head)                                                                         \
        X(repository_head_unborn)                                                                  \
        X(repository_is_bare)                                                                      \
        X(repository_is_shallow)                                                                   \
        X(repository_odb)                                                                          \
        X(repository_open_ext)                                                                     \
        X(repository_path)                                                                         \
        X(repository_workdir)                                                                      \
        X(revparse_single)                                                                         \
        X(revwalk_free)                                                                            \
        X(revwalk_hide)                                                                            \
        X(revwalk_new)                                                                             \
        X(revwalk_next)                                                                            \
        X(revwalk_push)                                                                            \
        X(revwalk_simplify_first_parent)                                                           \
        X(revwalk_sorting)                                                                         \
        X(signature_default)                                                                       \
        X(signature_free)                                                                          \
        X(signature_now)                                                                           \
        X(status_byindex)                                                                          \
        X(status_list_entrycount)                                                                  \
        X(status_list_free)                                                                        \
        X(status_list_new)                                                                         \
        X(status_options_init)                                                                     \
        X(tree_create_updated)                                                                     \
        X(tree_entry_byindex)                                                                      \
        X(tree_entry_byname)                                                                       \
        X(tree_entry_bypath)                                                                       \
        X(tree_entry_filemode)                                                                     \
        X(tree_entry_free)                                                                         \
        X(tree_entry_id)                                                                           \
        X(tree_entry_name)                                                                         \
        X(tree_entry_type)                                                                         \
        X(tree_entrycount)                                                                         \
        X(tree_free)                                                                               \
        X(tree_id)                                                                                 \
        X(tree_lookup)                                                                             \
        X(treebuilder_free)                                                                        \
        X(treebuilder_new)                                                                         \
        X(treebuilder_write)

struct pg_libgit2 {
#define PG_LIBGIT2_FIELD(n) __typeof__(git_##n) *n;
        PG_LIBGIT2_FUNCS(PG_LIBGIT2_FIELD)
#undef PG_LIBGIT2_FIELD
};

/* the loaded functions; NULL until pg_git_init() succeeded */
extern struct pg_libgit2 pg_libgit2;

/**
 * Load libgit2 (first call only; thread-safe) and git_libgit2_init() it.
 * Every use of a git_* function below follows a successful call; pair each
 * with git_libgit2_shutdown().
 * Errors: PG_EIO when the library cannot be loaded or lacks a function (the
 * message names the file and the package to install).
 */
int pg_git_init(void);

#define git_blob_create_from_buffer       pg_libgit2.blob_create_from_buffer
#define git_blob_free                     pg_libgit2.blob_free
#define git_blob_lookup                   pg_libgit2.blob_lookup
#define git_blob_rawcontent               pg_libgit2.blob_rawcontent
#define git_blob_rawsize                  pg_libgit2.blob_rawsize
#define git_branch_is_checked_out         pg_libgit2.branch_is_checked_out
#define git_branch_name_is_valid          pg_libgit2.branch_name_is_valid
#define git_checkout_options_init         pg_libgit2.checkout_options_init
#define git_checkout_tree                 pg_libgit2.checkout_tree
#define git_commit_create                 pg_libgit2.commit_create
#define git_commit_free                   pg_libgit2.commit_free
#define git_commit_id                     pg_libgit2.commit_id
#define git_commit_lookup                 pg_libgit2.commit_lookup
#define git_commit_parent                 pg_libgit2.commit_parent
#define git_commit_parent_id              pg_libgit2.commit_parent_id
#define git_commit_parentcount            pg_libgit2.commit_parentcount
#define git_commit_summary                pg_libgit2.commit_summary
#define git_commit_time                   pg_libgit2.commit_time
#define git_commit_tree                   pg_libgit2.commit_tree
#define git_config_free                   pg_libgit2.config_free
#define git_config_get_multivar_foreach   pg_libgit2.config_get_multivar_foreach
#define git_config_open_ondisk            pg_libgit2.config_open_ondisk
#define git_error_clear                   pg_libgit2.error_clear
#define git_error_last                    pg_libgit2.error_last
#define git_graph_descendant_of           pg_libgit2.graph_descendant_of
#define git_libgit2_init                  pg_libgit2.libgit2_init
#define git_libgit2_opts                  pg_libgit2.libgit2_opts
#define git_libgit2_shutdown              pg_libgit2.libgit2_shutdown
#define git_merge_base                    pg_libgit2.merge_base
#define git_object_free                   pg_libgit2.object_free
#define git_object_id                     pg_libgit2.object_id
#define git_object_peel                   pg_libgit2.object_peel
#define git_odb_hash                      pg_libgit2.odb_hash
#define git_odb_free                      pg_libgit2.odb_free
#define git_odb_read_header               pg_libgit2.odb_read_header
#define git_oid_cpy                       pg_libgit2.oid_cpy
#define git_oid_equal                     pg_libgit2.oid_equal
#define git_oid_fromstr                   pg_libgit2.oid_fromstr
#define git_oid_tostr                     pg_libgit2.oid_tostr
#define git_reference_create              pg_libgit2.reference_create
#define git_reference_create_matching     pg_libgit2.reference_create_matching
#define git_reference_dwim                pg_libgit2.reference_dwim
#define git_reference_foreach_glob        pg_libgit2.reference_foreach_glob
#define git_reference_free                pg_libgit2.reference_free
#define git_reference_lookup              pg_libgit2.reference_lookup
#define git_reference_name                pg_libgit2.reference_name
#define git_reference_name_is_valid       pg_libgit2.reference_name_is_valid
#define git_reference_name_to_id          pg_libgit2.reference_name_to_id
#define git_repository_free               pg_libgit2.repository_free
#define git_repository_head               pg_libgit2.repository_head
#define git_repository_head_unborn        pg_libgit2.repository_head_unborn
#define git_repository_is_bare            pg_libgit2.repository_is_bare
#define git_repository_is_shallow         pg_libgit2.repository_is_shallow
#define git_repository_odb                pg_libgit2.repository_odb
#define git_repository_open_ext           pg_libgit2.repository_open_ext
#define git_repository_path               pg_libgit2.repository_path
#define git_repository_workdir            pg_libgit2.repository_workdir
#define git_revparse_single               pg_libgit2.revparse_single
#define git_revwalk_free                  pg_libgit2.revwalk_free
#define git_revwalk_hide                  pg_libgit2.revwalk_hide
#define git_revwalk_new                   pg_libgit2.revwalk_new
#define git_revwalk_next                  pg_libgit2.revwalk_next
#define git_revwalk_push                  pg_libgit2.revwalk_push
#define git_revwalk_simplify_first_parent pg_libgit2.revwalk_simplify_first_parent
#define git_revwalk_sorting               pg_libgit2.revwalk_sorting
#define git_signature_default             pg_libgit2.signature_default
#define git_signature_free                pg_libgit2.signature_free
#define git_signature_now                 pg_libgit2.signature_now
#define git_status_byindex                pg_libgit2.status_byindex
#define git_status_list_entrycount        pg_libgit2.status_list_entrycount
#define git_status_list_free              pg_libgit2.status_list_free
#define git_status_list_new               pg_libgit2.status_list_new
#define git_status_options_init           pg_libgit2.status_options_init
#define git_tree_create_updated           pg_libgit2.tree_create_updated
#define git_tree_entry_byindex            pg_libgit2.tree_entry_byindex
#define git_tree_entry_byname             pg_libgit2.tree_entry_byname
#define git_tree_entry_bypath             pg_libgit2.tree_entry_bypath
#define git_tree_entry_filemode           pg_libgit2.tree_entry_filemode
#define git_tree_entry_free               pg_libgit2.tree_entry_free
#define git_tree_entry_id                 pg_libgit2.tree_entry_id
#define git_tree_entry_name               pg_libgit2.tree_entry_name
#define git_tree_entry_type               pg_libgit2.tree_entry_type
#define git_tree_entrycount               pg_libgit2.tree_entrycount
#define git_tree_free                     pg_libgit2.tree_free
#define git_tree_id                       pg_libgit2.tree_id
#define git_tree_lookup                   pg_libgit2.tree_lookup
#define git_treebuilder_free              pg_libgit2.treebuilder_free
#define git_treebuilder_new               pg_libgit2.treebuilder_new
#define git_treebuilder_write             pg_libgit2.treebuilder_write

#endif
