#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a gzip-compressed man page from a program's own --help (and, with --subcommands, from
each subcommand's --help), so the installed page says exactly what the built binary accepts.

Usage: manpage.py --program BIN --name NAME --version V --summary TEXT --output NAME.1.gz
                  [--subcommands] [--files TEXT] [--see-also NAME ...]
"""
import argparse
import gzip
import os
import re
import subprocess
import sys


def help_text(argv):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run(argv + ["--help"], capture_output=True, text=True, env=env, timeout=60)
    if run.returncode != 0 or not run.stdout.strip():
        sys.exit(f"manpage.py: {' '.join(argv)} --help failed ({run.returncode}): {run.stderr.strip()}")
    return run.stdout.rstrip()


def roff_escape(line):
    line = line.replace("\\", "\\e")
    # A line starting with . or ' would be read as a request.
    return "\\&" + line if line.startswith((".", "'")) else line


def verbatim(text):
    return [".nf"] + [roff_escape(l) for l in text.splitlines()] + [".fi"]


def subcommand_names(text):
    names, inside = [], False
    for line in text.splitlines():
        if re.match(r"^Subcommands:\s*$", line):
            inside = True
        elif inside and (m := re.match(r"^  (\S+)\s", line)):
            names.append(m.group(1))
        elif inside and line.strip() and not line.startswith(" "):
            inside = False
    return names


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--program", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--summary", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--subcommands", action="store_true")
    p.add_argument("--files", default="")
    p.add_argument("--see-also", nargs="*", default=[])
    a = p.parse_args()

    top = help_text([a.program])
    # The usage line names the program as it was invoked (a build path); the page names it plainly.
    top = top.replace(a.program, a.name)
    lines = [
        f'.TH {a.name.upper()} 1 "" "Warpscope {a.version}" "User Commands"',
        ".SH NAME",
        f"{a.name} \\- {roff_escape(a.summary)}",
        ".SH DESCRIPTION",
    ] + verbatim(top)
    if a.subcommands:
        names = subcommand_names(top)
        if not names:
            sys.exit(f"manpage.py: no subcommands found in {a.program} --help")
        lines.append(".SH COMMANDS")
        for name in names:
            lines += [f".SS {a.name} {name}"] + verbatim(help_text([a.program, name]).replace(a.program, a.name))
    if a.files:
        lines += [".SH FILES", roff_escape(a.files)]
    if a.see_also:
        lines += [".SH SEE ALSO", ", ".join(f"\\fB{n}\\fR(1)" for n in a.see_also)]
    data = ("\n".join(lines) + "\n").encode()
    # mtime=0 and no file name in the header: the same binary gives the same bytes.
    with open(a.output, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as z:
        z.write(data)


if __name__ == "__main__":
    main()
