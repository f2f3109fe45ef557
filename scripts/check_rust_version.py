#!/usr/bin/env python3
"""Checks that the library's `rust-version` is at least every dependency's own.

    scripts/check_rust_version.py

Walks the normal (non-dev) dependencies of the `fmadiv` library with every feature
enabled (`cargo metadata`), and fails if any crate in that closure declares a newer
rust-version than fmadiv does, or if fmadiv declares none. Prints the ones that set the
floor. (Whether our own code builds with that compiler needs the toolchain itself;
CI runs on the stable release, and the language features the code uses are listed in
README under "Dependencies and Rust version".)
"""
import json
import subprocess
import sys


def version(v):
    return tuple(int(x) for x in v.split("."))


meta = json.loads(subprocess.run(
    ["cargo", "metadata", "--format-version", "1", "--all-features", "--locked"],
    check=True, capture_output=True, text=True).stdout)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
root = next(p for p in meta["packages"] if p["name"] == "fmadiv")
declared = root.get("rust_version")
if not declared:
    sys.exit("fmadiv declares no rust-version")

seen, stack = set(), [root["id"]]
while stack:
    pid = stack.pop()
    for dep in nodes[pid]["deps"]:
        kinds = {k["kind"] for k in dep["dep_kinds"]}
        if None in kinds or "normal" in kinds or kinds == {None}:
            if dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                stack.append(dep["pkg"])

floor = sorted(((packages[p].get("rust_version") or "0.0", packages[p]["name"], packages[p]["version"])
                for p in seen), key=lambda t: version(t[0]), reverse=True)
newest = floor[0]
print(f"fmadiv declares rust-version {declared}; {len(seen)} dependencies in its closure (all features)")
for rv, name, ver in floor[:5]:
    print(f"  {name} {ver}: rust-version {rv}")
if version(newest[0]) > version(declared):
    sys.exit(f"{newest[1]} {newest[2]} needs Rust {newest[0]}, above fmadiv's {declared}")
print("ok: no dependency needs a newer Rust than fmadiv declares")
