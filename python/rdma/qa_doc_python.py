#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Every ```python block of README.md and docs/*.md runs, as written, and ends by itself.

Each block is a whole program a user may paste: it runs in its own interpreter (this
test's, with this test's environment, so the module under test is the one imported),
must exit 0 within the time limit, and must print no Python traceback.
"""

import os
import pathlib
import re
import subprocess
import sys

from gnuradio import gr_unittest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
TIME_LIMIT_S = 120


def python_blocks(path):
    """(first line number, code) of every ```python block of a Markdown file."""
    block, start = None, 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if block is None and re.fullmatch(r"```python", line.strip()):
            block, start = [], number + 1
        elif block is not None and line.strip() == "```":
            yield start, "\n".join(block) + "\n"
            block = None
        elif block is not None:
            block.append(line)


def documents():
    return [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md"))]


class qa_doc_python(gr_unittest.TestCase):

    def test_the_documents_have_python_blocks(self):
        # The runner below must not pass by finding nothing (a changed fence, a moved
        # README): README alone has three.
        found = sum(1 for doc in documents() for _ in python_blocks(doc))
        self.assertGreaterEqual(found, 3)

    def test_every_python_block_runs(self):
        for doc in documents():
            for line, code in python_blocks(doc):
                where = f"{doc.relative_to(SOURCE)}:{line}"
                with self.subTest(block=where):
                    proc = subprocess.run([sys.executable, "-c", code],
                                          capture_output=True, text=True,
                                          timeout=TIME_LIMIT_S, env=os.environ.copy())
                    self.assertEqual(proc.returncode, 0,
                                     f"{where} exited {proc.returncode}:\n{proc.stderr}")
                    self.assertNotIn("Traceback", proc.stderr, where)


if __name__ == '__main__':
    gr_unittest.run(qa_doc_python)
