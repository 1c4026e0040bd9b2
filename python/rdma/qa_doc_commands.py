#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Every shell command of README.md and docs/*.md is run by a test.

A shell block is a fenced block marked sh, bash, shell or console, or an unmarked one
whose first line is a command after a `$ ` prompt (a transcript: a command and what it
printed). COVERAGE below says, for each of them, who runs it:

* here: a test method of this file runs it as written, in a scratch directory that
  looks like a checkout (every top-level entry of the source tree linked, `build` the
  build tree under test), with the build tree's apps first on PATH, as an installed
  copy's are;
* elsewhere: another test extracts it from the page and runs it; the entry names that
  test, the script that does it and the text by which the script finds the block,
  which test_every_shell_block_is_run checks is there;
* not run: the reason, printed by test_every_shell_block_is_run on every run.

A block that COVERAGE does not name fails test_every_shell_block_is_run: a new command
in a page needs a test, or a reason. Substitutions are listed where they are made
(SUBSTITUTIONS, and the transcripts' setups): only placeholders a reader must fill in
and durations of commands that run until stopped.
"""

import collections
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time

from gnuradio import gr_unittest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
APP = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")
# The build tree under test: the one whose gr-rdma-rx ctest names (build/apps/gr-rdma-rx).
BUILD = pathlib.Path(APP).resolve().parents[1] if os.path.isabs(APP) else SOURCE / "build"
TIME_LIMIT_S = 300

SHELL_LANGUAGES = ("sh", "bash", "shell", "console")

Block = collections.namedtuple("Block", "page line heading language lines")


def blocks_of_page(path):
    """Every fenced block of a Markdown file, with the heading it is under."""
    page = str(path.relative_to(SOURCE))
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
        return "run by ctest %s (%s)%s" % (self.test, self.script,
                                           ": " + self.note if self.note else "")


class not_run(collections.namedtuple("not_run", "reason")):
    def describe(self):
        return "NOT RUN: " + self.reason


# (page, first line of the block) -> who runs it.
COVERAGE = {
    # README.md
    ("README.md", '.ci/build && build/apps/gr-rdma-rx --args "type=emu,signal=ramp" '
     '--format sc16 --rate 20e6 --duration 3 --json'): here("test_readme_quick_start"),
    ("README.md", ".ci/build && ctest --test-dir build --output-on-failure"):
        here("test_readme_quick_start"),
    ("README.md", ".ci/build"): here("test_readme_install"),
    ("README.md", 'cmake --install build --prefix "$PREFIX"'):
        elsewhere("downstream_install", "tests/downstream/run-downstream.sh",
                  "/^## Use an installed copy/", "every sh block of the section, as written"),
    ("README.md", 'cmake -S tests/downstream -B build-downstream -DCMAKE_PREFIX_PATH="$PREFIX"'):
        elsewhere("downstream_install", "tests/downstream/run-downstream.sh",
                  "/^## Use an installed copy/", "every sh block of the section, as written"),
    ("README.md", "grcc -o grc-out examples/rx_ramp_check.grc"):
        elsewhere("downstream_install", "tests/downstream/run-downstream.sh",
                  "/^## Use an installed copy/", "every sh block of the section, as written"),
    ("README.md", "dpkg-buildpackage -b -us -uc"):
        elsewhere("debian_package", "tests/debian/run-debian-package.sh",
                  'sh_blocks "$SRC/README.md" "Debian packages"',
                  "dpkg-buildpackage always; `sudo apt install` only with "
                  "GR_RDMA_TEST_APT_INSTALL=1 (it changes the machine)"),
    ("README.md", 'build/apps/gr-rdma-rx --args "type=emu,signal=ramp,loss=0.01" '
     '--rate 20e6 --duration 1 --check --json'): here("test_readme_loss"),
    # docs/tutorial.md
    ("docs/tutorial.md", "dpkg-buildpackage -b -us -uc"):
        elsewhere("debian_package", "tests/debian/run-debian-package.sh",
                  'sh_blocks "$SRC/docs/tutorial.md" "1. Install"',
                  "it must equal README's Debian commands; apt install as README's"),
    ("docs/tutorial.md", "gr-rdma-rx --help"): here("test_tutorial_first_run"),
    ("docs/tutorial.md", "grcc -o ~/gr-rdma-tutorial examples/rx_qt_spectrum.grc"):
        here("test_tutorial_spectrum"),
    ("docs/tutorial.md", 'gr-rdma-rx --args "type=emu,signal=tone,freq=250e3,loss=0.001" '
     '--rate 1e6 --duration 2 --sigmf capture --json'): here("test_tutorial_recording"),
    ("docs/tutorial.md", "gr-rdma-doctor"): here("test_tutorial_verbs"),
    ("docs/tutorial.md", "sudo modprobe rdma_rxe"):
        in_guest("test_tutorial_verbs", "its setup (guest-init.sh) runs these commands "
                 "but for sudo and modprobe (insmod there), and gr-rdma-rx's device args "
                 "with rx_stream (rxe_rx_test: the guest has no Python)"),
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
        elsewhere("qa_find_probe", "python/rdma/qa_find_probe.py", "NOT_OWNER",
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
    # docs/recording.md
    ("docs/recording.md", 'gr-rdma-rx --args "type=emu,signal=ramp,loss=0.01" --rate 1e6 '
     '--duration 2 --sigmf capture --json > report.json'): here("test_recording_md"),
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
    # docs/rxe-guest.md
    ("docs/rxe-guest.md", "cmake --build build -j2                    "
     "# the guest uses the built binaries as they are"): here("test_rxe_guest_md"),
    ("docs/rxe-guest.md", "tests/rxe-guest/run-rxe-guest.sh --shell --work /tmp/rxe-shell \\"):
        not_run("an interactive shell in the guest (Ctrl-A X to leave); the guest it "
                "boots is rxe_guest's, which CI runs"),
    # docs/server.md
    ("docs/server.md", "sudo cp /usr/share/gr-rdma/rx-example.conf /etc/gr-rdma/rx-emu.conf"):
        elsewhere("debian_package", "tests/debian/run-debian-package.sh",
                  'sh_blocks "$SRC/docs/server.md" "Run it"',
                  "only with GR_RDMA_TEST_APT_INSTALL=1 and where systemd runs (CI's "
                  "containers have no systemd): systemctl needs both"),
    # docs/verbs.md
    ("docs/verbs.md", 'gr-rdma-rx --args "type=remote,addr=192.0.2.2,nic=verbs,'
     'nic_addr=192.0.2.1" --rate 1e6'):
        in_guest("test_tutorial_verbs", "these device args with rx_stream (rxe_rx_test: "
                 "the guest has no Python, so no gr-rdma-rx)"),
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
}


def guest_script(name):
    page, first, substitutions, before, after = GUEST_SCRIPTS[name]
    (block,) = [b for b in shell_blocks() if (b.page, first_command(b)) == (page, first)]
    text = commands(block)
    for placeholder, value, _ in substitutions:
        text = re.sub(r"\b%s\b" % re.escape(placeholder), value, text)
    return ("#!/bin/sh\n# %s:%d (%s), as written but for %s.\n# Written by "
            "python/rdma/qa_doc_commands.py --guest-script %s: do not edit.\nset -ex\n"
            % (page, block.line, block.heading,
               ", ".join("%s = %s (%s)" % s for s in substitutions), name) +
            "\n".join(before) + "\n# the page's commands\n" + text +
            "# the check, and back as it was\n" + "\n".join(after) + "\n")


def commands(block):
    """The block as a script: a transcript's command lines only, without the prompt."""
    if block.language == "" or block.language == "console":
        return "\n".join(line[2:] for line in block.lines if line.startswith("$ ")) + "\n"
    return "\n".join(block.lines) + "\n"


def new_net_namespace():
    """The command prefix that runs a command in a new network namespace of its own."""
    for prefix in (["unshare", "--net"], ["unshare", "--user", "--map-root-user", "--net"]):
        if subprocess.run(prefix + ["true"], capture_output=True).returncode == 0:
            return prefix
    return None


# Shell functions for the setups of find-probe.md's commands, in a network namespace.
NAMESPACE_TOOLS = r"""
ip link set lo up
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
# wait_for ADDR: until a device answers there
wait_for() {
    for _ in $(seq 100); do
        gr-rdma-find --addr "$1" --wait 0.1 >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "no device answers at $1" >&2
    return 1
}
# device IF ADDR/LEN COMMAND...: another host, in a namespace of its own, joined to this
# one by a veth pair (IF here), with the address ADDR; COMMAND runs there, in the
# background.
device() {
    local here=$1 addr=$2 pid
    shift 2
    unshare --net sleep 600 &
    pid=$!
    for _ in $(seq 50); do
        [ "$(readlink /proc/$pid/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
        sleep 0.1
    done
    ip link add "$here" type veth peer name "$here-d"
    ip link set "$here-d" netns "$pid"
    ip link set "$here" up
    nsenter -t "$pid" -n ip link set lo up
    nsenter -t "$pid" -n ip addr add "$addr" dev "$here-d"
    nsenter -t "$pid" -n ip link set "$here-d" up
    nsenter -t "$pid" -n "$@" >>daemons.log 2>&1 &
}
"""


class qa_doc_commands(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.blocks = shell_blocks()

    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="qa_doc_commands-"))
        # A checkout: the source tree's entries, build/ the build tree under test.
        for entry in SOURCE.iterdir():
            if entry.name not in ("build", ".git"):
                (self.dir / entry.name).symlink_to(entry)
        (self.dir / "build").symlink_to(BUILD)
        self.env = dict(os.environ)
        self.env["PATH"] = "%s:%s" % (BUILD / "apps", os.environ.get("PATH", ""))
        self.env["HOME"] = str(self.dir)
        # The rdma GRC blocks, as an installed copy has them.
        self.env["GRC_BLOCKS_PATH"] = str(SOURCE / "grc")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def mine(self, method):
        """The blocks COVERAGE gives to this test method, in page order."""
        found = [b for b in self.blocks
                 if getattr(COVERAGE.get((b.page, first_command(b))), "method", None) == method]
        self.assertTrue(found, "COVERAGE gives %s no block" % method)
        return found

    def run_shell(self, script, timeout=TIME_LIMIT_S, prefix=()):
        return subprocess.run([*prefix, "bash", "-e", "-o", "pipefail", "-c", script],
                              cwd=self.dir, env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def assert_ran(self, proc, block, status=0):
        self.assertEqual(proc.returncode, status,
                         "%s:%d exited %d:\n%s\n%s" % (block.page, block.line,
                                                       proc.returncode, proc.stdout,
                                                       proc.stderr))

    def shown_after(self, block):
        """The lines of the unmarked block that follows a block: what it prints."""
        page = list(blocks_of_page(SOURCE / block.page))
        i = [b.line for b in page].index(block.line)
        self.assertLess(i + 1, len(page), "no output shown after %s:%d" % (block.page, block.line))
        self.assertEqual(page[i + 1].language, "")
        return [line for line in page[i + 1].lines if line.strip()]

    def report_of(self, proc):
        return json.loads(proc.stdout.strip().splitlines()[-1])

    # The inventory ----------------------------------------------------------------------

    def test_every_shell_block_is_run(self):
        self.assertGreaterEqual(len(self.blocks), 20, "found too few shell blocks")
        lines, missing, seen = [], [], set()
        for b in self.blocks:
            key = (b.page, first_command(b))
            seen.add(key)
            runner = COVERAGE.get(key)
            where = "%s:%d (%s)" % (b.page, b.line, b.heading)
            if runner is None:
                missing.append("%s: %s" % (where, key[1]))
                continue
            lines.append("%-44s %s\n    %s" % (where, key[1][:70], runner.describe()))
            if isinstance(runner, (here, in_guest)):
                self.assertTrue(hasattr(self, runner.method),
                                "%s: no test method %s" % (where, runner.method))
            elif isinstance(runner, elsewhere):
                script = SOURCE / runner.script
                self.assertTrue(script.is_file(), "%s: %s is missing" % (where, script))
                self.assertIn(runner.marker, script.read_text(encoding="utf-8"),
                              "%s: %s no longer finds this block by %r"
                              % (where, runner.script, runner.marker))
        stale = sorted(set(COVERAGE) - seen)
        print("\nShell blocks of README.md and docs/*.md, and who runs them:\n" +
              "\n".join(lines))
        not_run_count = sum(isinstance(COVERAGE[k], not_run) for k in seen if k in COVERAGE)
        print("\n%d blocks, %d not run (reasons above)" % (len(lines), not_run_count))
        self.assertEqual(missing, [], "shell blocks that no test runs (add them to "
                         "COVERAGE in %s, with a test or a reason)" % __file__)
        self.assertEqual(stale, [], "COVERAGE names blocks that no page has")

    def test_the_parser_finds_every_kind_of_block(self):
        # The inventory must not pass by missing a block: each kind is recognised.
        text = ("# A\n```sh\nls\n```\n## B\n```console\n$ pwd\n/\n```\n"
                "```\n$ id -u\n0\n```\n```\nnot a command\n```\n```python\nx = 1\n```\n")
        page = SOURCE / "docs" / ".qa_doc_commands_probe.md"
        try:
            page.write_text(text, encoding="utf-8")
            found = [(b.heading, b.language, first_command(b))
                     for b in blocks_of_page(page) if is_shell(b)]
        finally:
            page.unlink()
        self.assertEqual(found, [("A", "sh", "ls"), ("B", "console", "pwd"),
                                 ("B", "", "id -u")])

    # README.md ---------------------------------------------------------------------------

    def test_readme_quick_start(self):
        run, full = self.mine("test_readme_quick_start")
        # The first: CI has run .ci/build (SUBSTITUTIONS); the rest as written.
        self.assertTrue(commands(run).startswith(".ci/build && "))
        proc = self.run_shell(substitute(commands(run)))
        self.assert_ran(proc, run)
        # What the README promises: exit 0 (above) when every sample is accounted for;
        # on a busy machine some may be lost to overruns, and reported.
        report = self.report_of(proc)
        self.assertTrue(report["identity_holds"], report)
        self.assertGreater(report["samples_delivered"], 0, report)
        # The second is CI itself: .ci/run runs it as written, in a clean clone.
        ci = (SOURCE / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        self.assertIn(commands(full).strip(), ci)

    def test_readme_install(self):
        (block,) = self.mine("test_readme_install")
        # .ci/build: CI has run it (SUBSTITUTIONS); the install as written, into the
        # scratch directory's $HOME.
        self.assertTrue(commands(block).startswith(".ci/build\n"))
        self.assertIn(".ci/build", (SOURCE / ".ci" / "run").read_text(encoding="utf-8"))
        proc = self.run_shell(substitute(commands(block)))
        self.assert_ran(proc, block)
        prefix = self.dir / "opt" / "gr-rdma"
        self.assertTrue((prefix / "bin" / "gr-rdma-rx").is_file(), proc.stdout)
        self.assertTrue(list(prefix.glob("lib/python3*/dist-packages/gnuradio/rdma/__init__.py")))
        self.assertTrue((prefix / "share/gnuradio/grc/blocks/rdma_rx_source.block.yml").is_file())

    def test_readme_loss(self):
        (block,) = self.mine("test_readme_loss")
        proc = self.run_shell(commands(block))
        self.assert_ran(proc, block)
        report = self.report_of(proc)
        self.assertGreater(report["samples_lost"], 0, report)
        self.assertTrue(report["identity_holds"], report)

    # docs/tutorial.md -------------------------------------------------------------------

    def test_tutorial_first_run(self):
        (block,) = self.mine("test_tutorial_first_run")
        proc = self.run_shell(commands(block))
        self.assert_ran(proc, block)
        # What the page says to look for in the report: each line, as shown.
        shown = self.shown_after(block)
        self.assertGreaterEqual(len(shown), 3)
        for line in shown:
            self.assertIn(line.strip().rstrip(","), proc.stdout)

    def test_tutorial_spectrum(self):
        (block,) = self.mine("test_tutorial_spectrum")
        script = commands(block).strip().splitlines()
        # All but the last command end by themselves; the last is the QT GUI receiver,
        # which runs until its window is closed: on Qt's offscreen platform it must
        # still run after UNTIL_STOPPED_S, then end cleanly on SIGTERM.
        proc = self.run_shell("\n".join(script[:-1]))
        self.assert_ran(proc, block)
        env = dict(self.env, QT_QPA_PLATFORM="offscreen")
        gui = subprocess.Popen(["bash", "-e", "-c", script[-1]], cwd=self.dir, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
        UNTIL_STOPPED_S = 8
        try:
            time.sleep(UNTIL_STOPPED_S)
            self.assertIsNone(gui.poll(), "the GUI ended by itself:\n" +
                              (gui.stdout.read() if gui.poll() is not None else ""))
        finally:
            os.killpg(gui.pid, signal.SIGTERM)
            out, _ = gui.communicate(timeout=30)
        self.assertNotIn("Traceback", out)

    def test_tutorial_recording(self):
        (block,) = self.mine("test_tutorial_recording")
        proc = self.run_shell(commands(block))
        self.assert_ran(proc, block)
        self.assertIn("capture: valid", proc.stdout)
        report = json.loads(re.search(r"^\{.*\}$", proc.stdout, re.M | re.S).group(0))
        annotated = int(re.search(r"^(\d+) gaps annotated$", proc.stdout, re.M).group(1))
        # One annotation per gap: some messages were lost, each is annotated.
        self.assertGreater(report["samples_lost"], 0, report)
        self.assertGreater(annotated, 0)
        self.assertTrue(report["identity_holds"], report)

    def test_tutorial_verbs(self):
        """nic=verbs needs an RDMA device, which the build machines' kernels lack.

        gr-rdma-doctor runs here (ready or not, it must say which); the commands that
        set up rxe are the rxe guest's own setup (tests/rxe-guest/guest-init.sh, which
        rxe_guest runs), checked line by line against it; and gr-rdma-rx with
        nic=verbs is run in the guest as rx_stream with the same device args
        (rxe_rx_test: the guest has no Python, so no gr-rdma-rx)."""
        doctor, setup, verbs_md = self.mine("test_tutorial_verbs")
        proc = self.run_shell(commands(doctor).strip() + " || test $? -eq 1")
        self.assert_ran(proc, doctor)
        self.assertRegex(proc.stdout, r"Result: (READY|NOT READY)")
        init = (SOURCE / "tests/rxe-guest/guest-init.sh").read_text(encoding="utf-8")
        init = init.replace("$IP ", "ip ").replace("$RDMA ", "rdma ")
        rx_test = (SOURCE / "tests/rxe-guest/rxe_rx_test.cc").read_text(encoding="utf-8")
        guest_check = (SOURCE / "tests/rxe-guest/guest_check.h").read_text(encoding="utf-8")
        # The tutorial's commands, with what the guest does instead where it differs.
        in_guest = {
            # no modprobe in the guest: its init loads rdma_rxe with insmod
            "sudo modprobe rdma_rxe": 'insmod "$CONF/modules.d/$m.ko"',
            # the SDR's side: pinned to a CPU, and a deeper FIFO for TCG's stalls
            "sudo ip netns exec dev gr-rdma-emu --wire raw --control 192.0.2.2:50100 "
            "--link 192.0.2.2 &":
                'ip netns exec dev taskset 1 "$emulator" --wire raw --control '
                '192.0.2.2:50100 \\\n    --link 192.0.2.2',
        }
        rx_lines = []
        for line in commands(setup).splitlines():
            line = line.split("  #")[0].strip()
            if not line:
                continue
            if line.startswith("gr-rdma-rx "):
                rx_lines.append(line)
                continue
            if line == "gr-rdma-doctor":
                self.assertIn("gr_rdma_doctor", (SOURCE / "tests/rxe-guest/CMakeLists.txt")
                              .read_text(encoding="utf-8"))
                continue
            expected = in_guest.get(line, re.sub(r"^sudo ", "", line))
            self.assertIn(expected, init, "%s:%d: %r is not what the rxe guest runs"
                          % (setup.page, setup.line, line))
        rx_lines += [line for line in commands(verbs_md).splitlines() if line.strip()]
        for line in rx_lines:
            args = re.search(r'--args "([^"]*)"', line).group(1)
            self.assertEqual(args, "type=remote,addr=192.0.2.2,nic=verbs,nic_addr=192.0.2.1",
                             "the device args rxe_rx_test uses")
        self.assertIn('"type=remote,addr=") + rxe_guest::device_ip', rx_test)
        self.assertIn('",nic=verbs,nic_addr=" + rxe_guest::host_ip', rx_test)
        self.assertRegex(guest_check, r'device_ip = "192\.0\.2\.2"')
        self.assertRegex(guest_check, r'host_ip = "192\.0\.2\.1"')

    def test_guest_scripts(self):
        # The guest runs the scripts of the build tree under test: they must be what
        # the pages say now, and in the guest's test list.
        tests_list = (BUILD / "tests/rxe-guest/guest-tests.list").read_text(encoding="utf-8")
        for name in GUEST_SCRIPTS:
            built = BUILD / "tests/rxe-guest/doc" / (name + ".sh")
            self.assertTrue(os.access(built, os.X_OK), "%s is not built" % built)
            self.assertEqual(built.read_text(encoding="utf-8"), guest_script(name))
            self.assertRegex(tests_list, r"(?m)^doc_%s \d+ %s$" % (name, re.escape(str(built))))
        self.assertTrue(self.mine("test_guest_scripts"))

    # docs/doctor.md ---------------------------------------------------------------------

    def test_doctor_md(self):
        (block,) = self.mine("test_doctor_md")
        # Ready (0) or not (1): the host decides; each says which.
        for line in commands(block).strip().splitlines():
            proc = self.run_shell(line)
            self.assertIn(proc.returncode, (0, 1), "%s:\n%s" % (line, proc.stderr))
            if "--json" in line:
                report = json.loads(proc.stdout)
                self.assertEqual(report["exit_status"], proc.returncode)
            else:
                self.assertRegex(proc.stdout, r"Result: (READY|NOT READY)")

    # docs/find-probe.md -----------------------------------------------------------------

    def in_namespace(self, setup, script, timeout=120):
        """Run setup then script in a network namespace of their own (no port or
        interface of this machine is touched)."""
        prefix = new_net_namespace()
        self.assertIsNotNone(prefix, "cannot create a network namespace (unshare --net, "
                             "or unprivileged: unshare --user --map-root-user --net)")
        wrapped = NAMESPACE_TOOLS + setup + "\n" + script

        return self.run_shell(wrapped, timeout=timeout, prefix=prefix)

    def test_find_probe_md_commands(self):
        commands_block, daemon = self.mine("test_find_probe_md_commands")
        # The page's network: this host on eth1 (10.0.0.1/24); the device 10.0.0.2 on
        # eth1's subnet, a daemon started as the page starts one to be found by
        # broadcast; the device 10.0.0.3, reached through eth2; and a daemon on this
        # host (127.0.0.1:50100, gr-rdma-emu's default). Each command must find its
        # device and exit 0.
        setup = ("gr-rdma-emu >>daemons.log 2>&1 &\n"
                 "device eth1 10.0.0.2/24 %s\n"
                 "ip addr add 10.0.0.1/24 brd + dev eth1\n"
                 "device eth2 10.0.0.3/24 gr-rdma-emu --control 10.0.0.3:50100 "
                 "--link 10.0.0.3 --serial 0x3\n"
                 "ip route add 10.0.0.3/32 dev eth2 src 10.0.0.1\n"
                 "wait_for 127.0.0.1\nwait_for 10.0.0.2\nwait_for 10.0.0.3\n"
                 % commands(daemon).strip())
        proc = self.in_namespace(setup, commands(commands_block))
        self.assert_ran(proc, commands_block)
        # find: one device, two, the broadcast's; probe: text, then JSON.
        finds = re.findall(r"(?m)^    addr: (.*)$", proc.stdout)
        self.assertEqual(finds, ["127.0.0.1:50100", "10.0.0.2:50100", "10.0.0.3:50100",
                                 "10.0.0.2:50100"], proc.stdout)
        self.assertIn("gr-rdma emulator at 10.0.0.2:50100\n", proc.stdout)
        probe = json.loads(proc.stdout.strip().splitlines()[-1])
        self.assertEqual(probe["addr"], "10.0.0.2:50100")

    def test_find_probe_md_transcripts(self):
        find, broadcast, probe = self.mine("test_find_probe_md_transcripts")
        # The daemons the page says each transcript was taken with.
        setups = [
            (find, ("gr-rdma-emu --serial 0xA11CE --streams 2 >>daemons.log 2>&1 &\n"
                   "gr-rdma-emu --control 127.0.0.1:50200 --serial 0xB0B >>daemons.log 2>&1 &\n"
                   "wait_for 127.0.0.1\nwait_for 127.0.0.1:50200\n")),
            # Two namespaces joined by a veth pair: the daemon in one, find in the other.
            (broadcast, ("device h4d-vb 198.51.100.1/24 gr-rdma-emu --control 0.0.0.0:50100 "
                         "--link 198.51.100.1 --serial 0xfeed\n"
                         "ip addr add 198.51.100.2/24 brd + dev h4d-vb\n"
                         "wait_for 198.51.100.1\n")),
            (probe, ("gr-rdma-emu --control 127.0.0.1:50200 --serial 0xB0B >>daemons.log 2>&1 &\n"
                     "wait_for 127.0.0.1:50200\n")),
        ]
        for block, setup in setups:
            with self.subTest(block="%s:%d" % (block.page, block.line)):
                proc = self.in_namespace(setup, commands(block))
                shown = [line for line in block.lines if not line.startswith("$ ")]
                got = (proc.stdout + proc.stderr).splitlines()
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                if block is probe:
                    # Times, ports and the clock offset differ from run to run: the same
                    # lines with the same labels, in the same order, and the same values
                    # but for those.
                    self.assertEqual([line.split(":")[0] for line in got],
                                     [line.split(":")[0] for line in shown], proc.stdout)
                    for g, s in zip(got, shown):
                        if not re.search(r"time|offset|port", s):
                            self.assertEqual(g, s)
                else:
                    self.assertEqual(got, shown)

    # docs/recording.md, docs/rx-server.md ----------------------------------------------

    def test_recording_md(self):
        capture, rotation = self.mine("test_recording_md")
        proc = self.run_shell(commands(capture))
        self.assert_ran(proc, capture)
        self.assertIn("capture: valid", proc.stdout)
        proc = self.run_shell(commands(rotation))
        self.assert_ran(proc, rotation)
        self.assertTrue((self.dir / "rec-0002.sigmf-meta").exists())

    def test_rx_server_md(self):
        (block,) = self.mine("test_rx_server_md")
        proc = self.run_shell(commands(block))
        self.assert_ran(proc, block)
        kinds = [json.loads(line)["kind"] for line in proc.stdout.splitlines()]
        self.assertEqual(kinds[-1], "report")
        self.assertIn("status", kinds)

    # docs/ring-memory.md, docs/rxe-guest.md --------------------------------------------

    def test_ring_memory_md(self):
        (block,) = self.mine("test_ring_memory_md")
        proc = self.run_shell(commands(block))
        self.assert_ran(proc, block)
        self.assertIn("100% tests passed", proc.stdout)

    def test_rxe_guest_md(self):
        (block,) = self.mine("test_rxe_guest_md")
        build, guest = [line for line in commands(block).splitlines() if line.strip()]
        # The build as written (up to date: nothing to do); the guest is ctest's
        # rxe_guest itself, which CI runs: the command must select exactly that test.
        proc = self.run_shell(build)
        self.assert_ran(proc, block)
        select = guest.split("#")[0].replace(" -V", " -N")
        proc = self.run_shell(select)
        self.assert_ran(proc, block)
        self.assertRegex(proc.stdout, r"Test +#\d+: rxe_guest\n")
        self.assertIn("Total Tests: 1", proc.stdout)


if __name__ == '__main__':
    import sys
    if len(sys.argv) == 4 and sys.argv[1] == "--guest-script":
        out = pathlib.Path(sys.argv[3])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(guest_script(sys.argv[2]), encoding="utf-8")
        out.chmod(0o755)
        sys.exit(0)
    gr_unittest.run(qa_doc_commands)
