#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Collect the C++ examples of README.md and docs/*.md for the test downstream_install.

Usage: doc_snippets.py <source dir> <output dir>

A ```cpp block is public unless its first line starts with INTERNAL. A public block may
include installed headers only (#include <...>): it is written to <output dir> as a
translation unit, its #include lines first and the rest as the body of a function, for
the test to compile against the installed prefix. A public block that includes a
quoted header (a lib/ header: never installed) is an error naming the file and line.
"""

import pathlib
import re
import sys

INTERNAL = "// Internal API:"


def blocks(path):
    """(line number, lines) of every ```cpp block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    block, start = None, 0
    for number, line in enumerate(lines, 1):
        if block is None and re.fullmatch(r"```(cpp|c\+\+)", line.strip()):
            block, start = [], number + 1
        elif block is not None and line.strip() == "```":
            yield start, block
            block = None
        elif block is not None:
            block.append(line)


def main(source, out):
    source, out = pathlib.Path(source), pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pages = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    errors, public, internal = [], 0, 0
    for page in pages:
        for start, block in blocks(page):
            where = f"{page.relative_to(source)}:{start}"
            if block and block[0].startswith(INTERNAL):
                internal += 1
                continue
            includes = [line for line in block if line.lstrip().startswith("#include")]
            body = [line for line in block if not line.lstrip().startswith("#include")]
            quoted = [line for line in includes if '"' in line]
            if quoted:
                errors.append(f"{where}: a public C++ example includes "
                              f"{quoted[0].strip()}, which is not installed; use "
                              f"<gnuradio/rdma/...> headers, or begin the block with "
                              f"'{INTERNAL} ...'")
                continue
            name = re.sub(r"[^A-Za-z0-9]+", "_", where) + ".cc"
            (out / name).write_text(f"// {where}\n" + "\n".join(includes) +
                                    "\n\nvoid snippet()\n{\n" + "\n".join(body) + "\n}\n",
                                    encoding="utf-8")
            public += 1
    for error in errors:
        print(error, file=sys.stderr)
    print(f"{public} public C++ examples, {internal} marked internal")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
