/*
 * history_html.h - the static trends site of `perfgate history --html DIR`
 * (docs/history.md): an index of every benchmark and metric, one page per
 * benchmark with an SVG chart per metric over the commits (median line,
 * min-max spread of the repetitions, change points with their levels) and
 * the self share over time of its top functions, and the flame graphs the
 * points and change points link to. Plain HTML and inline SVG and CSS: no
 * script, no external asset, so it reads from file://, GitHub Pages and
 * GitLab Pages alike. Hovering a point shows its commit, subject and value
 * (an SVG <title>); clicking it opens that commit's flame graph.
 *
 * Every point carries data-i (history index), data-v (median, base units)
 * and its cy, so tests can check what is drawn without reading pixels.
 */
#ifndef PG_COMPARE_HISTORY_HTML_H
#define PG_COMPARE_HISTORY_HTML_H

#include <stddef.h>

#include "compare/trends.h"

/* Commits on each side of a change point whose profiles are summed for its
 * differential flame graph (bounded by the neighbouring change points). */
#define PG_SITE_DIFF_SPAN 5

/* Default of pg_site_opts.flamegraphs (`perfgate history --flamegraphs`):
 * each flame graph is a file, and creating files is most of the cost of a
 * large site (bench/history-scale.sh). */
#define PG_SITE_DEFAULT_FLAMEGRAPHS 20

struct pg_site_opts {
        size_t flamegraphs; /* flame graphs for the newest N commits of each benchmark
                               (0: every commit), plus the commits at and just before
                               each change point; see docs/history.md */
        const char *title;  /* NULL: "perfgate history" */
};

/**
 * Write the site for @t into directory @dir. The site is built in a new
 * sibling directory and then swapped in with one rename, so readers see the
 * old site or the new one; @dir is replaced only when it does not exist,
 * is empty, or holds a previous site (its ".perfgate-history" marker).
 * @o: NULL for the defaults.
 * Errors: PG_EINPUT (@dir is a symbolic link, not a directory, or a
 * directory with other content: nothing is written), PG_EIO (with the path
 * and strerror), PG_EINPUT from the flame graph renderer (a profile it
 * refuses; the site is not written).
 */
int pg_history_site_write(const struct pg_trends *t, const char *dir, const struct pg_site_opts *o);

#endif
