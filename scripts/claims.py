#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every figure the documentation states has its evidence.

    scripts/claims.py [ROOT]          check; exit 1 and one line per problem when any
    scripts/claims.py --list [ROOT]   every claim found, with the index row that covers it

ROOT is the repository (default: this script's). The index is docs/evidence/claims.tsv
(tab-separated, '#' starts a comment line):

    doc <TAB> snippet <TAB> until <TAB> evidence

- doc: the document, relative to ROOT.
- snippet: text that occurs exactly once in the document (runs of white space, line breaks
  included, count as one space, so a snippet may cross a wrapped line). The row covers the
  snippet; with `until` (text that occurs after it) it covers everything from the snippet to
  the end of the first `until` after it: a table or a paragraph in one row.
- evidence, one of:
    docs/evidence/<folder>/<file> or tests/fixtures/<...>   the committed output that produced
        the figure (a measurement): the path must exist; several joined by " + " when a row's
        figures come from several outputs;
    checked: <test>    a CI test recomputes the figure from a committed fixture and asserts it
        (the fixture is the output; the test source must exist);
    setting: <path>    the figure is a default, limit or threshold the code sets (a design
        value, not a measurement): the file that sets it must exist;
    goal: <source>     a target the project set itself (e.g. an issue's acceptance bar), not a result;
    example: <why>     the figure illustrates a format or a command (a view range, a label);
    needs-gpu: <why>   measured on a GPU with no output committed; the text must say so and not
        state the number as a measured fact.

What counts as a claim (the scanner's rule): in README.md, docs/*.md and collectors/*/README.md,
outside fenced code blocks, inline code spans, HTML comments and link targets, a number
(optionally signed, with decimals or thousands commas, or a range "a-b", "a–b", "a to b",
"a / b") followed, after at most one space, by a unit of time (ns µs us ms s min), share (%),
ratio (×, or "x" written before the number: x1.17), size (B KB MB GB TB KiB MiB GiB TiB bytes,
B per event), rate (anything "/s": GB/s, TFLOP/s, events/s, rows/s) or frequency (MHz GHz).
Bare numbers (counts, dates, versions, issue numbers, schema versions) are not claims: they
carry no unit. The fixture READMEs under tests/fixtures are themselves evidence and are not
scanned.

Also checked: every relative link in those documents and every path under docs/evidence/
they name exists (a figure may not cite a file that is not committed), and every folder under
docs/evidence/ has its line in docs/evidence/README.md and every folder that README names
exists. Debian's python3 only.
"""
import bisect
import os
import re
import sys

INDEX = "docs/evidence/claims.tsv"
EVIDENCE_README = "docs/evidence/README.md"
EVIDENCE_ROOTS = ("docs/evidence/", "tests/fixtures/")

NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?"
UNIT = (r"(?:ns|µs|us|ms|s|min|%|×|B per event|bytes per event|bytes|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB"
        r"|[A-Za-z]*(?:FLOP|B|events|rows|samples)/s|MHz|GHz)")
# A number (or range of numbers) followed by a unit; not part of a word, a version or a path.
CLAIM = re.compile(r"(?<![\w.:/\-])(?:x" + NUMBER + r"|" + NUMBER + r"(?:\s?(?:-|–|to|/)\s?" + NUMBER + r")?"
                   r"[ \u00a0]?(?:M |G )?" + UNIT + r")(?![\w/])")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
EVIDENCE_PATH = re.compile(r"(?<![\w/])((?:docs/)?evidence/[\w.\-/]+)")


def documents(root):
    """README.md, docs/*.md and collectors/*/README.md that exist under root, in a fixed order."""
    def listing(folder):
        base = os.path.join(root, folder)
        return sorted(os.listdir(base)) if os.path.isdir(base) else []

    docs = ["README.md"] + [f"docs/{n}" for n in listing("docs") if n.endswith(".md")]
    docs += [f"collectors/{n}/README.md" for n in listing("collectors")]
    return [d for d in docs if os.path.isfile(os.path.join(root, d))]


def masked(text):
    """The text with fenced code blocks, inline code, HTML comments and link targets blanked
    (same length, line breaks kept), so offsets and line numbers stay those of the file."""
    out = list(text)

    def blank(a, b):
        for i in range(a, b):
            if out[i] != "\n":
                out[i] = " "

    for m in re.finditer(r"^```.*?^```[^\n]*$", text, re.S | re.M):
        blank(m.start(), m.end())
    for m in re.finditer(r"<!--.*?-->", text, re.S):
        blank(m.start(), m.end())
    cur = "".join(out)
    for m in re.finditer(r"`[^`\n]*`", cur):
        blank(m.start(), m.end())
    cur = "".join(out)
    for m in LINK.finditer(cur):
        blank(m.start(1), m.end(1))
    return "".join(out)


class Doc:
    def __init__(self, root, name):
        self.name = name
        with open(os.path.join(root, name), encoding="utf-8") as f:
            self.text = f.read()
        self.line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]
        # White-space-collapsed text and, per character, its offset in the file.
        chars, offsets, space = [], [], False
        for i, c in enumerate(self.text):
            if c.isspace():
                if not space:
                    chars.append(" ")
                    offsets.append(i)
                space = True
            else:
                chars.append(c)
                offsets.append(i)
                space = False
        self.flat = "".join(chars)
        self.offsets = offsets

    def line(self, offset):
        return bisect.bisect_right(self.line_starts, offset)

    def find(self, snippet, start=0):
        """(file start, file end) of every occurrence of the collapsed snippet from `start`."""
        needle = " ".join(snippet.split())
        found, i = [], self.flat.find(needle, start)
        while i >= 0 and needle:
            found.append((i, i + len(needle)))
            i = self.flat.find(needle, i + 1)
        return found

    def span(self, flat_a, flat_b):
        return self.offsets[flat_a], self.offsets[flat_b - 1] + 1

    def claims(self):
        m = masked(self.text)
        return [(c.start(), c.end(), c.group(0)) for c in CLAIM.finditer(m)]


class Row:
    def __init__(self, lineno, doc, snippet, until, evidence):
        self.lineno, self.doc, self.snippet, self.until, self.evidence = lineno, doc, snippet, until, evidence
        self.span = None


def read_index(root, problems):
    rows = []
    path = os.path.join(root, INDEX)
    if not os.path.isfile(path):
        problems.append(f"{INDEX}: missing")
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 4:
                problems.append(f"{INDEX}:{n}: {len(cols)} columns, expected 4 (doc, snippet, until, evidence)")
                continue
            rows.append(Row(n, *[c.strip() for c in cols]))
    return rows


def check_evidence(root, row, problems):
    ev = row.evidence
    where = f"{INDEX}:{row.lineno}"
    for kind in ("checked:", "setting:", "goal:", "example:", "needs-gpu:"):
        if ev.startswith(kind):
            rest = ev[len(kind):].strip()
            if not rest:
                problems.append(f"{where}: '{kind}' without a reason")
            elif kind in ("checked:", "setting:") and not os.path.exists(os.path.join(root, rest)):
                problems.append(f"{where}: {kind[:-1]} file {rest} does not exist")
            return
    for path in ev.split(" + "):
        if not path.startswith(EVIDENCE_ROOTS):
            problems.append(f"{where}: evidence '{path}' is neither a path under {' or '.join(EVIDENCE_ROOTS)} "
                            "nor checked:/setting:/goal:/example:/needs-gpu:")
        elif not os.path.exists(os.path.join(root, path)):
            problems.append(f"{where}: evidence {path} does not exist")


def locate(doc, row, problems):
    where = f"{INDEX}:{row.lineno}"
    hits = doc.find(row.snippet)
    if len(hits) != 1:
        problems.append(f"{where}: snippet occurs {len(hits)} times in {row.doc} (must be once): {row.snippet!r}")
        return
    a, b = hits[0]
    if row.until:
        ends = doc.find(row.until, b)
        if not ends:
            problems.append(f"{where}: 'until' text not found after the snippet in {row.doc}: {row.until!r}")
            return
        b = ends[0][1]
    row.span = doc.span(a, b)


def check_links(root, doc, problems):
    base = os.path.dirname(doc.name)
    for m in LINK.finditer(doc.text):
        target = m.group(1).split("#")[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue
        if not os.path.exists(os.path.normpath(os.path.join(root, base, target))):
            problems.append(f"{doc.name}:{doc.line(m.start(1))}: cites {target}, which does not exist")
    for m in EVIDENCE_PATH.finditer(doc.text):
        path = m.group(1).rstrip(".,;:")
        full = path if path.startswith("docs/") else os.path.join(base, path)
        if not os.path.exists(os.path.normpath(os.path.join(root, full))) \
                and not os.path.exists(os.path.join(root, "docs", path)):
            problems.append(f"{doc.name}:{doc.line(m.start(1))}: cites {path}, which does not exist")


def check_evidence_readme(root, problems):
    base = os.path.join(root, "docs", "evidence")
    readme = os.path.join(root, EVIDENCE_README)
    if not os.path.isfile(readme):
        return
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    named = set(re.findall(r"^\| `(\d{4}-\d\d-\d\d-[\w.\-]+)", text, re.M))
    folders = {n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n))}
    for n in sorted(folders - named):
        problems.append(f"{EVIDENCE_README}: no line for the folder {n}")
    for n in sorted(named - folders):
        problems.append(f"{EVIDENCE_README}: names {n}, which does not exist")


def run(root, listing=False):
    problems = []
    docs = {name: Doc(root, name) for name in documents(root)}
    rows = read_index(root, problems)
    for row in rows:
        if row.doc not in docs:
            problems.append(f"{INDEX}:{row.lineno}: {row.doc} is not a scanned document")
            continue
        locate(docs[row.doc], row, problems)
        check_evidence(root, row, problems)
    by_doc = {}
    for row in rows:
        if row.span:
            by_doc.setdefault(row.doc, []).append(row)
    lines = []
    for name, doc in docs.items():
        check_links(root, doc, problems)
        for a, b, text in doc.claims():
            cover = next((r for r in by_doc.get(name, []) if r.span[0] <= a and b <= r.span[1]), None)
            if cover is None:
                problems.append(f"{name}:{doc.line(a)}: claim '{text}' has no row in {INDEX}")
            lines.append(f"{name}:{doc.line(a)}\t{text}\t{cover.evidence if cover else 'NONE'}")
    check_evidence_readme(root, problems)
    problems = list(dict.fromkeys(problems))  # a link is also a path under evidence/: report it once
    if listing:
        print("\n".join(lines))
    for p in problems:
        print(p)
    covered = sum(1 for ln in lines if not ln.endswith("\tNONE"))
    print(f"claims.py: {len(lines)} claims in {len(docs)} documents, {covered} covered by {len(rows)} index rows; "
          f"{len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return run(root, listing="--list" in argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
