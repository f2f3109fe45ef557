#!/usr/bin/env python3
"""One-way imports: each crate's modules, in the layers its root file draws, import only from
layers below their own.

A crate root (src/lib.rs, cli/src/main.rs, verify/src/lib.rs) draws its layers in a `text`
block of its module docs that starts with the line `layers (top first):`; each following line
is `N name  module module ...` (N the layer, higher on top; a module is a path such as
`arch::simd::loops`, and stands for its submodules too unless they are listed themselves).
A module M imports N when a file of M names `crate::N...` or `super::N...` (resolved to the
longest module that exists, or, for a name the crate root re-exports with `pub use`, to the
module it comes from; a parent naming its child, or a child its parent, is not an
import). Every import must go to a module of a lower layer, or stay inside the listed module
it belongs to; every module must be listed; and no two modules may import each other, even
through others (import circles).

Usage: scripts/layers.py [--graph] [CRATE_SRC ...]   (default: src cli/src verify/src)
       scripts/layers.py --self-test   (a small crate with each kind of break is caught)
Exits 1 with one line per broken rule; --graph prints the imports found."""
import os
import re
import sys
import tempfile

ROOTS = ("lib.rs", "main.rs")
HEADER = "layers (top first):"


def modules(src):
    """Module path (tuple) -> file, for every .rs file under src (binaries under bin/ skipped)."""
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            if rel[:1] == ["bin"]:
                continue
            mods[tuple(rel)] = path
    return mods


def resolve(mods, path):
    """The longest existing module that `path` starts with."""
    for k in range(len(path), 0, -1):
        if tuple(path[:k]) in mods:
            return tuple(path[:k])
    return None


def related(a, b):
    return a[: len(b)] == b or b[: len(a)] == a


def reexports(mods):
    """Name -> module, for the items the crate root re-exports (`pub use a::b::{X, Y};`,
    `pub use a::X;`): `crate::X` then counts as an import of the module `X` comes from."""
    root = mods.get(())
    if root is None:
        return {}
    text = re.sub(r"//[^\n]*", "", open(root).read())
    names = {}
    ident = r"[A-Za-z_][A-Za-z0-9_]*"
    for g in re.finditer(rf"\bpub\s+use\s+((?:{ident}::)+)(?:\{{([^}}]*)\}}|({ident}))\s*;", text):
        prefix = [p for p in g.group(1).split("::") if p]
        if prefix[:1] == ["crate"]:
            prefix = prefix[1:]
        parts = g.group(2).split(",") if g.group(2) is not None else [g.group(3)]
        for part in parts:
            part = part.strip()
            if not part or part == "self":
                continue
            alias = part.split(" as ")[-1].strip()
            target = resolve(mods, prefix + part.split(" as ")[0].strip().split("::"))
            if target is not None and alias not in {m[0] for m in mods if m}:
                names[alias] = target
    return names


def imports(mods):
    """Module -> the modules it imports, through the crate root's re-exports too."""
    edges = {m: set() for m in mods}
    names = reexports(mods)
    for m, path in mods.items():
        text = re.sub(r"//[^\n]*", "", open(path).read())

        def add(target):
            if target is not None and target != m and not related(target, m):
                edges[m].add(target)

        ident = r"[A-Za-z_][A-Za-z0-9_]*"
        # `crate::a::b` (the whole path: not a prefix of a longer one or of a group).
        for g in re.finditer(rf"\bcrate::((?:{ident}::)*{ident})(?![A-Za-z0-9_]|::[A-Za-z_{{])", text):
            first = g.group(1).split("::")[0]
            if m != () and first in names:
                add(names[first])
            else:
                add(resolve(mods, g.group(1).split("::")))
        # `crate::a::{b, c::d}` groups (one level of braces).
        for g in re.finditer(rf"\bcrate::((?:{ident}::)*)\{{([^{{}}]*)\}}", text):
            prefix = [p for p in g.group(1).split("::") if p]
            for part in re.split(r",", g.group(2)):
                part = part.strip().split(" as ")[0].strip()
                if not prefix and m != () and part.split("::")[0] in names:
                    add(names[part.split("::")[0]])
                elif part and part != "self":
                    add(resolve(mods, prefix + part.split("::")))
                elif part == "self" and prefix:
                    add(resolve(mods, prefix))
        for g in re.finditer(r"\b((?:super::)+)((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)", text):
            up = g.group(1).count("super::")
            # `super` is the parent module, in `a/b.rs` and `a/b/mod.rs` alike.
            base = list(m[: max(len(m) - up, 0)])
            add(resolve(mods, base + g.group(2).split("::")))
    return edges


def layers(src):
    """Listed module -> (layer number, layer name), from the crate root's docs."""
    for name in ROOTS:
        root = os.path.join(src, name)
        if os.path.exists(root):
            break
    else:
        return None, f"{src}: no lib.rs or main.rs"
    lines = [re.sub(r"^//!\s?", "", l) for l in open(root).read().splitlines() if l.startswith("//!")]
    if HEADER not in [l.strip() for l in lines]:
        return None, f"{root}: no `{HEADER}` block in the module docs"
    start = [l.strip() for l in lines].index(HEADER) + 1
    table = {}
    for line in lines[start:]:
        words = line.split()
        if not words or words[0].startswith("```"):
            break
        if not words[0].isdigit() or len(words) < 3:
            return None, f"{root}: layer line {line!r} is not `N name module ...`"
        for module in words[2:]:
            table[tuple(module.split("::"))] = (int(words[0]), words[1])
    return table, None


def container(path):
    """Whether a module's file declares submodules and nothing else (it needs no layer)."""
    text = re.sub(r"//[^\n]*", "", open(path).read())
    text = re.sub(r"#!?\[[^\]]*\]", "", text)
    text = re.sub(r"\b(pub(\([a-z]+\))?\s+)?mod\s+[a-z_0-9]+\s*;", "", text)
    return text.strip() == ""


def listed(table, m):
    """The listed module `m` belongs to: itself or its nearest listed ancestor."""
    for k in range(len(m), 0, -1):
        if m[:k] in table:
            return m[:k]
    return None


def circles(edges):
    """Strongly connected groups of two or more modules (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(group)

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            strong(v)
    return out


def name(m):
    return "::".join(m) or "crate root"


def check(src, graph, quiet=False):
    mods = modules(src)
    edges = imports(mods)
    problems = []
    table, why = layers(src)
    if table is None:
        return [why]
    for m in table:
        if m not in mods:
            problems.append(f"{src}: layer table lists {name(m)}, which is no module")
    for m in sorted(mods):
        if m == ():
            continue
        own = listed(table, m)
        if own is None:
            if not container(mods[m]):
                problems.append(f"{src}: {name(m)} is in no layer")
            continue
        for t in sorted(edges[m]):
            theirs = listed(table, t)
            if theirs is None:
                problems.append(f"{src}: {name(m)} imports {name(t)}, which is in no layer")
                continue
            if theirs == own or related(theirs, own):
                continue
            if table[theirs][0] >= table[own][0]:
                problems.append(
                    f"{src}: {name(m)} (layer {table[own][0]} {table[own][1]}) imports "
                    f"{name(t)} (layer {table[theirs][0]} {table[theirs][1]})"
                )
    for group in circles(edges):
        problems.append(f"{src}: import circle: " + " <-> ".join(name(m) for m in sorted(group)))
    if graph:
        for m in sorted(mods):
            layer = table.get(listed(table, m) or (), ("?", "?"))
            print(f"{src}: [{layer[0]} {layer[1]}] {name(m)} -> "
                  + ", ".join(name(t) for t in sorted(edges[m])))
    n_edges = sum(len(e) for e in edges.values())
    if not quiet:
        print(f"{src}: {len(mods) - 1} modules in {len(set(table.values()))} layers, "
              f"{n_edges} imports, {len(problems)} broken")
    return problems


def self_test():
    """Each rule catches its break in a small crate, and the crate without them passes."""
    root_doc = (
        "//! ```text\n//! layers (top first):\n//! 3 top  api\n//! 2 mid  loops\n"
        "//! 1 low  bits\n//! ```\nmod api;\nmod bits;\nmod loops;\n"
    )
    clean = {
        "lib.rs": root_doc,
        "api.rs": "use crate::loops::run;\nuse crate::{bits::ONE};\n",
        "loops.rs": "use crate::bits::*;\n",
        "bits.rs": "pub const ONE: u32 = 1;\n",
    }
    breaks = {
        "an import upward": ({"bits.rs": "use crate::loops::run;\n"}, "bits (layer 1 low) imports loops"),
        "an import upward in a group": (
            {"loops.rs": "use crate::{api::f, bits};\n"},
            "loops (layer 2 mid) imports api",
        ),
        "an import through super": (
            {"bits.rs": "use super::api::f;\n"},
            "bits (layer 1 low) imports api",
        ),
        "a module in no layer": ({"extra.rs": "pub fn f() {}\n"}, "extra is in no layer"),
        "a listed module that is none": ({"bits.rs": None}, "lists bits, which is no module"),
        "a circle": (
            {"api.rs": "use crate::loops::run;\n", "loops.rs": "use crate::api::f;\n"},
            "import circle: api <-> loops",
        ),
        "an import upward through the root's re-export": (
            {
                "lib.rs": root_doc + "pub use api::Api;\n",
                "bits.rs": "pub fn g(_: crate::Api) {}\n",
            },
            "bits (layer 1 low) imports api",
        ),
        "an import upward through a re-export in a group": (
            {
                "lib.rs": root_doc + "pub use api::{f, Api as Face};\n",
                "loops.rs": "use crate::{bits, Face};\n",
            },
            "loops (layer 2 mid) imports api",
        ),
    }
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        def crate(files):
            src = tempfile.mkdtemp(dir=tmp)
            for name, text in files.items():
                if text is not None:
                    with open(os.path.join(src, name), "w") as f:
                        f.write(text)
            return check(src, False, quiet=True)

        if crate(clean):
            failures.append(f"the clean crate fails: {crate(clean)}")
        for what, (change, expected) in breaks.items():
            problems = crate({**clean, **change})
            if not any(expected in p for p in problems):
                failures.append(f"{what} not caught (expected {expected!r}, got {problems})")
    for f in failures:
        print("self-test:", f)
    print(f"self-test: {len(breaks) - len(failures)} of {len(breaks)} breaks caught")
    sys.exit(1 if failures else 0)


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        self_test()
    graph = "--graph" in args
    srcs = [a for a in args if a != "--graph"] or ["src", "cli/src", "verify/src"]
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    problems = [p for src in srcs for p in check(src, graph)]
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
