/*
 * flamegraph.c - flame graphs and differential flame graphs as SVG 1.1.
 *
 * Pipeline: the stacks of head (and base) -> one prefix tree holding, per
 * node, the inclusive and self weights of both profiles (a stack's frames
 * found by (parent, name) in a hash index, so stacks need no sorting and
 * equal keys merge by themselves) -> siblings ordered by the bytes of their names
 * (a name before its extensions: the order pg_folded_key_cmp() gives whole
 * stacks) and nodes renumbered in that pre-order -> two walks over the drawn
 * part of the tree (the first measures depth and the largest |delta|, the
 * second writes the SVG).
 *
 * Invariants: a node's inclusive weight is the sum of its self weight and
 * its children's inclusive weights (pruned children included, so pruning
 * never changes a parent); offsets are exact sample positions; every number
 * is formatted with a fixed precision and the walks follow the sorted tree,
 * so the same input gives the same bytes. Nothing is printed here.
 *
 * The SVG's script (interactive zoom/search, see docs/flamegraph.md) is
 * compare/flamegraph.js, compiled in as the string pg_flame_js; it reads
 * names from data-n attributes, never from inline strings.
 */
#include "compare/flamegraph.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "common/error.h"
#include "common/hashmap.h"
#include "common/json.h"
#include "common/xml.h"
#include "compare/folded.h"

__extension__ typedef __int128 pg_i128;
__extension__ typedef unsigned __int128 pg_u128;

#define FG_NONE       UINT32_MAX
#define FG_FONT_PX    12.0
#define FG_FONT_WIDTH 0.59 /* average glyph width / font size (flamegraph.pl) */
#define FG_XPAD       10.0
#define FG_HEADER_PX  36.0 /* title line */
#define FG_SUBLINE_PX 18.0 /* each subtitle line */
#define FG_FOOTER_PX  34.0 /* details/matched line */
#define FG_LEGEND_CHAR_PX                                                                          \
        7.2 /* header wrap width per code point at 12 px (the mean
                                * advance of English text: DejaVu Sans 6.2 in Chromium,
                                * Verdana about 6.6) */
#define FG_MAX_SUBLINES  12
#define FG_DEFAULT_DEPTH 512
#define FG_MAX_HEIGHT_PX 30000.0
#define FG_MATCH_FILL    "rgb(230,0,230)"

struct fg_node {
        const char *name; /* raw frame bytes inside a row key */
        uint32_t len;
        uint32_t parent, child, last, next;
        uint32_t depth;
        uint64_t w[2]; /* inclusive weight: [0] head (or the only profile), [1] base */
        uint64_t s[2]; /* self weight */
};

struct fg_tree {
        struct fg_node *nodes; /* names point into the stacks' keys, or into owned */
        size_t n, cap;
        char **owned; /* reversed keys (opts->reverse) */
        size_t nowned;
        /* a differential tree's base stacks renamed to head's names
         * (fg_match_base()); NULL when none was; frames owned by the tree
         * when renamed, else borrowed (renamed[i]) */
        struct pg_stack *matched;
        bool *renamed;
        size_t nmatched;
        bool unordered; /* some node's children may be out of fg_sib_cmp() order */
        /* what every drawing of the tree would find again, kept by the first */
        char *named_for; /* the frames named this (fg_mark_path()), or NULL */
        uint32_t *named; /* their ids, ascending */
        size_t nnamed;
        bool missing_known[2]; /* fg_missing() of profile k */
        size_t missing_paths[2];
        uint64_t missing_weight[2];
};

struct fg_ctx {
        const struct pg_flame_opts *o;
        struct fg_tree *t;
        bool diff;
        int k; /* index of the drawn profile: 0 head, 1 base (negated companion) */
        uint64_t total[2];
        uint32_t root;         /* drawn subtree: node 0 ("all"), or the focus root */
        size_t root_depth;     /* its depth; drawn depths are relative to it */
        uint64_t span;         /* its weight: the samples the plot width stands for */
        unsigned char *onpath; /* per node: a frame of o->highlight or an ancestor of one */
        double min_w;          /* drawn iff weight >= min_w (samples) */
        size_t cap;            /* depth cap */
        /* measured by the first walk */
        size_t maxdepth;
        double maxabs_pct; /* largest |delta| drawn, in percentage points */
        size_t nmarked;    /* frames drawn that the other profile lacks */
        /* geometry */
        double width, fh, plot, height, y0, ty, charw;
        int palette;
        struct pg_buf tmp;
};

/* ---- rows and tree ------------------------------------------------------ */

static char *fg_reverse_key(const char *s, size_t len)
{
        char *r = pg_xmalloc(len + 1);
        size_t out = 0, end = len;
        for (size_t i = len; i-- > 0;) {
                if (s[i] == ';') {
                        memcpy(r + out, s + i + 1, end - i - 1);
                        out += end - i - 1;
                        r[out++] = ';';
                        end = i;
                }
        }
        memcpy(r + out, s, end);
        out += end;
        r[out] = '\0';
        return r;
}

static void fg_tree_release(struct fg_tree *t)
{
        for (size_t i = 0; i < t->nmatched; i++)
                if (t->renamed[i])
                        free(t->matched[i].frames);
        free(t->matched);
        free(t->renamed);
        for (size_t i = 0; i < t->nowned; i++)
                free(t->owned[i]);
        free(t->owned);
        free(t->nodes);
        free(t->named_for);
        free(t->named);
        memset(t, 0, sizeof(*t));
}

static int fg_node_new(struct fg_tree *t, uint32_t parent, const char *name, size_t len,
                       uint32_t *out)
{
        if (t->n >= FG_NONE - 1 || len > UINT32_MAX)
                return pg_error_set(PG_EINPUT, "profile has too many distinct frames to draw");
        if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 1024;
                t->nodes = pg_xreallocarray(t->nodes, t->cap, sizeof(*t->nodes));
        }
        uint32_t id = (uint32_t) t->n++;
        struct fg_node *n = &t->nodes[id];
        memset(n, 0, sizeof(*n));
        n->name = name;
        n->len = (uint32_t) len;
        n->parent = parent;
        n->child = n->last = n->next = FG_NONE;
        if (parent != FG_NONE) {
                struct fg_node *p = &t->nodes[parent];
                n->depth = p->depth + 1;
                if (p->last == FG_NONE)
                        p->child = id;
                else
                        t->nodes[p->last].next = id;
                p->last = id;
        }
        *out = id;
        return 0;
}

static int fg_add_checked(uint64_t *a, uint64_t b)
{
        if (*a > UINT64_MAX - b)
                return pg_error_set(PG_EINPUT, "sample counts add up to more than 2^64");
        *a += b;
        return 0;
}

/* (parent, name) -> child, while the tree is built: open addressing; a
 * slot holds a node id + 1 (0: empty) and the upper half of the key's hash,
 * which also picks the slot, so growing needs no hashing and a probe reads
 * a node only when the halves match. */
struct fg_slot {
        uint32_t id, tag;
};

struct fg_index {
        struct fg_slot *slot;
        size_t cap;
};

static uint32_t fg_child_tag(uint32_t parent, const char *name, size_t len)
{
        return (uint32_t) ((pg_hash_bytes(name, len) ^ pg_hash_u64(parent)) >> 32);
}

/* The slot holding the child @name of @parent, or the empty slot for it. */
static struct fg_slot *fg_index_slot(struct fg_index *x, const struct fg_tree *t, uint32_t parent,
                                     const char *name, size_t len, uint32_t tag)
{
        size_t mask = x->cap - 1;

        for (size_t i = tag & mask;; i = (i + 1) & mask) {
                const struct fg_node *n;
                if (!x->slot[i].id)
                        return &x->slot[i];
                if (x->slot[i].tag != tag)
                        continue;
                n = &t->nodes[x->slot[i].id - 1];
                if (n->parent == parent && n->len == len && memcmp(n->name, name, len) == 0)
                        return &x->slot[i];
        }
}

/* Room for one more node at a load of at most 0.7 (a tag indexes 2^32 slots). */
static void fg_index_reserve(struct fg_index *x, const struct fg_tree *t)
{
        size_t ncap;
        struct fg_slot *ns;

        if ((t->n + 1) * 10 <= x->cap * 7)
                return;
        ncap = x->cap ? 2 * x->cap : 1024;
        ns = pg_xcalloc(ncap, sizeof(*ns));
        for (size_t i = 0; i < x->cap; i++) {
                size_t j;
                if (!x->slot[i].id)
                        continue;
                for (j = x->slot[i].tag & (ncap - 1); ns[j].id; j = (j + 1) & (ncap - 1))
                        ;
                ns[j] = x->slot[i];
        }
        free(x->slot);
        x->slot = ns;
        x->cap = ncap;
}

struct fg_sib {
        const char *name;
        uint32_t len, id;
};

/* Sibling order: bytes of the names, a name before its extensions (in a
 * folded key a name ends at ';' or at the end, both below every byte). */
static int fg_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
        int c = memcmp(a, b, alen < blen ? alen : blen);
        if (c)
                return c;
        return (alen > blen) - (alen < blen);
}

static int fg_sib_cmp(const void *pa, const void *pb)
{
        const struct fg_sib *a = pa, *b = pb;
        return fg_name_cmp(a->name, a->len, b->name, b->len);
}

/*
 * Order every node's children by fg_sib_cmp() and renumber the nodes in
 * pre-order (a parent before its children, siblings in order): the numbering
 * building the tree from sorted stacks would give.
 */
static void fg_tree_order(struct fg_tree *t)
{
        struct fg_sib *sib = NULL;
        size_t sibcap = 0;
        uint32_t *newid, next = 0;
        bool moved = false;

        for (size_t p = 0; t->unordered && p < t->n; p++) {
                size_t k = 0;
                bool sorted = true;
                for (uint32_t c = t->nodes[p].child; c != FG_NONE; c = t->nodes[c].next) {
                        if (k == sibcap) {
                                sibcap = sibcap ? 2 * sibcap : 64;
                                sib = pg_xreallocarray(sib, sibcap, sizeof(*sib));
                        }
                        sib[k].name = t->nodes[c].name;
                        sib[k].len = t->nodes[c].len;
                        sib[k].id = c;
                        if (k && fg_sib_cmp(&sib[k - 1], &sib[k]) > 0)
                                sorted = false;
                        k++;
                }
                if (sorted)
                        continue;
                qsort(sib, k, sizeof(*sib), fg_sib_cmp);
                t->nodes[p].child = sib[0].id;
                t->nodes[p].last = sib[k - 1].id;
                for (size_t i = 0; i < k; i++)
                        t->nodes[sib[i].id].next = i + 1 < k ? sib[i + 1].id : FG_NONE;
        }
        free(sib);
        /* pre-order walk from the root (node 0) */
        newid = pg_xmalloc(t->n * sizeof(*newid));
        for (uint32_t id = 0; id != FG_NONE;) {
                moved |= id != next;
                newid[id] = next++;
                if (t->nodes[id].child != FG_NONE) {
                        id = t->nodes[id].child;
                        continue;
                }
                while (id != FG_NONE && t->nodes[id].next == FG_NONE)
                        id = t->nodes[id].parent;
                if (id != FG_NONE)
                        id = t->nodes[id].next;
        }
        /* links first, then the nodes moved in place cycle by cycle (a copy
         * of the node array would double the peak memory); nothing to do
         * when the nodes were made in pre-order already */
        for (size_t i = 0; moved && i < t->n; i++) {
                struct fg_node *n = &t->nodes[i];
                n->parent = n->parent == FG_NONE ? FG_NONE : newid[n->parent];
                n->child = n->child == FG_NONE ? FG_NONE : newid[n->child];
                n->last = n->last == FG_NONE ? FG_NONE : newid[n->last];
                n->next = n->next == FG_NONE ? FG_NONE : newid[n->next];
        }
        for (uint32_t i = 0; moved && i < t->n; i++) {
                while (newid[i] != i) {
                        uint32_t j = newid[i];
                        struct fg_node tmp = t->nodes[j];
                        t->nodes[j] = t->nodes[i];
                        t->nodes[i] = tmp;
                        newid[i] = newid[j];
                        newid[j] = j;
                }
        }
        free(newid);
}

/* Count @count samples of profile @k for the stack whose chain of nodes is
 * path[0 .. depth]: self of the last, inclusive of all. */
static int fg_path_count(struct fg_tree *t, const uint32_t *path, size_t depth, int k,
                         uint64_t count)
{
        int error;

        t->nodes[path[depth]].s[k] += count;
        for (size_t d = 0; d <= depth; d++)
                if ((error = fg_add_checked(&t->nodes[path[d]].w[k], count)) < 0)
                        return error;
        return 0;
}

/* Add one stack (@key, @len bytes) with @count samples of profile @k;
 * path[0 .. *open) is the previous stack's chain of nodes. */
static int fg_tree_add(struct fg_tree *t, struct fg_index *x, uint32_t **pathp, size_t *pathcap,
                       size_t *open, const char *key, size_t len, int k, uint64_t count)
{
        uint32_t *path = *pathp;
        size_t depth = 0, pos = 0;
        bool same = true;
        int error;

        while (pos <= len) {
                const char *f = key + pos;
                const char *semi = memchr(f, ';', len - pos);
                size_t flen = semi ? (size_t) (semi - f) : len - pos;
                depth++;
                if (depth >= *pathcap) {
                        *pathcap *= 2;
                        path = *pathp = pg_xreallocarray(path, *pathcap, sizeof(*path));
                }
                /* consecutive stacks mostly share their first frames */
                if (same && depth < *open) {
                        const struct fg_node *n = &t->nodes[path[depth]];
                        if (n->len != flen || memcmp(n->name, f, flen) != 0)
                                same = false;
                } else {
                        same = false;
                }
                if (!same) {
                        uint32_t parent = path[depth - 1], tag;
                        struct fg_slot *slot;
                        fg_index_reserve(x, t);
                        tag = fg_child_tag(parent, f, flen);
                        slot = fg_index_slot(x, t, parent, f, flen, tag);
                        if (!slot->id) {
                                uint32_t id = 0;
                                if ((error = fg_node_new(t, parent, f, flen, &id)) < 0)
                                        return error;
                                slot->id = id + 1;
                                slot->tag = tag;
                        }
                        path[depth] = slot->id - 1;
                }
                pos += flen + 1;
        }
        *open = depth + 1;
        return fg_path_count(t, path, depth, k, count);
}

/* Index every node but the root by (parent, name): what the sorted build
 * (fg_tree_add_sorted()) made without an index, for fg_tree_add(). */
static void fg_index_all(struct fg_index *x, const struct fg_tree *t)
{
        fg_index_reserve(x, t);
        for (uint32_t id = 1; id < t->n; id++) {
                const struct fg_node *n = &t->nodes[id];
                uint32_t tag = fg_child_tag(n->parent, n->name, n->len);
                struct fg_slot *slot = fg_index_slot(x, t, n->parent, n->name, n->len, tag);
                slot->id = id + 1;
                slot->tag = tag;
        }
}

/* Children made for the last frame of a key that a later key in strcmp()
 * order may still come back to (fg_tree_add_sorted()), deepest last. */
struct fg_pending {
        struct fg_pend {
                uint32_t depth, id;
        } * e;
        size_t n, cap;
};

/*
 * The child @f (@flen bytes) of @parent at @depth if it waits in @p, else
 * FG_NONE; drops the entries that can no longer come back. A waiting child
 * X was the last frame of a key "...;X"; with the keys in strcmp() order a
 * key "...;X;..." comes back to it only while the siblings in between are
 * extensions of X by a byte below ';' (below X's own subtree), and every
 * entry deeper than @depth is below a frame the keys have left for good.
 */
static uint32_t fg_pending_take(const struct fg_tree *t, struct fg_pending *p, size_t depth,
                                uint32_t parent, const char *f, size_t flen)
{
        while (p->n && p->e[p->n - 1].depth > depth)
                p->n--;
        while (p->n && p->e[p->n - 1].depth == depth) {
                uint32_t id = p->e[p->n - 1].id;
                const struct fg_node *c = &t->nodes[id];
                if (c->parent == parent && c->len <= flen && memcmp(c->name, f, c->len) == 0) {
                        if (c->len == flen) {
                                p->n--;
                                return id;
                        }
                        if ((unsigned char) f[c->len] < ';')
                                break; /* it and the entries below it may come back */
                }
                p->n--;
        }
        return FG_NONE;
}

static void fg_pending_push(struct fg_pending *p, size_t depth, uint32_t id)
{
        if (p->n == p->cap) {
                p->cap = p->cap ? 2 * p->cap : 64;
                p->e = pg_xreallocarray(p->e, p->cap, sizeof(*p->e));
        }
        p->e[p->n].depth = (uint32_t) depth;
        p->e[p->n++].id = id;
}

/*
 * fg_tree_add() for keys that come in strcmp() order, without the index:
 * @prev is the key added before (NULL: none yet; path[0 .. *open) its
 * chain) and its first @common bytes equal @key's. A frame that ends within
 * them where @prev's frame ends too is the previous key's node; the first
 * other frame is a new child unless it waits in @pend, and every frame after
 * it is a new child of a new (or childless) node.
 */
static int fg_tree_add_sorted(struct fg_tree *t, struct fg_pending *pend, uint32_t **pathp,
                              size_t *pathcap, size_t *open, const char *key, const char *prev,
                              size_t common, int k, uint64_t count)
{
        uint32_t *path = *pathp;
        size_t depth = 0, e;
        bool shared = prev != NULL;
        int error;

        for (size_t pos = 0;; pos = e + 1) {
                const char *f = key + pos;
                for (e = pos; key[e] && key[e] != ';'; e++)
                        ;
                depth++;
                if (depth >= *pathcap) {
                        *pathcap *= 2;
                        path = *pathp = pg_xreallocarray(path, *pathcap, sizeof(*path));
                }
                if (shared && common >= e && (prev[e] == ';' || prev[e] == '\0'))
                        ; /* path[depth]: the previous key's frame */
                else {
                        uint32_t parent = path[depth - 1], id = FG_NONE;
                        if (shared) {
                                shared = false;
                                id = fg_pending_take(t, pend, depth, parent, f, e - pos);
                        }
                        if (id == FG_NONE) {
                                uint32_t last = t->nodes[parent].last;
                                if ((error = fg_node_new(t, parent, f, e - pos, &id)) < 0)
                                        return error;
                                if (last != FG_NONE &&
                                    fg_name_cmp(t->nodes[last].name, t->nodes[last].len, f,
                                                e - pos) > 0)
                                        t->unordered = true;
                                if (!key[e])
                                        fg_pending_push(pend, depth, id);
                        }
                        path[depth] = id;
                }
                if (!key[e])
                        break;
        }
        *open = depth + 1;
        return fg_path_count(t, path, depth, k, count);
}

/*
 * Build the prefix tree (root "all" = node 0) from the stacks of @nsrc
 * profiles (stacks[k], n[k]: the weights w[k], s[k]), in any order, reversing
 * keys when asked; stacks with count 0 or an empty key carry no frame and are
 * skipped. The profiles are merged in strcmp() order (a profile's stacks
 * usually come sorted, pg_profile's always): while the merged keys stay in
 * order the tree is built without an index (fg_tree_add_sorted()); from
 * the first key out of order (or with reversed keys) every frame is found
 * through the (parent, name) index (fg_tree_add()). Both give the same tree.
 */
static int fg_tree_build(struct fg_tree *t, const struct pg_stack *const stacks[2],
                         const size_t n[2], int nsrc, bool reverse)
{
        struct fg_index x = { 0 };
        struct fg_pending pend = { 0 };
        uint32_t *path = NULL, root = 0;
        size_t pathcap = 64, next[2] = { 0, 0 };
        const char *prev = NULL;
        bool sorted = !reverse;
        int error;

        if ((error = fg_node_new(t, FG_NONE, "all", 3, &root)) < 0)
                return error;
        t->unordered = !sorted;
        path = pg_xmalloc(pathcap * sizeof(*path));
        path[0] = root;
        size_t open = 1; /* path[0..open) is the previous row's chain */
        if (reverse)
                t->owned =
                    pg_xreallocarray(NULL, n[0] + (nsrc > 1 ? n[1] : 0) + 1, sizeof(*t->owned));
        for (;;) {
                bool more0 = next[0]<n[0], more1 = nsrc> 1 && next[1] < n[1];
                const struct pg_stack *st;
                const char *key;
                size_t len;
                int src;

                if (!more0 && !more1)
                        break;
                if (more0 && more1)
                        src = strcmp(stacks[0][next[0]].frames, stacks[1][next[1]].frames) <= 0 ? 0
                                                                                                : 1;
                else
                        src = more0 ? 0 : 1;
                st = &stacks[src][next[src]++];
                if (st->count == 0 || st->frames[0] == '\0')
                        continue;
                if (sorted) {
                        size_t common = 0;
                        while (prev && prev[common] && prev[common] == st->frames[common])
                                common++;
                        if (prev &&
                            (unsigned char) prev[common] > (unsigned char) st->frames[common]) {
                                sorted = false;
                                t->unordered = true;
                                fg_index_all(&x, t);
                        } else {
                                if ((error = fg_tree_add_sorted(t, &pend, &path, &pathcap, &open,
                                                                st->frames, prev, common, src,
                                                                st->count)) < 0)
                                        goto done;
                                prev = st->frames;
                                continue;
                        }
                }
                key = st->frames;
                len = strlen(key);
                if (reverse)
                        key = t->owned[t->nowned++] = fg_reverse_key(st->frames, len);
                if ((error = fg_tree_add(t, &x, &path, &pathcap, &open, key, len, src, st->count)) <
                    0)
                        goto done;
        }
        free(x.slot);
        x.slot = NULL;
        free(pend.e);
        pend.e = NULL;
        fg_tree_order(t);
        error = 0;
done:
        free(x.slot);
        free(pend.e);
        free(path);
        return error;
}

/* ---- names --------------------------------------------------------------- */

static void fg_put_text(struct pg_buf *out, const char *s)
{
        pg_xml_put(out, s);
}

/* Byte length of the first @chars code points of clean UTF-8 @s. */
static size_t fg_cp_prefix(const char *s, size_t len, size_t chars, size_t *ncp)
{
        size_t i = 0, n = 0;
        while (i < len && n < chars) {
                size_t l = pg_utf8_seqlen((const unsigned char *) s + i, len - i);
                i += l ? l : 1;
                n++;
        }
        *ncp = n;
        return i;
}

static size_t fg_cp_count(const char *s, size_t len)
{
        size_t n;
        fg_cp_prefix(s, len, SIZE_MAX, &n);
        return n;
}

static void fg_put_count(struct pg_buf *out, uint64_t v)
{
        char d[32];
        int n = snprintf(d, sizeof(d), "%llu", (unsigned long long) v);
        for (int i = 0; i < n; i++) {
                if (i > 0 && (n - i) % 3 == 0)
                        pg_buf_putc(out, ',');
                pg_buf_putc(out, d[i]);
        }
}

/* ---- colours -------------------------------------------------------------- */

static const char *const fg_palettes[] = { "hot",  "mem",    "io",     "red",    "green", "blue",
                                           "aqua", "yellow", "purple", "orange", NULL };
enum { FG_HOT, FG_MEM, FG_IO, FG_RED, FG_GREEN, FG_BLUE, FG_AQUA, FG_YELLOW, FG_PURPLE, FG_ORANGE };

/*
 * FNV-1a over the name, then the splitmix64 finaliser so that nearby names
 * spread over the palette. The colour depends on the name only, so a
 * function has the same colour in every graph.
 */
static uint64_t fg_hash(const char *s, size_t len)
{
        uint64_t h = 1469598103934665603ULL;
        for (size_t i = 0; i < len; i++) {
                h ^= (unsigned char) s[i];
                h *= 1099511628211ULL;
        }
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebULL;
        h ^= h >> 31;
        return h;
}

static void fg_palette_rgb(int pal, uint64_t h, int rgb[3])
{
        double v1 = (double) (h & 0xffff) / 65536.0;
        double v2 = (double) ((h >> 16) & 0xffff) / 65536.0;
        double v3 = (double) ((h >> 32) & 0xffff) / 65536.0;
        int r, g, b;
        switch (pal) {
        case FG_MEM:
                r = 0, g = 190 + (int) (50 * v2), b = (int) (210 * v1);
                break;
        case FG_IO:
                r = 80 + (int) (60 * v1), g = r, b = 190 + (int) (55 * v2);
                break;
        case FG_RED:
                r = 200 + (int) (55 * v1), g = b = 50 + (int) (80 * v1);
                break;
        case FG_GREEN:
                g = 200 + (int) (55 * v1), r = b = 50 + (int) (60 * v1);
                break;
        case FG_BLUE:
                b = 205 + (int) (50 * v1), r = g = 80 + (int) (60 * v1);
                break;
        case FG_AQUA:
                r = 50 + (int) (60 * v1), g = b = 165 + (int) (55 * v1);
                break;
        case FG_YELLOW:
                r = g = 175 + (int) (55 * v1), b = 50 + (int) (20 * v1);
                break;
        case FG_PURPLE:
                r = b = 190 + (int) (65 * v1), g = 80 + (int) (60 * v1);
                break;
        case FG_ORANGE:
                r = 190 + (int) (65 * v1), g = 90 + (int) (65 * v1), b = 0;
                break;
        default: /* hot */
                r = 205 + (int) (50 * v3), g = (int) (230 * v1), b = (int) (55 * v2);
                break;
        }
        rgb[0] = r, rgb[1] = g, rgb[2] = b;
}

/* Kind palettes win over --colors: kernel orange, JIT green, inlined aqua. */
static void fg_name_rgb(const struct fg_ctx *c, const char *clean, size_t len,
                        enum pg_frame_kind kind, int rgb[3])
{
        if ((len == 1 && clean[0] == '-') || (len == 2 && clean[0] == '-' && clean[1] == '-')) {
                rgb[0] = rgb[1] = rgb[2] = 160;
                return;
        }
        int pal = kind == PG_FRAME_KERNEL    ? FG_ORANGE
                  : kind == PG_FRAME_JIT     ? FG_GREEN
                  : kind == PG_FRAME_INLINED ? FG_AQUA
                                             : c->palette;
        fg_palette_rgb(pal, fg_hash(clean, len), rgb);
}

/*
 * Delta of a node in percentage points of the drawn profile's total.
 * Share mode: 100 * (h/T_H - b/T_B), computed as one exact fraction so that
 * "unchanged" is exactly 0 and its sign is exact. Raw mode (two-column input,
 * flamegraph.pl): 100 * (h - b) / T_drawn. Own-time mode (o->base_time and
 * o->head_time > 0): 100 * (h/T_H * T'_H - b/T_B * T'_B) / T'_H, the change of
 * the frame's estimated own time in percent of head's time. Returns the sign.
 */
static bool fg_time_mode(const struct pg_flame_opts *o)
{
        double r = o->base_time / o->head_time;
        return !o->raw_delta && o->base_time > 0 && o->head_time > 0 && isfinite(r) && r > 0;
}

/* Share mode's delta, 100 * (h/T_H - b/T_B), as one exact fraction. */
static int fg_share_delta(const struct fg_ctx *c, uint64_t h, uint64_t b, double *pct)
{
        pg_i128 num = (pg_i128) ((pg_u128) h * c->total[1]) - (pg_i128) ((pg_u128) b * c->total[0]);
        pg_u128 den = (pg_u128) c->total[0] * c->total[1];

        *pct = 100.0 * (double) num / (double) den;
        return (num > 0) - (num < 0);
}

static int fg_delta(const struct fg_ctx *c, uint64_t h, uint64_t b, double *pct)
{
        pg_i128 num;
        pg_u128 den;
        if (fg_time_mode(c->o)) {
                /* over the common denominator T_H * T_B, with r = T'_B / T'_H
                 * (finite, fg_time_mode()): integer products stay exact, so
                 * "unchanged" is 0, and no product of times can overflow */
                double r = c->o->base_time / c->o->head_time;
                double th = (double) h * (double) c->total[1];
                double tb = (double) b * (double) c->total[0] * r;
                double d = th - tb;
                if (fabs(d) <= 1e-12 * fmax(th, tb))
                        d = 0;
                *pct = 100.0 * d / ((double) c->total[0] * (double) c->total[1]);
                return (d > 0) - (d < 0);
        }
        if (!c->o->raw_delta)
                return fg_share_delta(c, h, b, pct);
        num = (pg_i128) h - (pg_i128) b;
        den = c->total[c->k];
        *pct = 100.0 * (double) num / (double) den;
        return (num > 0) - (num < 0);
}

/*
 * The sign a frame is coloured with: fg_delta()'s @sign, except in own-time
 * mode when the frame's self share moved the other way by at least the noise
 * floor (all the way when there is none): then 0, white. Own time moves with
 * the run's task-clock, noise included (a loaded batch), and the share
 * moves when other frames change, so the colour is only drawn when the two
 * do not contradict each other: a frame whose share fell by many points is
 * never red because its batch ran slow, and an untouched frame whose share
 * fell because another grew stays white (its own time did not move).
 */
static int fg_colour_sign(const struct fg_ctx *c, uint64_t h, uint64_t b, int sign)
{
        double pp;
        int s;

        if (!fg_time_mode(c->o) || sign == 0)
                return sign;
        s = fg_share_delta(c, h, b, &pp);
        return s == -sign && fabs(pp) >= c->o->noise_floor * 100.0 ? 0 : sign;
}

/*
 * The colour of a frame of a differential flame graph, from the change of
 * its self share (@sign, @pct: fg_delta()): red grew, blue shrank, white
 * unchanged or below the noise floor; the colour saturates with |change|
 * relative to the largest drawn (c = floor(210 * (1 - |delta| / max)):
 * rgb(255,c,c) or rgb(c,c,255); docs/diff.md).
 */
static void fg_diff_rgb(const struct fg_ctx *c, int sign, double pct, int rgb[3])
{
        double t = c->maxabs_pct > 0 ? fabs(pct) / c->maxabs_pct : 0;
        int v = (int) floor(210.0 * (1.0 - (t > 1 ? 1 : t)));

        if (sign == 0 || fabs(pct) < c->o->noise_floor * 100.0)
                rgb[0] = rgb[1] = rgb[2] = 255;
        else if (sign > 0)
                rgb[0] = 255, rgb[1] = rgb[2] = v;
        else
                rgb[0] = rgb[1] = v, rgb[2] = 255;
}

/* ---- SVG ------------------------------------------------------------------- */

static const char pg_flame_css[] =
    "text{font-family:Verdana,sans-serif;font-size:12px;fill:rgb(0,0,0)}"
    "#title{text-anchor:middle;font-size:17px}"
    ".sub{text-anchor:middle;fill:rgb(80,80,80)}"
    "#search,#ignorecase,#unzoom{cursor:pointer;opacity:0.4}"
    "#search:hover,#ignorecase:hover,#unzoom:hover,#ignorecase.on{opacity:1}"
    "#search{text-anchor:end}"
    "#matched{text-anchor:end}"
    "#frames>g{cursor:pointer}"
    "#frames>g:hover>rect{stroke:rgb(0,0,0);stroke-width:0.5}"
    "#frames text{pointer-events:none}"
    ".new>rect,.gone>rect{stroke:rgb(0,0,0);stroke-width:1;stroke-dasharray:3,2}"
    ".more>rect{stroke:rgb(120,120,120);stroke-dasharray:1,2}"
    ".dk{fill:rgb(255,255,255)}"
    ".parent{opacity:0.5}"
    ".hide{display:none}";

/* pg_flame_js: compare/flamegraph.js, embedded at build time (cmake/embed.cmake) */
#include "flamegraph_js.h"

static bool fg_drawn(const struct fg_ctx *c, const struct fg_node *n)
{
        return n->w[c->k] > 0 && (double) n->w[c->k] >= c->min_w;
}

static double fg_x_px(const struct fg_ctx *c, uint64_t x)
{
        return FG_XPAD + (double) x * c->plot / (double) c->span;
}

static double fg_w_px(const struct fg_ctx *c, uint64_t w)
{
        return (double) w * c->plot / (double) c->span;
}

/* @depth: absolute (in the tree); drawn relative to the root of the view. */
static double fg_y_px(const struct fg_ctx *c, size_t depth)
{
        double d = (double) (depth - c->root_depth);
        return c->o->inverted ? c->y0 + d * c->fh : c->y0 - d * c->fh;
}

/* Largest depth below @id among drawn nodes, relative to @id. */
static size_t fg_subtree_depth(const struct fg_ctx *c, uint32_t id)
{
        const struct fg_node *nodes = c->t->nodes;
        size_t best = 0, base = nodes[id].depth;
        uint32_t n = nodes[id].child;
        while (n != FG_NONE) {
                if (fg_drawn(c, &nodes[n])) {
                        if (nodes[n].depth - base > best)
                                best = nodes[n].depth - base;
                        if (nodes[n].child != FG_NONE) {
                                n = nodes[n].child;
                                continue;
                        }
                }
                while (n != FG_NONE && nodes[n].next == FG_NONE) {
                        n = nodes[n].parent;
                        if (n == id)
                                n = FG_NONE;
                }
                if (n != FG_NONE)
                        n = nodes[n].next;
        }
        return best;
}

static bool fg_has_drawn_child(const struct fg_ctx *c, uint32_t id)
{
        for (uint32_t n = c->t->nodes[id].child; n != FG_NONE; n = c->t->nodes[n].next)
                if (fg_drawn(c, &c->t->nodes[n]))
                        return true;
        return false;
}

/* @stroke: NULL, or presentation attributes for the outline (see fg_frame()). */
static void fg_rect(struct fg_ctx *c, struct pg_buf *out, double x, double y, double w,
                    const int rgb[3], const char *stroke)
{
        pg_buf_printf(out,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                      "fill=\"rgb(%d,%d,%d)\"%s/>",
                      x, y, w, c->fh - 1.0, rgb[0], rgb[1], rgb[2], stroke ? stroke : "");
}

/* Static label: whole name if it fits, else cut with "..", none under 3 chars. */
static void fg_label(struct fg_ctx *c, struct pg_buf *out, const char *clean, size_t len, double x,
                     double y, double w, const int rgb[3])
{
        double fit = floor(w / c->charw);
        if (fit < 3)
                return;
        size_t chars = fit > 1e6 ? 1000000 : (size_t) fit, ncp;
        size_t total_cp = fg_cp_count(clean, len);
        /* white text on dark fills (Rec. 601 luma), black elsewhere */
        bool dark = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 110;
        pg_buf_printf(out, "<text%s x=\"%.1f\" y=\"%.1f\">",
                      !dark         ? ""
                      : c->o->image ? " fill=\"rgb(255,255,255)\""
                                    : " class=\"dk\"",
                      x + 3.0, y + c->ty);
        if (total_cp <= chars) {
                pg_xml_escape(out, clean, len);
        } else {
                size_t bytes = fg_cp_prefix(clean, len, chars - 2, &ncp);
                pg_xml_escape(out, clean, bytes);
                pg_buf_puts(out, "..");
        }
        pg_buf_puts(out, "</text>");
}

static void fg_frame(struct fg_ctx *c, struct pg_buf *out, uint32_t id, uint64_t x)
{
        const struct fg_node *n = &c->t->nodes[id];
        int k = c->k, o = 1 - k, rgb[3];
        enum pg_frame_kind kind;
        size_t slen = pg_frame_strip(n->name, n->len, &kind);
        double xp = fg_x_px(c, x), wp = fg_w_px(c, n->w[k]);
        double yp = fg_y_px(c, n->depth), pct = 0;
        const char *stroke = NULL;
        int sign = 0;
        bool marked = c->diff && n->depth > 0 && n->w[o] == 0;

        pg_buf_reset(&c->tmp);
        pg_xml_clean(&c->tmp, n->name, slen);
        pg_buf_puts(out, "<g");
        if (marked)
                pg_buf_puts(out, k == 0 ? " class=\"new\"" : " class=\"gone\"");
        pg_buf_puts(out, " data-n=\"");
        pg_xml_escape(out, c->tmp.ptr, c->tmp.len);
        pg_buf_printf(out, "\" data-x=\"%llu\" data-w=\"%llu\"", (unsigned long long) x,
                      (unsigned long long) n->w[k]);
        if (c->diff) {
                double di;
                fg_delta(c, n->w[0], n->w[1], &di);
                pg_buf_printf(out, " data-%c=\"%llu\" data-di=\"%.4f\"", k == 0 ? 'b' : 'h',
                              (unsigned long long) n->w[o], di == 0 ? 0.0 : di);
                sign = fg_delta(c, n->s[0], n->s[1], &pct);
        }
        pg_buf_puts(out, "><title>");
        pg_xml_escape(out, c->tmp.ptr, c->tmp.len);
        pg_buf_puts(out, " (");
        fg_put_count(out, n->w[k]);
        pg_buf_putc(out, ' ');
        fg_put_text(out, c->o->countname ? c->o->countname : "samples");
        if (n->depth == 0) {
                pg_buf_puts(out, ", 100%)");
        } else {
                pg_buf_printf(out, ", %.2f%%", 100.0 * (double) n->w[k] / (double) c->total[k]);
                if (c->diff)
                        pg_buf_printf(out, "; %s%.2f%%", sign > 0 ? "+" : "", pct);
                pg_buf_putc(out, ')');
        }
        pg_buf_puts(out, "</title>");
        if (c->diff) {
                fg_diff_rgb(c, fg_colour_sign(c, n->s[0], n->s[1], sign), pct, rgb);
        } else {
                fg_name_rgb(c, c->tmp.ptr, c->tmp.len, kind, rgb);
        }
        /* The regressed path is outlined in red; in an image, the dashed
         * outline of new/gone frames is an attribute (no style sheet). */
        if (c->onpath && c->onpath[id])
                stroke = " stroke=\"rgb(200,0,0)\" stroke-width=\"2\"";
        else if (marked && c->o->image)
                stroke = " stroke=\"rgb(0,0,0)\" stroke-width=\"1\" stroke-dasharray=\"3,2\"";
        fg_rect(c, out, xp, yp, wp, rgb, stroke);
        fg_label(c, out, c->tmp.ptr, c->tmp.len, xp, yp, wp, rgb);
        pg_buf_puts(out, "</g>\n");
}

/* "[N more frames]" on top of a node at the depth cap whose children are cut. */
static void fg_more(struct fg_ctx *c, struct pg_buf *out, uint32_t id, uint64_t x)
{
        const struct fg_node *n = &c->t->nodes[id];
        uint64_t w = n->w[c->k] - n->s[c->k];
        size_t more = fg_subtree_depth(c, id);
        double xp = fg_x_px(c, x), wp = fg_w_px(c, w);
        double yp = fg_y_px(c, n->depth + 1);
        static const int grey[3] = { 200, 200, 200 };
        char name[64];

        snprintf(name, sizeof(name), "[%zu more frame%s]", more, more == 1 ? "" : "s");
        pg_buf_printf(out,
                      "<g class=\"more\" data-n=\"%s\" data-more=\"%zu\" data-x=\"%llu\" "
                      "data-w=\"%llu\"><title>%s (",
                      name, more, (unsigned long long) x, (unsigned long long) w, name);
        fg_put_count(out, w);
        pg_buf_putc(out, ' ');
        fg_put_text(out, c->o->countname ? c->o->countname : "samples");
        pg_buf_printf(out, ", %.2f%%)</title>", 100.0 * (double) w / (double) c->total[c->k]);
        fg_rect(c, out, xp, yp, wp, grey,
                c->o->image ? " stroke=\"rgb(120,120,120)\" stroke-dasharray=\"1,2\"" : NULL);
        fg_label(c, out, name, strlen(name), xp, yp, wp, grey);
        pg_buf_puts(out, "</g>\n");
}

/*
 * Pre-order walk over drawn nodes up to the depth cap, tracking each node's
 * exact sample offset (xs[d] is the offset of the current node at depth d).
 * With @out NULL it measures (depth, largest |delta|, marked frames);
 * otherwise it writes the frames.
 */
static void fg_walk(struct fg_ctx *c, struct pg_buf *out)
{
        const struct fg_node *nodes = c->t->nodes;
        uint64_t *xs = pg_xcalloc(c->cap + 2, sizeof(*xs));
        uint32_t id = c->root;

        while (id != FG_NONE) {
                const struct fg_node *n = &nodes[id];
                size_t d = n->depth - c->root_depth; /* depth in the view */
                uint64_t x = xs[d];
                bool descend = false;
                if (fg_drawn(c, n)) {
                        if (out) {
                                fg_frame(c, out, id, x);
                        } else {
                                if (d > c->maxdepth)
                                        c->maxdepth = d;
                                if (c->diff) {
                                        double pct;
                                        int sign = fg_delta(c, n->s[0], n->s[1], &pct);
                                        if (fg_colour_sign(c, n->s[0], n->s[1], sign) != 0 &&
                                            fabs(pct) > c->maxabs_pct)
                                                c->maxabs_pct = fabs(pct);
                                        if (n->depth > 0 && n->w[1 - c->k] == 0)
                                                c->nmarked++;
                                }
                        }
                        if (d < c->cap) {
                                descend = n->child != FG_NONE;
                        } else if (fg_has_drawn_child(c, id)) {
                                if (out)
                                        fg_more(c, out, id, x);
                                else if (d + 1 > c->maxdepth)
                                        c->maxdepth = d + 1;
                        }
                }
                if (descend) {
                        xs[d + 1] = x; /* the first child starts where its parent does */
                        id = n->child;
                        continue;
                }
                /* up to the next sibling, never past the root of the view */
                while (id != c->root && nodes[id].next == FG_NONE)
                        id = nodes[id].parent;
                if (id == c->root)
                        break;
                xs[nodes[id].depth - c->root_depth] += nodes[id].w[c->k];
                id = nodes[id].next;
        }
        free(xs);
}

/* ---- options, geometry, document ------------------------------------------ */

void pg_flame_opts_init(struct pg_flame_opts *o)
{
        memset(o, 0, sizeof(*o));
        o->minwidth_px = -1;
}

static int fg_number(const char *name, const char *value, double *out)
{
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v) || v < 0)
                return pg_error_set(PG_EINPUT, "invalid --%s '%s'; expected a number >= 0", name,
                                    value);
        *out = v;
        return 0;
}

int pg_flame_opts_set(struct pg_flame_opts *o, const char *name, const char *value)
{
        double v = 0;
        int error;

        if (strcmp(name, "title") == 0) {
                o->title = value;
        } else if (strcmp(name, "subtitle") == 0) {
                o->subtitle = value;
        } else if (strcmp(name, "countname") == 0) {
                o->countname = value;
        } else if (strcmp(name, "colors") == 0) {
                o->colors = value;
        } else if (strcmp(name, "width") == 0 || strcmp(name, "height") == 0) {
                if ((error = fg_number(name, value, &v)) < 0)
                        return error;
                if (v == 0)
                        return pg_error_set(PG_EINPUT, "invalid --%s '%s'; expected pixels > 0",
                                            name, value);
                *(name[0] == 'w' ? &o->width_px : &o->frame_height_px) = v;
        } else if (strcmp(name, "minwidth") == 0) {
                size_t len = strlen(value);
                if (len > 1 && value[len - 1] == '%') {
                        char *num = pg_xstrndup(value, len - 1);
                        error = fg_number(name, num, &v);
                        free(num);
                        if (error < 0)
                                return error;
                        o->minwidth_pct = v;
                        o->minwidth_px = 0;
                } else {
                        if ((error = fg_number(name, value, &v)) < 0)
                                return error;
                        o->minwidth_px = v;
                        o->minwidth_pct = 0;
                }
        } else if (strcmp(name, "max-depth") == 0) {
                if ((error = fg_number(name, value, &v)) < 0)
                        return error;
                if (v < 1 || v != floor(v) || v > 1e6)
                        return pg_error_set(PG_EINPUT,
                                            "invalid --max-depth '%s'; expected a whole number of "
                                            "frames >= 1",
                                            value);
                o->max_depth = (size_t) v;
        } else if (strcmp(name, "noise-floor") == 0) {
                if ((error = fg_number(name, value, &v)) < 0)
                        return error;
                o->noise_floor = v / 100.0;
        } else {
                return pg_error_set(PG_EINPUT, "unknown flame graph option '%s'", name);
        }
        return 0;
}

static int fg_setup(struct fg_ctx *c, const struct pg_flame_opts *o)
{
        c->o = o;
        c->width = o->width_px == 0 ? 1200.0 : o->width_px;
        if (!isfinite(c->width) || c->width < 100 || c->width > 100000)
                return pg_error_set(PG_EINPUT, "width %g px is out of range; use 100 to 100000",
                                    c->width);
        c->fh = o->frame_height_px == 0 ? 16.0 : o->frame_height_px;
        if (!isfinite(c->fh) || c->fh < 4 || c->fh > 100)
                return pg_error_set(PG_EINPUT, "frame height %g px is out of range; use 4 to 100",
                                    c->fh);
        if (!isfinite(o->minwidth_px) || !isfinite(o->minwidth_pct) || o->minwidth_pct < 0 ||
            o->minwidth_pct > 100)
                return pg_error_set(PG_EINPUT, "minimum width is out of range; use pixels >= 0 "
                                               "or a percentage from 0 to 100");
        if (!isfinite(o->noise_floor) || o->noise_floor < 0 || o->noise_floor >= 1)
                return pg_error_set(PG_EINPUT,
                                    "noise floor %g percentage points is out of range; use 0 "
                                    "to less than 100",
                                    o->noise_floor * 100);
        if (!(o->base_time >= 0) || !(o->head_time >= 0) || !isfinite(o->base_time) ||
            !isfinite(o->head_time))
                return pg_error_set(PG_EINPUT,
                                    "the times of base (%g) and head (%g) must be "
                                    "finite and not negative",
                                    o->base_time, o->head_time);
        c->palette = FG_HOT;
        if (o->colors) {
                int i;
                for (i = 0; fg_palettes[i]; i++)
                        if (strcmp(fg_palettes[i], o->colors) == 0)
                                break;
                if (!fg_palettes[i])
                        return pg_error_set(PG_EINPUT,
                                            "unknown palette '%s'; use hot, mem, io, red, green, "
                                            "blue, aqua, yellow, purple or orange",
                                            o->colors);
                c->palette = i;
        }
        size_t room = (size_t) ((FG_MAX_HEIGHT_PX - 200.0) / c->fh) - 2;
        if (o->max_depth == 0) {
                c->cap = room < FG_DEFAULT_DEPTH ? room : FG_DEFAULT_DEPTH;
        } else if (o->max_depth > room) {
                return pg_error_set(PG_EINPUT,
                                    "max depth %zu at %g px per frame makes the image taller "
                                    "than %.0f px; use at most %zu",
                                    o->max_depth, c->fh, FG_MAX_HEIGHT_PX, room);
        } else {
                c->cap = o->max_depth;
        }
        c->plot = c->width - 2 * FG_XPAD;
        c->charw = FG_FONT_PX * FG_FONT_WIDTH;
        c->ty = (c->fh - 1.0) / 2.0 + 3.0;
        return 0;
}

/* Top-level subtrees of the other profile missing from the drawn one
 * (counted once per tree and profile). */
static void fg_missing(const struct fg_ctx *c, size_t *paths, uint64_t *weight)
{
        struct fg_tree *t = c->t;
        const struct fg_node *nodes = t->nodes;
        int k = c->k, o = 1 - k;
        if (!t->missing_known[k]) {
                t->missing_paths[k] = 0;
                t->missing_weight[k] = 0;
                for (size_t i = 1; i < t->n; i++)
                        if (nodes[i].w[k] == 0 && nodes[i].w[o] > 0 &&
                            nodes[nodes[i].parent].w[k] > 0) {
                                t->missing_paths[k]++;
                                t->missing_weight[k] += nodes[i].w[o];
                        }
                t->missing_known[k] = true;
        }
        *paths = t->missing_paths[k];
        *weight = t->missing_weight[k];
}

static void fg_put_subline(struct fg_ctx *c, struct pg_buf *out, int line, const char *text)
{
        pg_buf_printf(out, "<text class=\"sub\" x=\"%.1f\" y=\"%.1f\"%s>", c->width / 2,
                      24.0 + FG_SUBLINE_PX * line,
                      c->o->image ? " text-anchor=\"middle\" fill=\"rgb(80,80,80)\"" : "");
        fg_put_text(out, text);
        pg_buf_puts(out, "</text>\n");
}

/* Header lines (subtitle, counts, colour legend) wider than the drawing are
 * wrapped: @text (owned, freed) is split into lines of at most @max code
 * points (fewer, so that the lines come out about as long), after the last
 * "; " or ", " or space of each, appended to lines[*n]; the last of @cap
 * slots takes the rest. */
static void fg_wrap_line(char *text, size_t max, char **lines, int *n, int cap)
{
        const char *s = text;
        static const char *const seps[] = { "; ", ", ", " " };
        size_t total = fg_cp_count(text, strlen(text)), nl = (total + max - 1) / max;

        /* balanced: nl lines of about total / nl, not a full one and a stub */
        if (nl > 1 && total / nl + 12 < max)
                max = total / nl + 12;
        while (*n < cap) {
                size_t len = strlen(s), ncp, cut = fg_cp_prefix(s, len, max, &ncp), brk = 0;
                if (cut >= len || *n == cap - 1) {
                        lines[(*n)++] = pg_xstrdup(s);
                        break;
                }
                /* a break in the last two thirds, the strongest separator first */
                for (size_t k = 0; k < sizeof(seps) / sizeof(seps[0]) && !brk; k++) {
                        size_t sl = strlen(seps[k]); /* kept: up to the separator's space */
                        for (size_t i = cut + 1 - sl; i > cut / 3 && !brk; i--)
                                if (strncmp(s + i, seps[k], sl) == 0)
                                        brk = i + sl;
                }
                if (!brk)
                        brk = cut; /* one long word (a symbol): cut at a code point */
                {
                        size_t keep = brk;
                        while (keep > 0 && s[keep - 1] == ' ')
                                keep--;
                        lines[(*n)++] = pg_xstrndup(s, keep);
                }
                s += brk;
                while (*s == ' ')
                        s++;
                if (!*s)
                        break;
        }
        free(text);
}

static char *fg_grouped(uint64_t v)
{
        struct pg_buf b = PG_BUF_INIT;
        fg_put_count(&b, v);
        return pg_buf_detach(&b, NULL);
}

static void fg_document(struct fg_ctx *c, struct pg_buf *out)
{
        const struct pg_flame_opts *o = c->o;
        const char *count = o->countname ? o->countname : "samples";
        char *lines[5] = { NULL, NULL, NULL, NULL, NULL }, *wrapped[FG_MAX_SUBLINES];
        int nsub = 0, nwrapped = 0;

        c->maxdepth = 0;
        c->maxabs_pct = 0;
        c->nmarked = 0;
        fg_walk(c, NULL);

        if (o->subtitle && *o->subtitle)
                lines[nsub++] = pg_xstrdup(o->subtitle);
        if (c->diff) {
                const char *bn = o->base_name ? o->base_name : "base";
                const char *hn = o->head_name ? o->head_name : "head";
                char *tb = fg_grouped(c->total[1]), *th = fg_grouped(c->total[0]);
                size_t paths;
                uint64_t weight;
                lines[nsub++] =
                    pg_xasprintf("%s: %s %s -> %s: %s %s%s%s%s", bn, tb, count, hn, th, count,
                                 o->raw_delta ? " (counts compared as given)" : "",
                                 "; widths: ", c->k == 1 ? bn : hn);
                char floor_txt[64] = "";
                if (o->noise_floor > 0)
                        snprintf(floor_txt, sizeof(floor_txt), "; under %.2f%s white",
                                 o->noise_floor * 100, fg_time_mode(o) ? "%" : " pp");
                lines[nsub++] = pg_xasprintf(
                    "red = grew from base to head, blue = shrank (change of each frame's %s, "
                    "strongest %.2f%s%s%s)%s",
                    fg_time_mode(o) ? "own time, self share x run time, in % of head's time"
                    : o->raw_delta  ? "self count over the total"
                                    : "self share of samples",
                    c->maxabs_pct, fg_time_mode(o) ? "%" : " pp",
                    fg_time_mode(o) ? "; white where the self share moved the other way" : "",
                    floor_txt,
                    c->nmarked == 0 ? ""
                    : c->k == 0     ? "; dashed outline = new in head"
                                    : "; dashed outline = gone in head");
                fg_missing(c, &paths, &weight);
                if (c->root != 0)
                        paths = 0; /* about the whole graph, not this view */
                if (paths > 0 && c->k == 0)
                        lines[nsub++] = pg_xasprintf(
                            "%zu path%s of base (%.2f%% of its %s) vanished in head; the "
                            "companion graph (--negate) shows them",
                            paths, paths == 1 ? "" : "s",
                            100.0 * (double) weight / (double) c->total[1], count);
                else if (paths > 0)
                        lines[nsub++] = pg_xasprintf(
                            "%zu path%s of head (%.2f%% of its %s) %s new; the main graph shows "
                            "them",
                            paths, paths == 1 ? "" : "s",
                            100.0 * (double) weight / (double) c->total[0], count,
                            paths == 1 ? "is" : "are");
                free(tb);
                free(th);
        }

        if (c->root != 0) {
                const struct fg_node *r = &c->t->nodes[c->root];
                enum pg_frame_kind kind;
                pg_buf_reset(&c->tmp);
                pg_xml_clean(&c->tmp, r->name, pg_frame_strip(r->name, r->len, &kind));
                lines[nsub++] = pg_xasprintf(
                    "focus: the calls under %s (%.2f%% of all %s); widths are shares of it",
                    c->tmp.ptr, 100.0 * (double) c->span / (double) c->total[c->k], count);
        }
        {
                /* text of Verdana or DejaVu Sans at 12 px stays inside the
                 * width at FG_LEGEND_CHAR_PX a code point (Chromium, rsvg) */
                double room = c->width - 2 * FG_XPAD;
                size_t max =
                    room > 20 * FG_LEGEND_CHAR_PX ? (size_t) (room / FG_LEGEND_CHAR_PX) : 20;
                for (int i = 0; i < nsub; i++)
                        fg_wrap_line(lines[i], max, wrapped, &nwrapped,
                                     FG_MAX_SUBLINES - (nsub - 1 - i));
                nsub = 0;
        }
        double header = FG_HEADER_PX + FG_SUBLINE_PX * nwrapped;
        c->height = header + c->fh * (double) (c->maxdepth + 1) + FG_FOOTER_PX;
        c->y0 = o->inverted ? header : c->height - FG_FOOTER_PX - c->fh;
        const char *title = o->title ? o->title
                            : c->diff
                                ? (c->k == 1 ? "Differential Flame Graph (companion: base shape)"
                                             : "Differential Flame Graph")
                            : o->inverted ? "Icicle Graph"
                                          : "Flame Graph";

        pg_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        pg_buf_printf(out,
                      "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.1f\" "
                      "height=\"%.1f\" viewBox=\"0 0 %.1f %.1f\" data-mode=\"%s\" "
                      "data-width=\"%.1f\" data-total=\"%llu\"",
                      c->width, c->height, c->width, c->height,
                      !c->diff    ? "flame"
                      : c->k == 1 ? "diff-negate"
                                  : "diff",
                      c->width, (unsigned long long) c->span);
        if (c->diff)
                pg_buf_printf(out, " data-total-base=\"%llu\" data-total-head=\"%llu\"",
                              (unsigned long long) c->total[1], (unsigned long long) c->total[0]);
        pg_buf_printf(out,
                      " data-xpad=\"%.1f\" data-fh=\"%.1f\" data-y0=\"%.1f\" data-ty=\"%.1f\" "
                      "data-inv=\"%d\" data-charw=\"%.2f\" data-depth-cap=\"%zu\">\n",
                      FG_XPAD, c->fh, c->y0, c->ty, o->inverted ? 1 : 0, c->charw, c->cap);
        if (o->image) /* no style sheet: fonts as attributes, inherited by every <text> */
                pg_buf_puts(out, "<g font-family=\"Verdana,'DejaVu Sans',sans-serif\" "
                                 "font-size=\"12\">\n");
        pg_buf_printf(out,
                      "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" "
                      "y2=\"1\"><stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" "
                      "offset=\"95%%\"/></linearGradient></defs>\n",
                      c->diff ? "#f8f8f8" : "#eeeeee", c->diff ? "#e0e0e8" : "#eeeeb0");
        if (!o->image)
                pg_buf_printf(out, "<style type=\"text/css\">%s</style>\n", pg_flame_css);
        pg_buf_puts(out, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
                         "fill=\"url(#background)\"/>\n");
        pg_buf_printf(out, "<text id=\"title\" x=\"%.1f\" y=\"24.0\"%s>", c->width / 2,
                      o->image ? " text-anchor=\"middle\" font-size=\"17\"" : "");
        fg_put_text(out, title);
        pg_buf_puts(out, "</text>\n");
        for (int i = 0; i < nwrapped; i++)
                fg_put_subline(c, out, i + 1, wrapped[i]);
        if (o->image) {
                pg_buf_puts(out, "<g id=\"frames\">\n");
                fg_walk(c, out);
                pg_buf_puts(out, "</g>\n</g>\n</svg>\n");
                for (int i = 0; i < nwrapped; i++)
                        free(wrapped[i]);
                return;
        }
        pg_buf_printf(out, "<text id=\"details\" x=\"%.1f\" y=\"%.1f\"> </text>\n", FG_XPAD,
                      c->height - 17.0);
        pg_buf_printf(
            out, "<text id=\"unzoom\" class=\"hide\" x=\"%.1f\" y=\"24.0\">Reset Zoom</text>\n",
            FG_XPAD);
        pg_buf_printf(out,
                      "<text id=\"search\" class=\"hide\" x=\"%.1f\" y=\"24.0\">Search</text>\n",
                      c->width - 45.0);
        pg_buf_printf(out,
                      "<text id=\"ignorecase\" class=\"hide\" x=\"%.1f\" y=\"24.0\">ic</text>\n",
                      c->width - 30.0);
        pg_buf_printf(out, "<text id=\"matched\" x=\"%.1f\" y=\"%.1f\"> </text>\n",
                      c->width - FG_XPAD, c->height - 17.0);
        pg_buf_puts(out, "<g id=\"frames\">\n");
        fg_walk(c, out);
        pg_buf_puts(out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[");
        pg_buf_puts(out, pg_flame_js);
        pg_buf_puts(out, "]]></script>\n</svg>\n");
        for (int i = 0; i < nwrapped; i++)
                free(wrapped[i]);
}

/* Whether node @n is a frame of function @name (with or without its
 * stackcollapse annotation). */
static bool fg_is_named(const struct fg_node *n, const char *name, size_t len)
{
        enum pg_frame_kind kind;
        if (n->len < len || memcmp(n->name, name, len) != 0)
                return false;
        return n->len == len || pg_frame_strip(n->name, n->len, &kind) == len;
}

/*
 * Mark the frames of c->o->highlight in the drawn profile and their
 * ancestors (c->onpath), and return the widest such frame, or FG_NONE.
 */
static uint32_t fg_mark_path(struct fg_ctx *c)
{
        struct fg_tree *t = c->t;
        const char *name = c->o->highlight;
        size_t len = strlen(name);
        uint32_t best = FG_NONE;

        if (!t->named_for || strcmp(t->named_for, name) != 0) { /* the frames of that name */
                size_t cap = 0;
                free(t->named_for);
                free(t->named);
                t->named = NULL;
                t->nnamed = 0;
                for (uint32_t i = 1; i < t->n; i++) {
                        if (!fg_is_named(&t->nodes[i], name, len))
                                continue;
                        if (t->nnamed == cap) {
                                cap = cap ? 2 * cap : 16;
                                t->named = pg_xreallocarray(t->named, cap, sizeof(*t->named));
                        }
                        t->named[t->nnamed++] = i;
                }
                t->named_for = pg_xstrdup(name);
        }
        c->onpath = pg_xcalloc(t->n ? t->n : 1, 1);
        for (size_t j = 0; j < t->nnamed; j++) {
                uint32_t i = t->named[j];
                const struct fg_node *n = &t->nodes[i];
                if (n->w[c->k] == 0)
                        continue;
                if (best == FG_NONE || n->w[c->k] > t->nodes[best].w[c->k])
                        best = i;
                for (uint32_t a = i; a != FG_NONE && a != 0 && !c->onpath[a];
                     a = t->nodes[a].parent)
                        c->onpath[a] = 1;
        }
        return best;
}

/*
 * The focus view's root for frame @target: its highest ancestor at most
 * PG_FLAME_FOCUS_RATIO times as wide, so @target fills at least a tenth of
 * the width and keeps its callers near it. FG_NONE when @target is already
 * that wide in the whole graph.
 */
static uint32_t fg_focus_root(const struct fg_ctx *c, uint32_t target)
{
        const struct fg_node *nodes = c->t->nodes;
        uint64_t w = nodes[target].w[c->k];
        pg_u128 limit = (pg_u128) w * PG_FLAME_FOCUS_RATIO;
        uint32_t root = target;

        if ((pg_u128) c->total[c->k] <= limit)
                return FG_NONE;
        while (nodes[root].parent != FG_NONE && nodes[root].parent != 0 &&
               (pg_u128) nodes[nodes[root].parent].w[c->k] <= limit)
                root = nodes[root].parent;
        return root;
}

struct pg_flame_tree {
        struct fg_tree t;
        bool reverse;
};

/* Whether a frame of @n stacks may have a pg_frame_key() other than its
 * name (holds "_[i]" or "_cgo_"): a quick test before hashing frames. */
static bool fg_any_keyed(const struct pg_stack *st, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (strstr(st[i].frames, "_[i]") || strstr(st[i].frames, "_cgo_"))
                        return true;
        return false;
}

/* The frames of a profile as a trie: node i + 1 is names.keys[i], whose
 * first 4 bytes are its parent's node (0: the top, above the first frame)
 * and the rest its name; the children of node p are kids[first[p] ..
 * first[p + 1]). */
struct fg_trie {
        struct pg_strmap names;
        uint32_t *first, *kids;
};

/* The node of frame @f (@len bytes) below node @parent, interned in @tr
 * when @add, else FG_NONE when it is not there. */
static uint32_t fg_trie_node(struct fg_trie *tr, struct pg_buf *kb, uint32_t parent, const char *f,
                             size_t len, bool add)
{
        size_t idx;

        pg_buf_reset(kb);
        pg_buf_add(kb, &parent, sizeof(parent));
        pg_buf_add(kb, f, len);
        if (add)
                return (uint32_t) pg_strmap_intern(&tr->names, kb->ptr, kb->len, NULL) + 1;
        return pg_strmap_find(&tr->names, kb->ptr, kb->len, &idx) ? (uint32_t) idx + 1 : FG_NONE;
}

/* The trie of @n stacks @st, with its children lists; @leaf (NULL, or room
 * for @n): each stack's leaf node. */
static void fg_trie_build(struct fg_trie *tr, struct pg_buf *kb, const struct pg_stack *st,
                          size_t n, uint32_t *leaf)
{
        size_t nn;

        memset(tr, 0, sizeof(*tr));
        for (size_t i = 0; i < n; i++) {
                uint32_t node = 0;

                for (const char *f = st[i].frames;;) {
                        const char *semi = strchr(f, ';');
                        size_t len = semi ? (size_t) (semi - f) : strlen(f);

                        node = fg_trie_node(tr, kb, node, f, len, true);
                        if (!semi)
                                break;
                        f = semi + 1;
                }
                if (leaf)
                        leaf[i] = node;
        }
        nn = tr->names.n + 1;
        tr->first = pg_xcalloc(nn + 1, sizeof(*tr->first));
        tr->kids = pg_xmalloc((nn ? nn : 1) * sizeof(*tr->kids));
        for (size_t i = 0; i < tr->names.n; i++) {
                uint32_t parent;

                memcpy(&parent, tr->names.keys[i].ptr, sizeof(parent));
                tr->first[parent + 1]++;
        }
        for (size_t p = 0; p < nn; p++)
                tr->first[p + 1] += tr->first[p];
        {
                uint32_t *at = pg_xmalloc(nn * sizeof(*at));

                memcpy(at, tr->first, nn * sizeof(*at));
                for (size_t i = 0; i < tr->names.n; i++) {
                        uint32_t parent;

                        memcpy(&parent, tr->names.keys[i].ptr, sizeof(parent));
                        tr->kids[at[parent]++] = (uint32_t) i + 1;
                }
                free(at);
        }
}

static void fg_trie_release(struct fg_trie *tr)
{
        pg_strmap_release(&tr->names);
        free(tr->first);
        free(tr->kids);
}

/* The name of node @node of @tr, *len bytes. */
static const char *fg_trie_name(const struct fg_trie *tr, uint32_t node, size_t *len)
{
        *len = tr->names.keys[node - 1].len - sizeof(uint32_t);
        return tr->names.keys[node - 1].ptr + sizeof(uint32_t);
}

/*
 * Match the frames of @base to those of @head at the same place with the
 * same comparison key (docs/diff.md): below frames already matched, a base
 * frame whose exact name head has there is that frame; else the frame of
 * head there with the same pg_frame_pair_key() under the pairing of the
 * two places' frames (baselines/frame.h: "f" for "f_[i]"; a cgo wrapper
 * under its new hash only when it is the one name of its key that only
 * base has there, and head has one such name there), whose name it takes;
 * else it and all below it are base's own. Into t->matched (NULL: nothing
 * renamed). The self of a stack stays its leaf.
 */
static void fg_match_base(struct fg_tree *t, const struct pg_stack *head, size_t nhead,
                          const struct pg_stack *base, size_t nbase)
{
        struct fg_trie ht, bt;
        struct pg_buf kb = PG_BUF_INIT, nb = PG_BUF_INIT;
        uint32_t *to; /* per base node: head's node there, or FG_NONE */
        uint32_t *leaf, *chain = NULL;
        size_t chain_cap = 0;
        struct pg_strmap keys = PG_STRMAP_INIT;
        uint32_t *key_to = NULL;
        size_t key_cap = 0, kcap = 0;
        char *kbuf = NULL;

        if (!nbase || !nhead || (!fg_any_keyed(head, nhead) && !fg_any_keyed(base, nbase)))
                return;
        leaf = pg_xmalloc(nbase * sizeof(*leaf));
        fg_trie_build(&ht, &kb, head, nhead, NULL);
        fg_trie_build(&bt, &kb, base, nbase, leaf);
        to = pg_xmalloc((bt.names.n + 1) * sizeof(*to));
        to[0] = 0;
        /* a node's parent comes before it: places top down */
        for (uint32_t bp = 0; bp <= bt.names.n; bp++) {
                uint32_t hp = to[bp];
                bool missed = false;
                struct pg_frame_pairing pair = PG_FRAME_PAIRING_INIT;

                for (uint32_t j = bt.first[bp]; j < bt.first[bp + 1]; j++) {
                        uint32_t b = bt.kids[j];
                        size_t len;
                        const char *f = fg_trie_name(&bt, b, &len);

                        to[b] = hp == FG_NONE ? FG_NONE : fg_trie_node(&ht, &kb, hp, f, len, false);
                        missed |= to[b] == FG_NONE && hp != FG_NONE;
                }
                if (!missed)
                        continue;
                /* the place's frames on both sides, paired by the one rule */
                for (int side = 0; side < 2; side++) {
                        const struct fg_trie *tr = side ? &ht : &bt;
                        uint32_t p = side ? hp : bp;

                        for (uint32_t j = tr->first[p]; j < tr->first[p + 1]; j++) {
                                size_t len;
                                const char *f = fg_trie_name(tr, tr->kids[j], &len);

                                pg_frame_pairing_add(&pair, side, f, len);
                        }
                }
                pg_frame_pairing_finish(&pair);
                pg_strmap_release(&keys);
                for (uint32_t j = ht.first[hp]; j < ht.first[hp + 1]; j++) {
                        uint32_t h = ht.kids[j];
                        size_t len, klen, kid;
                        const char *f = fg_trie_name(&ht, h, &len), *k;
                        bool added;

                        if (len > kcap) {
                                kcap = len > 2 * kcap ? len : 2 * kcap;
                                kbuf = pg_xrealloc(kbuf, kcap);
                        }
                        k = pg_frame_pair_key(&pair, f, len, kbuf, &klen);
                        kid = pg_strmap_intern(&keys, k, klen, &added);
                        if (kid >= key_cap) {
                                key_cap = key_cap ? 2 * key_cap : 64;
                                while (key_cap <= kid)
                                        key_cap *= 2;
                                key_to = pg_xreallocarray(key_to, key_cap, sizeof(*key_to));
                        }
                        if (added) /* "f" and "f_[i]" both there: the first */
                                key_to[kid] = h;
                }
                for (uint32_t j = bt.first[bp]; j < bt.first[bp + 1]; j++) {
                        uint32_t b = bt.kids[j];
                        size_t len, klen, kid;
                        const char *f = fg_trie_name(&bt, b, &len), *k;

                        if (to[b] != FG_NONE)
                                continue;
                        if (len > kcap) {
                                kcap = len > 2 * kcap ? len : 2 * kcap;
                                kbuf = pg_xrealloc(kbuf, kcap);
                        }
                        k = pg_frame_pair_key(&pair, f, len, kbuf, &klen);
                        if (pg_strmap_find(&keys, k, klen, &kid))
                                to[b] = key_to[kid];
                }
                pg_frame_pairing_release(&pair);
        }
        /* base's stacks with head's names where they differ: a node renamed
         * holds head's node in to[], else FG_NONE (read bottom up) */
        for (uint32_t b = 1; b <= bt.names.n; b++) {
                size_t len, hlen;
                const char *f = fg_trie_name(&bt, b, &len), *h;

                if (to[b] == FG_NONE)
                        continue;
                h = fg_trie_name(&ht, to[b], &hlen);
                if (hlen == len && memcmp(h, f, len) == 0)
                        to[b] = FG_NONE;
        }
        for (size_t i = 0; i < nbase; i++) {
                size_t depth = 0;
                bool changed = false;

                for (uint32_t node = leaf[i]; node; depth++) {
                        if (depth == chain_cap) {
                                chain_cap = chain_cap ? 2 * chain_cap : 64;
                                chain = pg_xreallocarray(chain, chain_cap, sizeof(*chain));
                        }
                        chain[depth] = node;
                        changed |= to[node] != FG_NONE;
                        memcpy(&node, bt.names.keys[node - 1].ptr, sizeof(node));
                }
                if (!changed)
                        continue;
                pg_buf_reset(&nb);
                while (depth-- > 0) {
                        uint32_t node = chain[depth];
                        size_t nlen;
                        const char *name = to[node] != FG_NONE ? fg_trie_name(&ht, to[node], &nlen)
                                                               : fg_trie_name(&bt, node, &nlen);

                        pg_buf_add(&nb, name, nlen);
                        if (depth)
                                pg_buf_putc(&nb, ';');
                }
                if (!t->matched) {
                        t->matched = pg_xmalloc(nbase * sizeof(*t->matched));
                        t->renamed = pg_xcalloc(nbase, sizeof(*t->renamed));
                        memcpy(t->matched, base, nbase * sizeof(*t->matched));
                        t->nmatched = nbase;
                }
                t->matched[i].frames = pg_xstrndup(nb.ptr, nb.len);
                t->renamed[i] = true;
        }
        free(to);
        free(leaf);
        free(chain);
        free(key_to);
        free(kbuf);
        pg_strmap_release(&keys);
        pg_buf_release(&kb);
        pg_buf_release(&nb);
        fg_trie_release(&ht);
        fg_trie_release(&bt);
}

/* The tree of @head (profile 0) and, for a differential graph, @base. */
static int fg_tree_new(struct fg_tree *t, const struct pg_stack *head, size_t nhead,
                       const struct pg_stack *base, size_t nbase, bool diff, bool reverse)
{
        int error;

        memset(t, 0, sizeof(*t));
        if (diff)
                fg_match_base(t, head, nhead, base, nbase);

        const struct pg_stack *const stacks[2] = { head, t->matched ? t->matched : base };
        const size_t n[2] = { nhead, nbase };

        if ((error = fg_tree_build(t, stacks, n, diff ? 2 : 1, reverse)) < 0)
                fg_tree_release(t);
        return error;
}

/* Draw tree @t (fg_tree_new() with opts->reverse; a NULL @t is built here). */
static int fg_render(struct pg_buf *out, struct fg_tree *t, const struct pg_stack *head,
                     size_t nhead, const struct pg_stack *base, size_t nbase, bool diff,
                     const struct pg_flame_opts *opts)
{
        struct pg_flame_opts defaults;
        struct fg_tree own = { 0 };
        struct fg_ctx c;
        int error;

        if (!opts) {
                pg_flame_opts_init(&defaults);
                opts = &defaults;
        }
        memset(&c, 0, sizeof(c));
        pg_buf_init(&c.tmp);
        if ((error = fg_setup(&c, opts)) < 0)
                goto done;
        c.diff = diff;
        c.k = diff && opts->negate ? 1 : 0;
        if (!t) {
                if ((error = fg_tree_new(&own, head, nhead, base, nbase, diff, opts->reverse)) < 0)
                        goto done;
                t = &own;
        }
        c.t = t;
        c.total[0] = t->nodes[0].w[0];
        c.total[1] = t->nodes[0].w[1];
        if (!diff && c.total[0] == 0) {
                error = pg_error_set(PG_EINPUT, "the profile holds no samples; nothing to draw");
                goto done;
        }
        if (diff && (c.total[c.k] == 0 || (!opts->raw_delta && c.total[1 - c.k] == 0))) {
                error =
                    pg_error_set(PG_EINPUT, "the %s profile holds no samples; nothing to compare",
                                 c.total[1] == 0 ? "base" : "head");
                goto done;
        }
        c.span = c.total[c.k];
        if (opts->highlight && *opts->highlight) {
                uint32_t target = fg_mark_path(&c);
                if (opts->focus) {
                        uint32_t root = target == FG_NONE ? FG_NONE : fg_focus_root(&c, target);
                        if (root == FG_NONE) { /* nothing to focus on: no graph */
                                error = 0;
                                goto done;
                        }
                        c.root = root;
                        c.root_depth = t->nodes[root].depth;
                        c.span = t->nodes[root].w[c.k];
                }
        } else if (opts->focus) {
                error = 0;
                goto done;
        }
        c.min_w = opts->minwidth_pct > 0 ? (double) c.span * opts->minwidth_pct / 100.0
                                         : (opts->minwidth_px < 0 ? 0.1 : opts->minwidth_px) *
                                               (double) c.span / c.plot;
        fg_document(&c, out);
        error = 0;
done:
        fg_tree_release(&own);
        pg_buf_release(&c.tmp);
        free(c.onpath);
        return error;
}

int pg_flame_tree_new(struct pg_flame_tree **out, const struct pg_stack *base, size_t nbase,
                      const struct pg_stack *head, size_t nhead, bool reverse)
{
        struct pg_flame_tree *ft = pg_xcalloc(1, sizeof(*ft));
        int error = fg_tree_new(&ft->t, head, nhead, base, nbase, true, reverse);

        if (error < 0) {
                free(ft);
                ft = NULL;
        } else {
                ft->reverse = reverse;
        }
        *out = ft;
        return error;
}

void pg_flame_tree_free(struct pg_flame_tree *ft)
{
        if (!ft)
                return;
        fg_tree_release(&ft->t);
        free(ft);
}

int pg_flamegraph_diff_svg_tree(struct pg_buf *out, struct pg_flame_tree *ft,
                                const struct pg_flame_opts *o)
{
        if ((o && o->reverse) != ft->reverse)
                return pg_error_set(PG_ERROR,
                                    "flame graph tree built with reverse=%d drawn with "
                                    "reverse=%d",
                                    (int) ft->reverse, (int) (o && o->reverse));
        return fg_render(out, &ft->t, NULL, 0, NULL, 0, true, o);
}

int pg_flamegraph_svg(struct pg_buf *out, const struct pg_stack *stacks, size_t n,
                      const struct pg_flame_opts *o)
{
        return fg_render(out, NULL, stacks, n, NULL, 0, false, o);
}

int pg_flamegraph_diff_svg(struct pg_buf *out, const struct pg_stack *base, size_t nbase,
                           const struct pg_stack *head, size_t nhead, const struct pg_flame_opts *o)
{
        return fg_render(out, NULL, head, nhead, base, nbase, true, o);
}
