#!/usr/bin/env python3
"""The layering of each crate of the workspace: which module uses which, and whether any cycle.

Dependencies in pctenc point one way (API -> kernels -> scalar reference -> sets, hex,
errors); a cycle between modules means two of them are one layer in fact, and that a change
to either can break the other. This script reads every `crate::` path in a crate's sources
(`use crate::...` trees and paths written inline) and prints the edges between its
top-level modules. It fails (status 1) when they form a cycle, naming it.

    python3 scripts/module-graph.py                    # every crate: the edges, then "no cycle"
    python3 scripts/module-graph.py --crate pctenc-capi # one crate (a member's folder, or .)
    python3 scripts/module-graph.py --within simd      # the submodules of the library's simd
    python3 scripts/module-graph.py --dot              # the graphs for Graphviz

The crates are the library (src/, its root lib.rs) and every member of the root Cargo.toml's
workspace (its src/, the root lib.rs or, for a binary such as pctenc-cli, main.rs).

Without `--within`, both levels are checked: the top-level modules, then the submodules of
each module that is a folder with submodules of its own (`simd`: kernel, generic, entry,
engine, the instruction sets; its `mod.rs`, the dispatch, counts as `simd`). Inside a
folder only the edges between its children count, and those from its `mod.rs` to them: a
child that extends the folder's own type (`impl Decoder` in `decode/output.rs`, through
`super::Decoder`) is the folder's, so the folder's own items are not a node of their own.

The crate root is a node above every module it declares or re-exports from. A module that
uses an item through the root closes a cycle: an item of the root itself (a free function
such as `crate::encode_slice`), and a name the root re-exports (`crate::Encoder`, which is
`encode`'s), since the module then depends on the root's list of re-exports, not on the
module that defines the item. Modules import from the defining module. Comments and
strings are ignored; `#[cfg(test)]` code counts like the rest, since a test module that
reaches up a layer couples the layers as well. Not seen: `$crate::` paths in a macro count
for the file that defines the macro, not the files that call it.
"""
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
# The crate being read: its src/ folder and its root file (lib.rs or main.rs); see `crates`.
SRC = REPO / "src"
ROOT = "lib.rs"


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


def rooted_paths(code, root):
    """Every `root::...` path of stripped code (`use` trees and paths written inline), as
    tuples of the names after `root`."""
    paths = []
    for m in re.finditer(rf"\buse\s+{root}::", code):
        end = code.find(";", m.end())
        paths += use_paths(code[m.end() : end])
    for m in re.finditer(rf"(?<![\w:]){root}::((?:\w+::)*\w+)", code):
        paths.append(tuple(m.group(1).split("::")))
    return paths


def crate_paths(code):
    """Every `crate::...` path in stripped code, as tuples of names."""
    return rooted_paths(code, "crate")


def modules(within=None):
    """Module name -> its files: the top-level modules, or those of the folder `within`
    (its `mod.rs` as the folder's own name)."""
    base = SRC if within is None else SRC / within
    mods = {}
    for path in sorted(base.rglob("*.rs")):
        rel = path.relative_to(base)
        if within is None and rel.as_posix() == ROOT:
            continue
        if within is not None and rel.as_posix() == "mod.rs":
            name = within
        else:
            name = rel.parts[0].removesuffix(".rs")
        mods.setdefault(name, []).append(path)
    return mods


def reexports(root, mods):
    """Name the crate root makes visible -> the path it comes from."""
    names = {}
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", root):
        for path in use_paths(m.group(1)):
            if path and path[0] in mods and len(path) > 1:
                names[path[-1]] = path
    return names


def edges(within=None):
    mods = modules(within)
    root = strip((SRC / ROOT).read_text())
    top = modules()
    names = reexports(root, top)
    found = {}
    for mod, files in mods.items():
        for f in files:
            code = strip(f.read_text())
            paths = crate_paths(code)
            if within is not None:
                # Inside a folder, a re-exported name stands for the path it comes from
                # (`crate::Backend` is `crate::simd::engine::Backend`); at the top level it is
                # a use of the root (below).
                paths = [names[p[0]] + p[1:] if p[0] in names else p for p in paths]
                # Paths into `within` from the crate root; `super::` in a file directly under
                # it; and in its `mod.rs`, the paths through its children.
                inner = [p[1:] for p in paths if p[:1] == (within,) and len(p) > 1]
                if f.parent == SRC / within and f.name != "mod.rs":
                    inner += rooted_paths(code, "super")
                if f == SRC / within / "mod.rs":
                    inner += child_paths(code, mods)
                paths = inner
            for path in paths:
                head = path[0]
                target = head if head in mods else None
                if within is None and target is None and head not in ("self", "super"):
                    # An item of the crate root, its own or one it re-exports: the root
                    # declares every module, so a module that uses it is a cycle.
                    target = ROOT
                if target and target != mod:
                    found.setdefault((mod, target), set()).add(f.relative_to(REPO).as_posix())
    if within is None:
        mods = dict(mods, **{ROOT: [SRC / ROOT]})
        for mod in list(mods):
            if mod != ROOT and re.search(rf"\b(pub(\([^)]*\))?\s+)?(mod|use)\s+{mod}\b", root):
                found.setdefault((ROOT, mod), set()).add((SRC / ROOT).relative_to(REPO).as_posix())
    return mods, found




def child_paths(code, mods):
    """The paths of a folder's `mod.rs` that start with one of its children (`engine::X`)."""
    paths = []
    for m in re.finditer(r"\buse\s+(?!crate::|super::|self::|core::|alloc::|std::)", code):
        end = code.find(";", m.end())
        paths += [p for p in use_paths(code[m.end() : end]) if p and p[0] in mods]
    for m in re.finditer(r"(?<![\w:$])(\w+)::\w+", code):
        if m.group(1) in mods:
            paths.append((m.group(1),))
    return paths


def folders():
    """The top-level modules that are folders holding modules of their own."""
    return sorted(d.name for d in SRC.iterdir() if d.is_dir() and (d / "mod.rs").exists()
                  and any(p.is_dir() or p.name != "mod.rs" for p in d.iterdir()))


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


def crates():
    """(name, src folder, root file) of the library and of each workspace member."""
    manifest = (REPO / "Cargo.toml").read_text()
    members = re.search(r"(?m)^members\s*=\s*\[([^\]]*)\]", manifest)
    found = []
    for member in re.findall(r'"([^"]+)"', members.group(1) if members else '"."'):
        src = REPO / member / "src"
        root = "lib.rs" if (src / "lib.rs").exists() else "main.rs"
        if (src / root).exists():
            found.append(("pctenc" if member == "." else member, src, root))
    return found


def check(within, dot, name):
    """Prints one level's edges (or its graph) and returns its cycles."""
    mods, found = edges(within)
    where = f"{name}'s " + ("top-level modules" if within is None else f"submodules of {within}")
    if dot:
        print(f'digraph "{within or name}" {{')
        for a, b in sorted(found):
            print(f'  "{a}" -> "{b}";')
        print("}")
        return []
    print(f"# {where}")
    for (a, b), files in sorted(found.items()):
        print(f"{a} -> {b}  ({', '.join(sorted(files))})")
    bad = cycles(mods, found)
    if not bad:
        print(f"no cycle between the {len(mods)} {where}")
    for comp in bad:
        print(f"cycle among the {where}: " + ", ".join(comp), file=sys.stderr)
    return bad


def main():
    global SRC, ROOT
    args = sys.argv[1:]
    dot = "--dot" in args
    chosen = crates()
    if "--crate" in args:
        want = args[args.index("--crate") + 1].rstrip("/")
        chosen = [c for c in chosen if want in (c[0], str(c[1].parent.relative_to(REPO)))]
        if not chosen:
            print(f"module-graph.py: no crate {want!r} in the workspace", file=sys.stderr)
            return 2
    bad = []
    for name, SRC, ROOT in chosen:
        if "--within" in args:
            if name != "pctenc":
                continue
            levels = [args[args.index("--within") + 1]]
        else:
            levels = [None] + folders()
        bad += [c for level in levels for c in check(level, dot, name)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
