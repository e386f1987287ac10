/*
 * safedir.h - whether git would open a repository that another user owns:
 * git's ownership check and its safe.directory setting (git-config(1),
 * "safe.directory"), decided by perfgate instead of libgit2. libgit2 1.5
 * reads safe.directory from ~/.gitconfig and the XDG file only and takes
 * neither '*' nor GIT_CONFIG_GLOBAL, GIT_CONFIG_COUNT or the system file, so
 * pg_git_init() turns its own check off (GIT_OPT_SET_OWNER_VALIDATION) and
 * pg_store_open() asks pg_git_owner_ok() after every open. Internal to
 * baselines/.
 */
#ifndef PG_BASELINES_SAFEDIR_H
#define PG_BASELINES_SAFEDIR_H

#include "baselines/libgit2.h"

/**
 * Whether git 2.39 would use @repo (opened by libgit2, without its ownership
 * check, from the directory @start; NULL: the cwd) for the current process,
 * by the rules of git's setup.c (ensure_valid_ownership(),
 * safe_directory_cb()):
 *
 * - Started inside the git directory, git finds that directory itself and
 *   judges it as a bare repository: the work tree does not count.
 * - The work tree's top (none for a bare repository), the git directory, and
 *   the `.git` file of a linked work tree are each owned (lstat(2)) by the
 *   effective uid; for root, a path root owns passes, and otherwise the uid
 *   in $SUDO_UID stands for root's.
 * - Otherwise the values of safe.directory in git's protected configuration,
 *   in git's order: the system file ($GIT_CONFIG_SYSTEM or /etc/gitconfig,
 *   unless $GIT_CONFIG_NOSYSTEM is true), the global files ($GIT_CONFIG_GLOBAL,
 *   or $XDG_CONFIG_HOME/git/config (default ~/.config/git/config) then
 *   ~/.gitconfig), then the command line's ($GIT_CONFIG_COUNT with
 *   GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>, then $GIT_CONFIG_PARAMETERS, the
 *   form `git -c` passes on). Files are read with their include.path
 *   includes; an unreadable or missing file is skipped, as git skips it.
 *   Each value in turn: empty (or no value) forgets the ones before, '*'
 *   accepts any repository, and any other is expanded as git expands a path
 *   ("~/" is $HOME, "~user/" that user's home) and accepts the repository
 *   when it equals, byte for byte, the real path (realpath(3)) of the work
 *   tree's top, or of the git directory of a bare repository: no trailing
 *   '/', no pattern. "%(prefix)/" is not expanded (it depends on how git was
 *   built) and matches nothing.
 *
 * Returns 1 when git would open it; 0 when git would refuse it, with
 * *@path (owned; set in both cases when @path is not NULL) the directory
 * safe.directory would have to name; PG_EINPUT, message set, when git would
 * stop at the configuration itself (GIT_CONFIG_COUNT without a number, a
 * missing GIT_CONFIG_KEY_<n> or GIT_CONFIG_VALUE_<n>, a malformed
 * GIT_CONFIG_PARAMETERS, a configuration file libgit2 cannot parse).
 */
int pg_git_owner_ok(git_repository *repo, const char *start, char **path);

#endif
