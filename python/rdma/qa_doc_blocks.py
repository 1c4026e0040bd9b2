#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The shell blocks of README.md and docs/*.md, and who runs each (COVERAGE).

Not a test: the inventory that qa_doc_commands checks and runs, and the writer of the
scripts the rxe guest runs (--guest-script NAME PATH, called by
tests/rxe-guest/CMakeLists.txt). No GNU Radio import, so that the build can call it.

A shell block is a fenced block marked sh, bash, shell or console, or an unmarked one
whose first line is a command after a `$ ` prompt (a transcript: a command and what it
printed). COVERAGE says, for each of them, who runs it:

* here: a test method of qa_doc_commands runs it as written, in a scratch directory
  that looks like a checkout (every top-level entry of the source tree linked, `build`
  the build tree under test), with the build tree's apps first on PATH, as an
  installed copy's are;
* in_guest: the rxe guest runs it (ctest rxe_guest), and a test method of
  qa_doc_commands checks that what the guest runs is the block;
* elsewhere: another test extracts it from the page and runs it; the entry names that
  test, the script that does it and the text by which the script finds the block,
  which qa_doc_commands checks is there;
* where_possible: another test runs it, as elsewhere, but only on a machine that has
  what it needs, which CI's has not: counted as not run, with the reason, printed by
  qa_doc_commands on every run;
* not_run: the reason, printed by qa_doc_commands on every run.

A block that COVERAGE does not name fails qa_doc_commands: a new command in a page
needs a test, or a reason. What the tests change in a block before they run it is
listed here (SUBSTITUTIONS, GUEST_SCRIPTS) or where they do it: only placeholders a
reader must fill in, and commands that CI has run before.
"""

import collections
import pathlib
import re
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2]

SHELL_LANGUAGES = ("sh", "bash", "shell", "console")

Block = collections.namedtuple("Block", "page line heading language lines")


def blocks_of_page(path):
    """Every fenced block of a Markdown file, with the heading it is under."""
    page = str(path.relative_to(SOURCE)) if SOURCE in path.parents else path.name
    heading, block, fence, indent = "", None, None, 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if block is None:
            m = re.fullmatch(r"(```+)\s*([\w+-]*)\s*", stripped)
            if m:
                fence, block = m.group(1), Block(page, number + 1, heading, m.group(2), [])
                indent = len(line) - len(line.lstrip())  # a block in a list item
            elif re.match(r"#+ ", line):
                heading = line.split(" ", 1)[1].strip()
        elif stripped == fence:
            yield block
            block = None
        else:
            block.lines.append(line[indent:] if line[:indent].isspace() else line)


def documents():
    return [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md"))]


def is_shell(block):
    if block.language in SHELL_LANGUAGES:
        return True
    first = next((line for line in block.lines if line.strip()), "")
    return block.language == "" and first.startswith("$ ")


def first_command(block):
    """A block's name in COVERAGE: its first line (of a transcript: the command)."""
    first = next(line for line in block.lines if line.strip())
    return first[2:] if first.startswith("$ ") else first


def shell_blocks():
    return [b for doc in documents() for b in blocks_of_page(doc) if is_shell(b)]


class here(collections.namedtuple("here", "method")):
    def describe(self):
        return "run here: qa_doc_commands.%s" % self.method


class in_guest(collections.namedtuple("in_guest", "method note")):
    def describe(self):
        return ("run in the rxe guest (ctest rxe_guest): %s; qa_doc_commands.%s checks "
                "that it is what the guest runs" % (self.note, self.method))


class elsewhere(collections.namedtuple("elsewhere", "test script marker note")):
    def describe(self):
        return "run by %s (%s)%s" % (self.test, self.script,
                                           ": " + self.note if self.note else "")


class where_possible(collections.namedtuple("where_possible",
                                            "test script marker needs instead")):
    def describe(self):
        return ("NOT RUN in CI: it needs %s; %s (%s) runs it where that is there. What "
                "CI checks instead: %s" % (self.needs, self.test, self.script,
                                           self.instead))


class not_run(collections.namedtuple("not_run", "reason")):
    def describe(self):
        return "NOT RUN: " + self.reason


# (page, first line of the block) -> who runs it.
COVERAGE = {
    ("docs/links.md", "gr-rdma-emu --control 127.0.0.1:50700 --link 127.0.0.1 > emu.log &"):
        here("test_links_md_shares"),
    # README.md
    ("README.md", '.ci/build && build/apps/gr-rdma-rx --args "type=emu,signal=ramp" '
     '--format sc16 --rate 20e6 --duration 3 --json'): here("test_readme_quick_start"),
    ("README.md", ".ci/build && ctest --test-dir build -j2 --output-on-failure"):
        elsewhere("CI", ".ci/run",
                  ".ci/build && ctest --test-dir build -j2 --output-on-failure",
                  "as written, in a clean clone: it is the whole test suite"),
    ("README.md", ".ci/build"): here("test_readme_install"),
    ("README.md", "tests/stress/run-suite.sh --loaded --runs 10 && "
     "tests/stress/run-suite.sh --runs 10"):
        not_run("the stress check: the whole suite twenty times (some two hours on two "
                "cores), half of them beside two busy loops; its last figures are in "
                "docs/testing.md"),
    # docs/testing.md
    ("docs/testing.md", ".ci/build && ctest --test-dir build -j2 --output-on-failure"):
        elsewhere("CI", ".ci/run",
                  ".ci/build && ctest --test-dir build -j2 --output-on-failure",
                  "as written, in a clean clone: it is the whole test suite"),
    ("docs/testing.md",
     "build/tests/fuzz/fuzz_tx_records tests/fuzz/corpus/tx_records 10000000"):
        elsewhere("ctest fuzz_tx_records", "tests/fuzz/CMakeLists.txt",
                  "COMMAND fuzz_${target} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${target}",
                  "the same program on the same corpus, 200 000 inputs a turn; the long "
                  "turn (10 000 000, about a minute) by hand"),
    ("docs/testing.md", "tests/stress/run-suite.sh --loaded --runs 10   # beside two "
     "busy loops"):
        not_run("the stress check (as README's): the whole suite twenty times, some "
                "two hours on two cores; its last figures are on the page"),
    ("README.md", 'cmake --install build --prefix "$PREFIX"'):
        elsewhere("ctest downstream_install", "tests/downstream/run-downstream.sh",
                  "/^## Use an installed copy/", "every sh block of the section, as written"),
    ("README.md", 'cmake -S tests/downstream -B build-downstream -DCMAKE_PREFIX_PATH="$PREFIX"'):
        elsewhere("ctest downstream_install", "tests/downstream/run-downstream.sh",
                  "/^## Use an installed copy/", "every sh block of the section, as written"),
    ("README.md", "grcc -o grc-out examples/rx_ramp_check.grc"):
        elsewhere("ctest downstream_install", "tests/downstream/run-downstream.sh",
                  "/^## Use an installed copy/", "every sh block of the section, as written"),
    ("README.md", "dpkg-buildpackage -b -us -uc"):
        elsewhere("ctest debian_package", "tests/debian/run-debian-package.sh",
                  'sh_blocks "$SRC/README.md" "Debian packages"',
                  "dpkg-buildpackage always; `sudo apt install` only with "
                  "GR_RDMA_TEST_APT_INSTALL=1 (it changes the machine)"),
    ("README.md", "sudo apt install ../libgnuradio-rdma-dev_*.deb"):
        elsewhere("ctest debian_package", "tests/debian/run-debian-package.sh",
                  'sh_blocks "$SRC/README.md" "Debian packages" 2',
                  "with GR_RDMA_TEST_APT_INSTALL=1 (CI's .ci/run sets it), after the "
                  "first block's apt install: every line as written, in the checkout "
                  "the packages were built in; then it checks that CMake found "
                  "gnuradio-rdma in /usr and the programs load the installed "
                  "libraries"),
    ("README.md", 'build/apps/gr-rdma-rx --args "type=emu,signal=ramp,loss=0.01" '
     '--rate 20e6 --duration 1 --check --json'): here("test_readme_loss"),
    # docs/tutorial.md
    ("docs/tutorial.md", "dpkg-buildpackage -b -us -uc"):
        elsewhere("ctest debian_package", "tests/debian/run-debian-package.sh",
                  'sh_blocks "$SRC/docs/tutorial.md" "1. Install"',
                  "it must equal README's Debian commands; apt install as README's"),
    ("docs/tutorial.md", "gr-rdma-rx --help"): here("test_tutorial_first_run"),
    ("docs/tutorial.md", "grcc -o ~/gr-rdma-tutorial examples/rx_qt_spectrum.grc"):
        here("test_tutorial_spectrum"),
    ("docs/tutorial.md", 'gr-rdma-rx --args "type=emu,signal=tone,freq=250e3,loss=0.001" '
     '--rate 1e6 --duration 2 --sigmf capture --json'): here("test_tutorial_recording"),
    ("docs/tutorial.md", "gr-rdma-doctor"): here("test_tutorial_verbs"),
    ("docs/tutorial.md", "sudo modprobe rdma_rxe"):
        in_guest("test_guest_scripts", "as written but for sudo (root) and PATH (the "
                 "build tree), in the rxe guest, in the host's root shared read-only "
                 "(GUEST_SCRIPTS, host-root.sh)"),
    # docs/doctor.md
    ("docs/doctor.md", "build/apps/gr-rdma-doctor            # a report for people"):
        here("test_doctor_md"),
    # docs/find-probe.md
    ("docs/find-probe.md", "gr-rdma-find                                   "
     "# the device at 127.0.0.1:50100"): here("test_find_probe_md_commands"),
    ("docs/find-probe.md", "gr-rdma-emu --control 0.0.0.0:50100 --link 10.0.0.2"):
        here("test_find_probe_md_commands"),
    ("docs/find-probe.md", "gr-rdma-find --addr 127.0.0.1 --addr 127.0.0.1:50200 "
     "--addr 127.0.0.1:50300 -v"): here("test_find_probe_md_transcripts"),
    ("docs/find-probe.md", "gr-rdma-find --broadcast h4d-vb -v"):
        here("test_find_probe_md_transcripts"),
    ("docs/find-probe.md", "gr-rdma-probe --addr 127.0.0.1:50200"):
        here("test_find_probe_md_transcripts"),
    ("docs/find-probe.md", "gr-rdma-probe --addr 127.0.0.1:50100"):
        elsewhere("ctest qa_find_probe", "python/rdma/qa_find_probe.py", "NOT_OWNER",
                  "the probe of a stream another host owns and runs (its counters "
                  "move); qa_find_probe sets that up and checks the section"),
    # docs/performance.md
    ("docs/performance.md", "bench/run.sh              # build the bench targets, run "
     "every phase, print the tables"):
        not_run("the benchmark suite: some 10 minutes on an idle machine, a second "
                "build tree, root for sysctls and hugepages; never under ctest (its "
                "paths: qa_bench_paths; its analyzer: bench_analyze_smoke)"),
    ("docs/performance.md", "/usr/bin/python3 bench/analyze.py bench/results/<run> "
     "--write-docs"):
        not_run("rewrites docs/performance.md and its plot from a benchmark run, with "
                "python3-matplotlib (bench/run.sh installs it, CI does not); "
                "bench_analyze_smoke runs the analyzer on committed results"),
    ("docs/performance.md", "bench/convert.py run --build build --rate 100e6 --seconds 1 "
     "--reps 3"):
        elsewhere("ctest bench_convert_run_smoke, bench_convert_analyze_smoke",
                  "bench/CMakeLists.txt", "convert.py run",
                  "the runner on a short 5 MS/s stream (the 100 MS/s measurement is a "
                  "benchmark, never timed under ctest); the analyzer as written, on the "
                  "committed run"),
    ("docs/performance.md", "bench/tx.py run --rates 10e6,20e6,40e6 --seconds 3 --reps 4"):
        elsewhere("ctest bench_tx_smoke, bench_tx_analyze_smoke",
                  "bench/CMakeLists.txt", "tx.py run",
                  "the runner on one short turn at 2 MS/s (the measurement, some 7 "
                  "minutes, is a benchmark, never timed under ctest); the analyzer as "
                  "written, on the committed run"),
    ("docs/performance.md", "bench/ctrl_emu.py run         # the emulator: water filling "
     "against round robin, some 25 s"):
        not_run("benchmarks: the emulator's three streams for some 25 s and the loop under "
                "callgrind for minutes, never timed under ctest; the runner of the second: "
                "bench_ctrl_smoke; both analyzers on their committed runs: "
                "bench_ctrl_analyze_smoke, bench_ctrl_emu_analyze_smoke"),
    # docs/recording.md
    ("docs/recording.md", 'gr-rdma-rx --args "type=emu,signal=ramp,loss=0.01" --rate 1e6 '
     '--duration 2 --sigmf capture --json > report.json'): here("test_recording_md"),
    ("docs/recording.md", 'gr-rdma-rx --args "type=emu,signal=tone" --freq 100.1e6 '
     '--rate 1e6 --duration 1 --sigmf tuned --json > tuned.json'): here("test_recording_md"),
    ("docs/recording.md", "gr-rdma-rx --format sc16 --rate 1e6 --duration 3 --sigmf rec "
     "--rotate-seconds 1"): here("test_recording_md"),
    # docs/ring-memory.md
    ("docs/ring-memory.md", "sysctl -w vm.nr_hugepages=N                                    "
     "# now (2 MiB is the default size on x86-64)"):
        in_guest("test_guest_scripts", "as written (N: 4), as root, in the guest, "
                 "whose hugepage pool it changes (GUEST_SCRIPTS)"),
    ("docs/ring-memory.md", "cmake --build build -j2 --target qa_ring"):
        here("test_ring_memory_md"),
    # docs/rx-server.md
    ("docs/rx-server.md", 'timeout --preserve-status -s TERM 3 gr-rdma-rx --args '
     '"type=emu,signal=ramp" --format sc16 --rate 1e6 --status --progress-interval 1 '
     '--json'): here("test_rx_server_md"),
    ("docs/rx-server.md", 'gr-rdma-rx --args "type=emu,signal=tone" --otw sc16 --format fc32 '
     '--rate 1e6 --duration 1 --json'): here("test_rx_server_md"),
    # docs/tx-server.md
    ("docs/tx-server.md", 'gr-rdma-tx --args "type=emu,tx_check=1" --format sc16 --rate 1e6 '
     '--duration 1 --json'): here("test_tx_server_md"),
    ("docs/tx-server.md", 'timeout --preserve-status -s INT 2 gr-rdma-tx --args '
     '"type=emu,tx_check=1" --rate 1e6 --json'): here("test_tx_server_md"),
    ("docs/tx-server.md", 'gr-rdma-rx --format sc16 --rate 1e6 --samples 500000 --output '
     'ramp.sc16 --json > rx.json'): here("test_tx_server_md"),
    ("docs/tx-server.md", 'gr-rdma-tx --args "type=emu,tx_check=1" --rate 1e6 --throttle 5e5 '
     '--duration 1'): here("test_tx_server_md"),
    # docs/rxe-guest.md
    ("docs/rxe-guest.md", "cmake --build build -j2                    "
     "# the guest uses the built binaries as they are"): here("test_rxe_guest_md"),
    ("docs/rxe-guest.md", "tests/rxe-guest/run-rxe-guest.sh --shell --work /tmp/rxe-shell \\"):
        not_run("an interactive shell in the guest (Ctrl-A X to leave); the guest it "
                "boots is rxe_guest's, which CI runs"),
    # docs/server.md
    ("docs/server.md", "sudo cp /usr/share/gr-rdma/rx-example.conf /etc/gr-rdma/rx-emu.conf"):
        where_possible("ctest debian_package", "tests/debian/run-debian-package.sh",
                       'sh_blocks "$SRC/docs/server.md" "Run it"',
                       "a running systemd (systemctl, journalctl), which CI's "
                       "containers do not boot, besides GR_RDMA_TEST_APT_INSTALL=1 "
                       "(which CI sets)",
                       "the installed unit and the unpacked one pass systemd-analyze "
                       "verify (a failure when it is missing), and the unit's command "
                       "line with the example configuration runs until SIGTERM"),
    # docs/verbs.md
    ("docs/verbs.md", 'gr-rdma-rx --args "type=remote,addr=192.0.2.2,nic=verbs,'
     'nic_addr=192.0.2.1" --rate 1e6'):
        in_guest("test_tutorial_verbs", "it runs until stopped: its device args are "
                 "the tutorial's, whose gr-rdma-rx line the guest runs (--duration 2)"),
}

# What the tests change in a block before they run it: (pattern, replacement, why).
SUBSTITUTIONS = [
    (r"^\.ci/build(?: && |\n)", "",
     ".ci/build installs the build dependencies and builds ./build: CI runs it before "
     "ctest (.ci/run), and the build tree under test is what it built"),
]


def substitute(text):
    for pattern, replacement, _ in SUBSTITUTIONS:
        text = re.sub(pattern, replacement, text, flags=re.M)
    return text


# Blocks that need root and change the machine, run as written in the rxe guest: its
# test list (tests/rxe-guest/CMakeLists.txt) runs the script this file writes for each
# (--guest-script NAME PATH). name -> (page, first line, substitutions, before, after).
GUEST_SCRIPTS = {
    "ring_memory_hugepages": (
        "docs/ring-memory.md",
        "sysctl -w vm.nr_hugepages=N                                    "
        "# now (2 MiB is the default size on x86-64)",
        [("N", "4", "the number of pages, the reader's to choose")],
        ["mkdir -p /etc/sysctl.d                # the guest's root has none"],
        ["grep -q '^HugePages_Total: *4$' /proc/meminfo",
         "grep -qx 'vm.nr_hugepages = 4' /etc/sysctl.d/90-gr-rdma.conf",
         "sysctl -w vm.nr_hugepages=0           # as it was, for the tests after"]),
    # Needs Python and GNU Radio: run in the host's root, shared read-only with the
    # guest (GUEST_RUNNERS), on the guest's kernel. The guest's own setup made the same
    # link and namespace: the tutorial starts from none, as on a fresh host.
    "tutorial_verbs": (
        "docs/tutorial.md",
        "sudo modprobe rdma_rxe",
        [],
        ['sudo() { "$@"; }                      # root in the guest, which has no sudo',
         '# the build tree\'s programs, as if installed',
         'PATH="$(cd "$(dirname "$0")/../../.." && pwd)/apps:$PATH"',
         "# undo the guest's own setup (guest-init.sh): the tutorial makes it again",
         "pkill -x gr-rdma-emu || true",
         "rdma link delete rxe0",
         "ip link delete veth0",
         "rdma link delete rxe1                 # and its second link's",
         "ip link delete veth2"],
        ["kill $!                               # the emulator daemon",
         "rdma statistic show link rxe0/1"]),
}

# How the guest runs a script, when not as it is (tests/rxe-guest/CMakeLists.txt).
GUEST_RUNNERS = {"tutorial_verbs": "/rxe-guest/host-root"}


def guest_script(name):
    page, first, substitutions, before, after = GUEST_SCRIPTS[name]
    (block,) = [b for b in shell_blocks() if (b.page, first_command(b)) == (page, first)]
    text = commands(block)
    for placeholder, value, _ in substitutions:
        text = re.sub(r"\b%s\b" % re.escape(placeholder), value, text)
    changed = ", ".join("%s = %s (%s)" % s for s in substitutions)
    return ("#!/bin/sh\n# %s:%d (%s), as written%s.\n# Written by "
            "python/rdma/qa_doc_blocks.py --guest-script %s: do not edit.\nset -ex\n"
            % (page, block.line, block.heading, " but for " + changed if changed else "",
               name) +
            "\n".join(before) + "\n# the page's commands\n" + text +
            "# the check, and back as it was\n" + "\n".join(after) + "\n")


def commands(block):
    """The block as a script: a transcript's command lines only, without the prompt."""
    if block.language == "" or block.language == "console":
        return "\n".join(line[2:] for line in block.lines if line.startswith("$ ")) + "\n"
    return "\n".join(block.lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "--guest-script":
        sys.exit("usage: qa_doc_blocks.py --guest-script NAME PATH")
    out = pathlib.Path(sys.argv[3])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(guest_script(sys.argv[2]), encoding="utf-8")
    out.chmod(0o755)
