#!/usr/bin/env python3
"""The library's layering: which top-level module of src/ uses which, and whether any cycle.

Dependencies in pctenc point one way (API -> kernels -> scalar reference -> sets, hex,
errors); a cycle between modules means two of them are one layer in fact, and that a change
to either can break the other. This script reads every `crate::` path in the library's
sources (`use crate::...` trees and paths written inline), resolves names the crate root
re-exports (`crate::Encoder` is `encode`'s), and prints the edges between top-level modules.
It fails (status 1) when they form a cycle, naming it.

    python3 scripts/module-graph.py          # the edges, then "no cycle" or the cycles
    python3 scripts/module-graph.py --dot    # the graph for Graphviz

The binary (`src/main.rs`, `src/cli/`) is a crate of its own and is not read. Comments and
strings are ignored; `#[cfg(test)]` code counts like the rest, since a test module that
reaches up a layer couples the layers as well.
"""
import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"


def strip(text):
    """`text` without comments, string and char literals (kept as spaces, lines preserved)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"\w", text[i - 1] if i else " "):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if end < 0 else end + 1 + len(hashes)
            out.append(" ")
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(" ")
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:])
            i += len(m.group(0))
            out.append(" ")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def use_paths(tree, prefix=()):
    """The paths of a `use` tree's text (after `crate::`): `a::{b, c::d}` gives a::b, a::c::d."""
    paths, depth, start, parts = [], 0, 0, []
    for i, c in enumerate(tree):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(tree[start:i])
            start = i + 1
    parts.append(tree[start:])
    for part in (p.strip() for p in parts):
        if not part:
            continue
        brace = part.find("{")
        if brace >= 0 and part.endswith("}"):
            head = [s for s in part[:brace].split("::") if s.strip()]
            paths += use_paths(part[brace + 1 : -1], prefix + tuple(s.strip() for s in head))
        else:
            name = re.split(r"\s+as\s+", part)[0].strip()
            paths.append(prefix + tuple(s.strip() for s in name.split("::") if s.strip()))
    return paths


def crate_paths(code):
    """Every `crate::...` path in stripped code, as tuples of names."""
    paths = []
    for m in re.finditer(r"\buse\s+crate::", code):
        end = code.find(";", m.end())
        paths += use_paths(code[m.end() : end])
    for m in re.finditer(r"(?<![\w:])crate::((?:\w+::)*\w+)", code):
        paths.append(tuple(m.group(1).split("::")))
    return paths


def modules():
    """Top-level module name -> its files."""
    mods = {}
    for path in sorted(SRC.rglob("*.rs")):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ("main.rs", "cli") or rel.name == "lib.rs":
            continue
        name = rel.parts[0].removesuffix(".rs")
        mods.setdefault(name, []).append(path)
    return mods


def reexports(root, mods):
    """Name the crate root makes visible -> the module it comes from."""
    names = {}
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", root):
        for path in use_paths(m.group(1)):
            if path and path[0] in mods and len(path) > 1:
                names[path[-1]] = path[0]
    return names


def edges():
    mods = modules()
    root = strip((SRC / "lib.rs").read_text())
    names = reexports(root, mods)
    found = {}
    for mod, files in mods.items():
        for f in files:
            for path in crate_paths(strip(f.read_text())):
                head = path[0]
                target = head if head in mods else names.get(head)
                if target and target != mod:
                    found.setdefault((mod, target), set()).add(f.relative_to(SRC.parent).as_posix())
    return mods, found


def cycles(nodes, found):
    """The strongly connected components with more than one module (Tarjan)."""
    graph = {n: sorted({b for (a, b) in found if a == n}) for n in nodes}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    mods, found = edges()
    if "--dot" in sys.argv[1:]:
        print("digraph pctenc {")
        for a, b in sorted(found):
            print(f'  "{a}" -> "{b}";')
        print("}")
        return 0
    for (a, b), files in sorted(found.items()):
        print(f"{a} -> {b}  ({', '.join(sorted(files))})")
    bad = cycles(mods, found)
    if not bad:
        print(f"no cycle between the {len(mods)} top-level modules")
        return 0
    for comp in bad:
        print("cycle among: " + ", ".join(comp), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
