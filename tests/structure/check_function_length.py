#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""No function of the stream engine and the device layer is over 60 lines.

Usage: check_function_length.py <lib dir>    check lib/stream and lib/device
       check_function_length.py --self-test  prove the check finds a long function

A function is a definition at namespace scope as clang-format lays it out: its header
lines, then '{' alone at column 0, its body, and '}' alone at column 0; its length
counts both braces. Test files (qa_*) are not production code and are not checked.
"""

import os
import sys
import tempfile

LIMIT = 60
AREAS = ("stream", "device")


def functions(path):
    """(first line, length, header) of each function definition in path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    i = 0
    while i < len(lines):
        if lines[i] != "{" or i == 0:
            i += 1
            continue
        j = i - 1
        while j > 0 and lines[j - 1].strip() and not lines[j - 1].startswith(("}", "//", "#", " *", "/*")) \
                and not lines[j - 1].rstrip().endswith((";", "{", "}")):
            j -= 1
        header = " ".join(x.strip() for x in lines[j:i])
        k = i + 1
        while k < len(lines) and lines[k] != "}" and not lines[k].startswith("};"):
            k += 1
        is_type = header.startswith(("namespace", "class ", "struct ", "enum ", "union "))
        if "(" in header and not is_type and not lines[k].startswith("};"):
            found.append((j + 1, k - i + 1, header))
        i = k + 1
    return found


def long_functions(lib):
    out = []
    for area in AREAS:
        folder = os.path.join(lib, area)
        for name in sorted(os.listdir(folder)):
            if name.startswith("qa_") or not name.endswith((".cc", ".h")):
                continue
            path = os.path.join(folder, name)
            for line, length, header in functions(path):
                if length > LIMIT:
                    out.append(f"{path}:{line}: {length} lines: {header[:80]}")
    return out


def self_test():
    with tempfile.TemporaryDirectory() as lib:
        for area in AREAS:
            os.makedirs(os.path.join(lib, area))
        body = "\n".join(f"    x += {n};" for n in range(LIMIT - 2))
        with open(os.path.join(lib, "stream", "short.cc"), "w") as f:
            f.write(f"int ok(int x)\n{{\n{body}\n}}\n\nstruct s {{\n    int a;\n}};\n")
        with open(os.path.join(lib, "device", "long.cc"), "w") as f:
            f.write(f"int too_long(int x,\n             int y)\n{{\n{body}\n    x += y;\n}}\n")
        with open(os.path.join(lib, "device", "qa_long.cc"), "w") as f:
            f.write(f"void test()\n{{\n{body}\n{body}\n}}\n")
        found = long_functions(lib)
        if len(found) != 1 or "too_long" not in found[0] or "61 lines" not in found[0]:
            print("self-test: found", found, "expected too_long (61 lines) only")
            return 1
    print("self-test: the 61-line function found, the 60-line one and the test file not")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = long_functions(argv[1])
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} function(s) over {LIMIT} lines in lib/stream, lib/device: "
              "split them into named steps")
        return 1
    print(f"no function over {LIMIT} lines in lib/{{{','.join(AREAS)}}}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
