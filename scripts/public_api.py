#!/usr/bin/env python3
"""The public API of the fmadiv library, one sorted line per item, from rustdoc's JSON.

    scripts/public_api.py            # print the listing
    scripts/public_api.py --write    # update docs/public-api.txt
    scripts/public_api.py --check    # exit 1 (and show the difference) if it changed

Needs a nightly toolchain (`rustup toolchain install nightly`): rustdoc's JSON output is
unstable. Items marked #[doc(hidden)] are not public API and are not listed; every feature
a user enables (ndarray, rayon) is on, and `verify` — the door the verification crate uses,
documented as no part of the API — is off. A change to this listing is always deliberate: the test
`tests/public_api.rs` and CI fail until docs/public-api.txt is updated with --write.
"""
import difflib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTING = os.path.join(ROOT, "docs", "public-api.txt")
TARGET = os.path.join(ROOT, "target", "apidoc")


def build():
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", "fmadiv", "--lib", "--features", "rayon,ndarray",
         "--target-dir", TARGET, "--", "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    with open(os.path.join(TARGET, "doc", "fmadiv.json")) as f:
        return json.load(f)


def ty(t):
    """A type as Rust spells it (the cases this crate's API uses; others fall back)."""
    if t is None:
        return "()"
    if "primitive" in t:
        return t["primitive"]
    if "generic" in t:
        return t["generic"]
    if "borrowed_ref" in t:
        r = t["borrowed_ref"]
        life = f"{r['lifetime']} " if r.get("lifetime") else ""
        return f"&{life}{'mut ' if r['is_mutable'] else ''}{ty(r['type'])}"
    if "slice" in t:
        return f"[{ty(t['slice'])}]"
    if "array" in t:
        return f"[{ty(t['array']['type'])}; {t['array']['len']}]"
    if "tuple" in t:
        return "(" + ", ".join(ty(x) for x in t["tuple"]) + ")"
    if "resolved_path" in t:
        p = t["resolved_path"]
        name = p.get("path") or p.get("name")
        # rustdoc gives the path as the source spells it; the crate's own types go by the
        # name the listing gives them everywhere else (`Rounding`, not `crate::Rounding`
        # or `super::Rounding`).
        if name.startswith(("crate::", "super::", "self::")):
            name = name.rsplit("::", 1)[1]
        args = p.get("args") or {}
        ab = args.get("angle_bracketed") if isinstance(args, dict) else None
        if ab and ab.get("args"):
            parts = []
            for a in ab["args"]:
                if "type" in a:
                    parts.append(ty(a["type"]))
                elif "lifetime" in a:
                    parts.append(a["lifetime"])
                elif "const" in a:
                    parts.append(str(a["const"].get("expr", "_")))
            name += "<" + ", ".join(parts) + ">"
        return name
    if "impl_trait" in t:
        bounds = []
        for b in t["impl_trait"]:
            tb = b.get("trait_bound")
            if tb:
                tr = tb["trait"]
                name = tr.get("path") or tr.get("name")
                args = tr.get("args") or {}
                pa = args.get("parenthesized") if isinstance(args, dict) else None
                if pa:
                    name += "(" + ", ".join(ty(x) for x in pa["inputs"]) + ")"
                    if pa.get("output"):
                        name += " -> " + ty(pa["output"])
                bounds.append(name)
        return "impl " + " + ".join(bounds)
    if "qualified_path" in t:
        q = t["qualified_path"]
        return f"<{ty(q['self_type'])}>::{q['name']}"
    return "?"


def generics(g):
    params = []
    for p in (g or {}).get("params", []):
        kind = p["kind"]
        if "lifetime" in kind or p["name"].startswith("impl "):
            continue
        if "const" in kind:
            params.append(f"const {p['name']}: {ty(kind['const']['type'])}")
        elif "type" in kind:
            bounds = [ty({"impl_trait": [b]})[5:] for b in kind["type"].get("bounds", [])]
            params.append(p["name"] + (": " + " + ".join(bounds) if bounds else ""))
    return "<" + ", ".join(params) + ">" if params else ""


def signature(item, name):
    """`fn path(args) -> output`, with `const`/`unsafe` qualifiers and `#[must_use]`."""
    f = item["inner"]["function"]
    sig = f["sig"]
    header = f.get("header", {})
    quals = ("const " if header.get("is_const") else "") + ("unsafe " if header.get("is_unsafe") else "")
    args = []
    for pname, ptype in sig["inputs"]:
        args.append(render_self(ptype) if pname == "self" else f"{pname}: {ty(ptype)}")
    out = f" -> {ty(sig['output'])}" if sig.get("output") else ""
    # `#[must_use]` is part of the contract: dropping it silences callers' warnings.
    must_use = " #[must_use]" if any("must_use" in str(a) for a in item.get("attrs", [])) else ""
    return f"{quals}fn {name}{generics(f.get('generics'))}({', '.join(args)}){out}{must_use}"


def render_self(t):
    if t == {"generic": "Self"}:
        return "self"
    if "borrowed_ref" in t and t["borrowed_ref"]["type"] == {"generic": "Self"}:
        return "&mut self" if t["borrowed_ref"]["is_mutable"] else "&self"
    return "self: " + ty(t)


def trait_name(tr):
    """A trait path with its generic arguments (`Div<Divisor>`)."""
    return ty({"resolved_path": tr})


def listing(doc):
    index = doc["index"]
    # (the path it sorts under, the line); `expanded`: where each item is listed in full.
    lines, expanded = [], {}

    def emit(owner, text):
        lines.append((owner, text))

    def hidden(item):
        return any("doc(hidden)" in str(a) for a in item.get("attrs", []))

    def members(full, name, inner):
        for impl_id in inner.get("impls", []):
            impl = index[str(impl_id)]
            ii = impl["inner"]["impl"]
            if ii.get("is_synthetic") or ii.get("blanket_impl") is not None:
                continue
            if ii.get("trait") is None:
                for m in ii["items"]:
                    mi = index[str(m)]
                    if mi.get("visibility") != "public" or hidden(mi):
                        continue
                    if "function" in mi["inner"]:
                        emit(f"{full}::{mi['name']}", signature(mi, f"{full}::{mi['name']}"))
                    elif "assoc_const" in mi["inner"]:
                        c = mi["inner"]["assoc_const"]
                        emit(f"{full}::{mi['name']}", f"const {full}::{mi['name']}: {ty(c['type'])}")
            else:
                trait = trait_name(ii["trait"])
                if trait.split("<")[0] in ("StructuralPartialEq",):
                    continue
                target = ty(ii["for"])
                emit(f"{full}~impl", f"impl {trait} for {full if target == name else target}")

    def visit(item_id, path):
        item = index.get(str(item_id))
        if item is None or hidden(item):
            return
        kind = next(iter(item["inner"]))
        inner = item["inner"][kind]
        if kind == "use":
            target = inner.get("id")
            here = f"{path}::{inner['name']}"
            if target is None or str(target) not in index:
                emit(here, f"use {here} = {inner.get('source')}")
                return
            visit_item(target, here)
            return
        visit_item(item_id, f"{path}::{item['name']}")

    def visit_item(item_id, full):
        item = index[str(item_id)]
        kind = next(iter(item["inner"]))
        inner = item["inner"][kind]
        if str(item_id) in expanded:
            emit(full, f"use {full} = {expanded[str(item_id)]}")
            return
        expanded[str(item_id)] = full
        name = item.get("name")
        attrs = " ".join(str(a) for a in item.get("attrs", []))
        marker = " #[non_exhaustive]" if "non_exhaustive" in attrs else ""
        if kind == "module":
            emit(full, f"mod {full}")
            for child in inner["items"]:
                visit(child, full)
        elif kind == "function":
            emit(full, signature(item, full))
        elif kind in ("constant", "static"):
            emit(full, f"{kind} {full}: {ty(inner['type'])}")
        elif kind in ("struct", "enum", "union", "trait", "type_alias"):
            emit(full, f"{kind} {full}{generics(inner.get('generics'))}{marker}")
            if kind == "enum":
                for v in inner["variants"]:
                    vi = index[str(v)]
                    vk = vi["inner"]["variant"]["kind"]
                    fields = ""
                    if isinstance(vk, dict) and "tuple" in vk:
                        fields = "(" + ", ".join(
                            ty(index[str(f)]["inner"]["struct_field"]) if f is not None else "_"
                            for f in vk["tuple"]) + ")"
                    elif isinstance(vk, dict) and "struct" in vk:
                        fields = " { " + ", ".join(
                            f"{index[str(f)]['name']}: {ty(index[str(f)]['inner']['struct_field'])}"
                            for f in vk["struct"]["fields"]) + " }"
                    emit(f"{full}::{vi['name']}", f"variant {full}::{vi['name']}{fields}")
            if kind == "struct":
                sk = inner["kind"]
                if isinstance(sk, dict) and "plain" in sk:
                    for fid in sk["plain"]["fields"]:
                        fi = index.get(str(fid))
                        if fi and not hidden(fi):
                            emit(f"{full}::{fi['name']}", f"field {full}::{fi['name']}: {ty(fi['inner']['struct_field'])}")
                elif isinstance(sk, dict) and "tuple" in sk:
                    shown = [ty(index[str(f)]["inner"]["struct_field"]) if f is not None else "(private)"
                             for f in sk["tuple"]]
                    emit(f"{full}::0", f"field {full}.0..: ({', '.join(shown)})")
            if kind == "trait":
                for m in inner["items"]:
                    mi = index[str(m)]
                    if "function" in mi["inner"]:
                        emit(f"{full}::{mi['name']}", signature(mi, f"{full}::{mi['name']}"))
            members(full, name, inner)
        elif kind == "macro":
            emit(full, f"macro {full}")

    root = index[str(doc["root"])]
    # Modules last, so that an item re-exported at the root is listed there and its
    # module path becomes the `use` line.
    items = sorted(root["inner"]["module"]["items"],
                   key=lambda i: "module" in index.get(str(i), {}).get("inner", {}))
    for child in items:
        visit(child, "fmadiv")
    # By path (an item before its members, impls after them), then text.
    return "\n".join(text for _, text in sorted(set(lines))) + "\n"


def main():
    text = listing(build())
    if "--write" in sys.argv:
        with open(LISTING, "w") as f:
            f.write(text)
        print(f"wrote {LISTING} ({text.count(chr(10))} items)")
    elif "--check" in sys.argv:
        with open(LISTING) as f:
            old = f.read()
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), "docs/public-api.txt", "the API now"))
            print("\nthe public API changed: if that is deliberate, run scripts/public_api.py --write")
            sys.exit(1)
        print(f"public API unchanged ({text.count(chr(10))} items)")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
