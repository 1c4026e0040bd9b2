#!/usr/bin/env python3
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""The transport core's layering, checked over its include graph.

Each area of lib/ may include headers of the areas listed for it below and of no
other (docs/architecture.md, "Areas"). In particular the stream engine includes no
emulator header (devices come from the device registry), and the emulator no NIC
header (the in-process link is lib/wire). The GNU Radio blocks (lib/blocks) sit on top:
no area includes them. End-to-end tests live in lib/e2e, which may include anything;
the test runners in lib/qa, which any area's tests (qa_*) may include. Every source
file is in an area: none at lib/'s top level.

Usage: check_layering.py <lib dir>      exit 1 and list each violation
       check_layering.py --self-test    prove the check finds a violation
"""

import os
import re
import sys
import tempfile

ALLOWED = {
    "util": set(),
    "regs": {"util"},
    "meta": {"regs", "util"},
    "roce": {"util"},
    "axioe": {"regs", "util"},
    "ring": {"util"},
    "signal": {"util"},
    "wire": {"util"},
    "device": {"axioe", "meta", "regs", "util"},
    "nic": {"ring", "roce", "util", "wire"},
    "emu": {"axioe", "device", "meta", "regs", "roce", "signal", "util", "wire"},
    "standin": {"axioe", "device", "emu", "nic", "regs", "roce", "util", "wire"},
    "stream": {"axioe", "device", "meta", "nic", "regs", "ring", "roce", "signal", "util"},
    "record": set(),
    "blocks": {"record", "stream", "util"},
    "qa": set(),
    "e2e": None,  # end-to-end tests: any area
}
TEST_SUPPORT = "qa"  # any area's tests (qa_*) may include it

INCLUDE = re.compile(r'^\s*#\s*include\s*"(?:\.\./)?([a-z0-9_]+)/[^"]+"', re.M)


def violations(lib):
    found = []
    for area in sorted(os.listdir(lib)):
        path = os.path.join(lib, area)
        if not os.path.isdir(path):
            if area.endswith((".h", ".cc")):
                found.append(f"{area}: a source file outside every area: move it into one")
            continue
        if area.startswith("."):
            continue
        if area not in ALLOWED:
            found.append(f"{area}/: an area without a rule: add it to {__file__}")
            continue
        allowed = ALLOWED[area]
        if allowed is None:
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".h", ".cc")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                text = f.read()
            for other in INCLUDE.findall(text):
                if other == TEST_SUPPORT and name.startswith("qa_"):
                    continue
                if other != area and other in ALLOWED and other not in allowed:
                    found.append(f"{area}/{name} includes a header of {other}/")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as lib:
        for area in ("stream", "emu", "util", "blocks", "qa"):
            os.mkdir(os.path.join(lib, area))
        with open(os.path.join(lib, "emu", "qa_ok.cc"), "w") as f:
            f.write('#include "../qa/qa_runner.h"\n')
        with open(os.path.join(lib, "emu", "runner.cc"), "w") as f:
            f.write('#include "../qa/qa_runner.h"\n')
        with open(os.path.join(lib, "stream", "up.cc"), "w") as f:
            f.write('#include "../blocks/rx_source_impl.h"\n')
        with open(os.path.join(lib, "loose_impl.cc"), "w") as f:
            f.write("\n")
        with open(os.path.join(lib, "stream", "ok.cc"), "w") as f:
            f.write('#include "../util/log.h"\n#include "local.h"\n')
        with open(os.path.join(lib, "emu", "bad.h"), "w") as f:
            f.write('#include "../nic/nic.h"\n')
        with open(os.path.join(lib, "stream", "bad.cc"), "w") as f:
            f.write('  #include "../emu/emulator.h"\n')
        found = violations(lib)
    expected = ["emu/bad.h includes a header of nic/",
                "emu/runner.cc includes a header of qa/",
                "loose_impl.cc: a source file outside every area: move it into one",
                "stream/bad.cc includes a header of emu/",
                "stream/up.cc includes a header of blocks/"]
    if found != expected:
        print(f"self-test: found {found}, expected {expected}")
        return 1
    print("self-test: every violation found, nothing else")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = violations(argv[1])
    for v in found:
        print("layering:", v)
    if found:
        return 1
    print("layering: every include follows the rules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
