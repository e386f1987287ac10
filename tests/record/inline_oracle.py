#!/usr/bin/env python3
"""inline_oracle.py - does a tool agree with a "grew most at" hint?

  inline_oracle.py a2l FILE AT CALLEE SITE
      FILE: `addr2line -a -i -f -C` (binutils or LLVM) output for the
      function's sampled addresses. True when one address's innermost line
      is AT (basename:line) and the function called from SITE
      (basename:line, the grown line) in its inline chain is named CALLEE
      (found in the name: C++ names carry template arguments, parameters
      and, for templates, a return type).
  inline_oracle.py perf FILE SITE CALLEE FUNCTION [AT]
      FILE: `perf script -F ip,sym,srcline` output. True when a sample of
      FUNCTION (the symbol) is at SITE, the grown line (its leaf line when
      perf lists no inlined frames there, else the line of FUNCTION's own
      frame that the inlined code was called from) or at AT, the inlined
      function's line a report names: perf runs binutils' addr2line, which
      finds no inlined frames at some of clang's addresses (the leaf line
      is then the inlined one, under FUNCTION's name) and names Go's
      innermost inlined function after its symbol; the line is what is
      asked of perf, the name of addr2line above.
  inline_oracle.py share A2L_BASE COUNTS_BASE TOTAL_BASE A2L_HEAD COUNTS_HEAD
                         TOTAL_HEAD CALLEE SITE
      A2L_*: `addr2line -a -i -f -C` output for the function's sampled
      addresses of each side, COUNTS_*: "ADDRESS COUNT" lines in the same
      order, TOTAL_*: all samples of that side. Of the growth (percentage
      points of all samples) of the samples whose outermost line is SITE,
      the part of those in CALLEE called from SITE: prints "named" when
      that part is at least 60% (a report must then name CALLEE), "unnamed"
      when at most 40% (it must not: the samples are the line's own code),
      else "either".

Prints what it counted; exit status 0 when it agrees, 1 when not.
"""
import os
import re
import sys


def base(line):
    """basename:line of a file:line, without a discriminator."""
    return os.path.basename(re.sub(r' \(discriminator \d+\)$', '', line.strip()))


def called_from(chain, site):
    """The name of the function in @chain ((name, line) innermost first)
    called from line @site, or None."""
    for k in range(1, len(chain)):
        if chain[k][1] == site:
            return chain[k - 1][0]
    return None


def a2l_groups(path):
    """[(address, [(name, basename:line) innermost first])] of a2l output."""
    groups = []
    lines = [l.rstrip('\n') for l in open(path)]
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x'):
            groups.append((int(lines[i], 16), []))
            i += 1
            continue
        if groups and i + 1 < len(lines):
            groups[-1][1].append((lines[i], base(lines[i + 1])))
        i += 2
    return groups


def a2l(path, at, callee, site):
    groups = [chain for _, chain in a2l_groups(path)]
    ok = [g for g in groups
          if g and g[0][1] == at and callee in (called_from(g, site) or '')]
    print('addr2line: %d of %d addresses at %s in %s inlined at %s'
          % (len(ok), len(groups), at, callee, site))
    return bool(ok)


def share(a2l_base, counts_base, total_base, a2l_head, counts_head, total_head, callee, site):
    pp = [0.0, 0.0]  # the line's growth, the callee's
    for sign, a, cpath, total in ((-1, a2l_base, counts_base, total_base),
                                  (1, a2l_head, counts_head, total_head)):
        counts = {int(l.split()[0], 16): int(l.split()[1]) for l in open(cpath) if l.strip()}
        for addr, chain in a2l_groups(a):
            if not chain or chain[-1][1] != site:
                continue
            n = 100.0 * counts.get(addr, 0) / float(total)
            pp[0] += sign * n
            if callee in (called_from(chain, site) or ''):
                pp[1] += sign * n
    verdict = 'either'
    if pp[0] > 0 and pp[1] >= 0.6 * pp[0]:
        verdict = 'named'
    elif pp[0] > 0 and pp[1] <= 0.4 * pp[0]:
        verdict = 'unnamed'
    print('addr2line: %s grew %+.2f pp, %+.2f pp of it in %s: %s'
          % (site, pp[0], pp[1], callee, verdict))
    return verdict


def perf(path, site, callee, function, at=None):
    samples, cur = [], []
    frame = None
    for line in open(path):
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = []
            continue
        m = re.match(r'^\t\s*[0-9a-f]+ (.*)$', line)
        if m:
            frame = m.group(1)
        elif frame is not None:
            inl = line.rstrip().endswith(' (inlined)')
            cur.append((frame, base(line.replace(' (inlined)', '')), inl))
            frame = None
    if cur:
        samples.append(cur)
    at_site = named = 0
    for s in samples:
        # the leaf's frames: its inlined ones, then its symbol
        k = 0
        while k < len(s) and s[k][2]:
            k += 1
        leaf = [(n, l) for n, l, _ in s[:k + 1]]
        if leaf[-1][0] != function or (leaf[-1][1] != site and leaf[0][1] != at):
            continue
        at_site += 1
        named += k > 0 and callee in (called_from(leaf, site) or '')
    print('perf: %d samples of %s at %s%s (%d of them in inlined %s)'
          % (at_site, function, site, ' or ' + at if at else '', named, callee))
    return at_site > 0

if __name__ == '__main__':
    if sys.argv[1] == 'a2l':
        sys.exit(0 if a2l(*sys.argv[2:6]) else 1)
    if sys.argv[1] == 'share':
        share(*sys.argv[2:10])
        sys.exit(0)
    sys.exit(0 if perf(*sys.argv[2:7]) else 1)
