#!/usr/bin/env python3
"""inline_oracle.py - does a tool agree with a "grew most at" hint?

  inline_oracle.py a2l FILE AT CALLEE SITE
      FILE: `addr2line -a -i -f -C` (binutils or LLVM) output for the
      function's sampled addresses. True when one address's innermost line
      is AT (basename:line) and the function called from SITE
      (basename:line, the grown line) in its inline chain is named CALLEE
      (found in the name: C++ names carry template arguments, parameters
      and, for templates, a return type).
  inline_oracle.py perf FILE AT CALLEE SITE FUNCTION
      FILE: `perf script -F ip,sym,srcline` output. True when a sample's
      leaf line is AT in FUNCTION (the symbol) or, where perf lists inlined
      frames there, in CALLEE called from SITE. perf runs binutils'
      addr2line, which finds no inlined frames at some of clang's addresses
      and names Go's innermost inlined function after its symbol; the line
      is what is asked of perf, the name of addr2line above.

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


def a2l(path, at, callee, site):
    groups = []
    lines = [l.rstrip('\n') for l in open(path)]
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x'):
            groups.append([])
            i += 1
            continue
        if groups and i + 1 < len(lines):
            groups[-1].append((lines[i], base(lines[i + 1])))
        i += 2
    ok = [g for g in groups
          if g and g[0][1] == at and callee in (called_from(g, site) or '')]
    print('addr2line: %d of %d addresses at %s in %s inlined at %s'
          % (len(ok), len(groups), at, callee, site))
    return bool(ok)


def perf(path, at, callee, site, function):
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
    at_line = named = 0
    for s in samples:
        if s[0][1] != at:
            continue
        # the leaf's frames: its inlined ones, then its symbol
        k = 0
        while k < len(s) and s[k][2]:
            k += 1
        leaf = [(n, l) for n, l, _ in s[:k + 1]]
        if k == 0 and leaf[0][0] == function:
            at_line += 1
        elif k > 0 and leaf[-1][0] == function:
            at_line += 1
            named += callee in (called_from(leaf, site) or '')
    print('perf: %d samples at %s in %s (%d of them with inlined frames naming %s at %s)'
          % (at_line, at, function, named, callee, site))
    return at_line > 0


if __name__ == '__main__':
    if sys.argv[1] == 'a2l':
        sys.exit(0 if a2l(*sys.argv[2:6]) else 1)
    sys.exit(0 if perf(*sys.argv[2:7]) else 1)
