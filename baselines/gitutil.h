/*
 * gitutil.h - what the libgit2 users of baselines/ share: setting perfgate's
 * error from a libgit2 failure with libgit2's own detail appended.
 */
#ifndef PG_BASELINES_GITUTIL_H
#define PG_BASELINES_GITUTIL_H

/**
 * Set the error @code with the message @fmt..., followed by ": " and
 * git_error_last()'s message when libgit2 has one (it may be NULL in
 * libgit2 1.5). Returns @code.
 */
int pg_git_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
