#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the include graph against the layers in docs/architecture.md.

1. Every quoted include of a core/ or ui/ header spells the layer ("core/store/x.h"), so a
   folder name such as timeline/ is never ambiguous between core and ui.
2. core/ folders form layers (LAYERS below, lowest first); a folder may include its own layer
   or lower ones, never a higher one. core never includes ui/, app/, collectors/, Qt or CUDA.
3. No folder circle in core/ or ui/ (folder A includes B and B, directly or not, includes A).
4. No SQL and no sqlite3 call outside core/store (the store's typed reads are the only door).
Prints every violation and exits 1 if there is one. Usage: layers.py [ROOT]
"""
import os
import re
import sys

# The repository, or the tree named by the first argument (tests/scripts/tst_layers.py checks
# the script on a planted tree).
ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Lowest first. The CMake targets in core/CMakeLists.txt mirror this list.
LAYERS = [
    ("base", ["model", "raw", "util", "report", "bench"]),
    ("store", ["store"]),
    ("timeline", ["timeline"]),
    ("ingest", ["ingest", "import", "iket", "synth"]),
    ("analysis", ["analysis", "ranking", "metrics", "occupancy", "roofline", "diagnosis", "compare", "source"]),
    ("export", ["export"]),
]
LAYER_OF = {folder: i for i, (_, folders) in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]')
SQL = re.compile(r'\bsqlite3_\w+\s*\(|"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA)\b')
SQL_ALLOWED = ("core/store/",)


def sources(top):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        if "fixtures" in os.path.relpath(d, ROOT).split(os.sep):
            continue  # planted violations (tests/fixtures/layers), not our sources
        for f in files:
            if f.endswith((".h", ".cpp", ".cu", ".cuh")):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def folder_of(path):
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def main():
    errors = []
    graph = {}
    for top in ("core", "ui", "app", "collectors", "tests"):
        for path in sources(top):
            text = open(os.path.join(ROOT, path), encoding="utf-8", errors="replace").read()
            if top in ("core", "ui", "app") and not path.startswith(SQL_ALLOWED):
                for n, line in enumerate(text.splitlines(), 1):
                    if SQL.search(line):
                        errors.append(f"{path}:{n}: SQL outside core/store: {line.strip()}")
            for n, line in enumerate(text.splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                angle, inc = m.group(1) == "<", m.group(2)
                here = f"{path}:{n}"
                if top == "core" and angle and (inc.startswith("Q") or inc.startswith("cuda") or inc.startswith("cupti")):
                    errors.append(f"{here}: core includes {inc} (core is Qt-free and CUDA-free)")
                if angle or inc.endswith(".moc"):
                    continue
                bare = os.path.join(ROOT, "core", inc), os.path.join(ROOT, "ui", inc)
                if not inc.startswith(("core/", "ui/")) and any(os.path.exists(b) for b in bare):
                    errors.append(f"{here}: include \"{inc}\" must name its layer (core/... or ui/...)")
                if top == "core" and inc.startswith(("ui/", "app/", "collectors/")):
                    errors.append(f"{here}: core includes {inc}")
                if top not in ("core", "ui") or not inc.startswith(("core/", "ui/")):
                    continue
                src, dst = folder_of(path), folder_of(inc)
                if src == dst:
                    continue
                graph.setdefault(src, set()).add(dst)
                if top == "core":
                    a, b = src.split("/")[1], dst.split("/")[1]
                    if a in LAYER_OF and b in LAYER_OF and LAYER_OF[b] > LAYER_OF[a]:
                        errors.append(f"{here}: {src} (layer {LAYERS[LAYER_OF[a]][0]}) includes {inc} "
                                      f"(higher layer {LAYERS[LAYER_OF[b]][0]})")
                    elif a not in LAYER_OF:
                        errors.append(f"{here}: folder {src} has no layer in scripts/layers.py")
    # Folder circles: Tarjan's strongly connected components.
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
                comps.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    for comp in comps:
        errors.append("folder circle: " + " <-> ".join(comp))
    for e in errors:
        print(e)
    print(f"layers: {len(errors)} violation(s) over {len(graph)} folders")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
