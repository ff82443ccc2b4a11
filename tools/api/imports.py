#!/usr/bin/env python3
"""Module import graph of a Rust crate's src/: for each module, the modules of the crate its
code names (`use crate::..`, `use super::..`, `crate::a::b` and `super::x` paths in code,
comments and `#[cfg(test)]` test modules left out), then the import circles (strongly
connected components of more than one module)."""
import os, re, sys

def strip_comments(t):
    # One pass over the text: comments go, string and char literals become empty, so that a
    # quote in a comment or `//` in a string changes nothing else.
    out, i, n = [], 0, len(t)
    while i < n:
        c = t[i]
        if t.startswith('//', i):
            j = t.find('\n', i)
            i = n if j < 0 else j
        elif t.startswith('/*', i):
            depth, i = 1, i + 2
            while i < n and depth:
                if t.startswith('/*', i):
                    depth, i = depth + 1, i + 2
                elif t.startswith('*/', i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == 'r' and re.match(r'r#*"', t[i:]) and (i == 0 or not (t[i-1].isalnum() or t[i-1] == '_')):
            hashes = re.match(r'r(#*)"', t[i:]).group(1)
            end = t.find('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while j < n and t[j] != '"':
                j += 2 if t[j] == '\\' else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.[^']*|[^\\'])'", t[i:]):
            m = re.match(r"'(\\.[^']*|[^\\'])'", t[i:])
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return ''.join(out)

def strip_tests(t):
    # drop `#[cfg(test)] mod NAME { ... }` blocks (brace matching)
    out, i = [], 0
    for m in re.finditer(r'#\[cfg\(test\)\]\s*mod\s+\w+\s*\{', t):
        if m.start() < i:
            continue
        out.append(t[i:m.start()])
        depth, j = 1, m.end()
        while depth and j < len(t):
            depth += {'{': 1, '}': -1}.get(t[j], 0)
            j += 1
        i = j
    out.append(t[i:])
    return ''.join(out)

def inline_mods(t):
    # `super::` inside an inline `mod name { ... }` names the file's own module: rewrite it to
    # `self::` so that the edge is not taken for one to the parent.
    out, i = [], 0
    for m in re.finditer(r'\bmod\s+\w+\s*\{', t):
        if m.start() < i:
            continue
        out.append(t[i:m.end()])
        depth, j = 1, m.end()
        while depth and j < len(t):
            depth += {'{': 1, '}': -1}.get(t[j], 0)
            j += 1
        out.append(t[m.end():j].replace('super::', 'self::'))
        i = j
    out.append(t[i:])
    return ''.join(out)

def modules(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'):
                continue
            p = os.path.join(root, f)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] in ('mod', 'lib'):
                rel = rel[:-1]
            mods[tuple(rel)] = p
    return mods

def resolve(path, mods):
    # longest prefix of `path` that is a module
    for k in range(len(path), -1, -1):
        if tuple(path[:k]) in mods:
            return tuple(path[:k])
    return None

def expand_use(body):
    # `a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e] (enough for crate-local paths)
    body = re.sub(r'\s+', '', body)
    def ex(s):
        m = re.match(r'^(.*?)\{(.*)\}$', s)
        if not m:
            return [s]
        pre, inner = m.group(1), m.group(2)
        parts, depth, cur = [], 0, ''
        for ch in inner:
            if ch == ',' and depth == 0:
                parts.append(cur); cur = ''
                continue
            depth += ch == '{'
            depth -= ch == '}'
            cur += ch
        if cur:
            parts.append(cur)
        return [x for p in parts for x in ex(pre + p)]
    return ex(body)

def graph(src):
    mods = modules(src)
    edges = {m: set() for m in mods}
    for m, p in mods.items():
        is_dir = os.path.basename(p) in ('mod.rs', 'lib.rs')
        here = list(m) if is_dir else list(m[:-1])  # the module `super` of a child is `m`'s parent
        t = inline_mods(strip_tests(strip_comments(open(p).read())))
        paths = []
        for u in re.finditer(r'\buse\s+([^;]+);', t):
            paths += expand_use(u.group(1))
        paths += re.findall(r'\b((?:crate|super)(?:::\w+)+)', t)
        # a child module named in code (`copy::Spec::arbitrary(u)`, `int::lower(op)`)
        for c in set(re.findall(r'(?<![:\w.])(\w+)::', t)):
            if tuple(list(m) + [c]) in mods:
                paths.append(c)
        for q in paths:
            segs = [s for s in q.split('::') if s]
            if not segs:
                continue
            if segs[0] == 'crate':
                base, rest = [], segs[1:]
            elif segs[0] == 'super':
                base = list(m[:-1])
                rest = segs[1:]
                while rest and rest[0] == 'super':
                    base = base[:-1]; rest = rest[1:]
            elif segs[0] == 'self':
                base, rest = list(m), segs[1:]
            else:
                # a child module named directly after `mod x;` (e.g. `pub use child::X`)
                if tuple(list(m) + [segs[0]]) in mods:
                    base, rest = list(m), segs
                else:
                    continue
            rest = [s for s in rest if s not in ('self', '*')]
            r = resolve(base + rest, mods)
            if r is not None and r != m:
                edges[m].add(r)
    return mods, edges

def sccs(edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            out.append(comp)
    for v in edges:
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]

name = lambda m: '::'.join(m) or 'crate'
for src in sys.argv[1:]:
    mods, edges = graph(src)
    print(f'== {src}')
    for m in sorted(mods):
        print(f'  {name(m)} -> {", ".join(sorted(name(x) for x in edges[m])) or "-"}')
    c = sccs(edges)
    print('  circles:', '; '.join(' <-> '.join(name(x) for x in comp) for comp in c) if c else 'none')
