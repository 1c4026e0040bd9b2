#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Every shell command of README.md and docs/*.md is run by a test.

qa_doc_blocks.COVERAGE says who runs each shell block of the pages; this test checks
that it names every block (and that the other tests it names still find theirs),
prints the list, and runs here the blocks it gives to this file's methods.
"""

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

from qa_doc_blocks import (COVERAGE, GUEST_RUNNERS, GUEST_SCRIPTS, SOURCE, blocks_of_page,
                           commands,
                           elsewhere, first_command, guest_script, here, in_guest,
                           is_shell, not_run, shell_blocks, substitute, where_possible)

APP = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")
# The build tree under test: the one whose gr-rdma-rx ctest names (build/apps/gr-rdma-rx).
BUILD = pathlib.Path(APP).resolve().parents[1] if os.path.isabs(APP) else SOURCE / "build"
TIME_LIMIT_S = 300


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
            elif isinstance(runner, (elsewhere, where_possible)):
                script = SOURCE / runner.script
                self.assertTrue(script.is_file(), "%s: %s is missing" % (where, script))
                self.assertIn(runner.marker, script.read_text(encoding="utf-8"),
                              "%s: %s no longer finds this block by %r"
                              % (where, runner.script, runner.marker))
        stale = sorted(set(COVERAGE) - seen)
        print("\nShell blocks of README.md and docs/*.md, and who runs them:\n" +
              "\n".join(lines))
        not_run_count = sum(isinstance(COVERAGE[k], (not_run, where_possible))
                            for k in seen if k in COVERAGE)
        print("\n%d blocks, %d not run (reasons above)" % (len(lines), not_run_count))
        self.assertEqual(missing, [], "shell blocks that no test runs (add them to "
                         "COVERAGE in qa_doc_blocks.py, with a test or a reason)")
        self.assertEqual(stale, [], "COVERAGE names blocks that no page has")

    def test_the_parser_finds_every_kind_of_block(self):
        # The inventory must not pass by missing a block: each kind is recognised.
        text = ("# A\n```sh\nls\n```\n## B\n```console\n$ pwd\n/\n```\n"
                "```\n$ id -u\n0\n```\n```\nnot a command\n```\n```python\nx = 1\n```\n")
        page = self.dir / "probe.md"
        page.write_text(text, encoding="utf-8")
        found = [(b.heading, b.language, first_command(b))
                 for b in blocks_of_page(page) if is_shell(b)]
        self.assertEqual(found, [("A", "sh", "ls"), ("B", "console", "pwd"),
                                 ("B", "", "id -u")])

    # README.md ---------------------------------------------------------------------------

    def test_readme_quick_start(self):
        (run,) = self.mine("test_readme_quick_start")
        # CI has run .ci/build (SUBSTITUTIONS); the rest as written.
        self.assertTrue(commands(run).startswith(".ci/build && "))
        proc = self.run_shell(substitute(commands(run)))
        self.assert_ran(proc, run)
        # What the README promises: exit 0 (above) when every sample is accounted for;
        # on a busy machine some may be lost to overruns, and reported.
        report = self.report_of(proc)
        self.assertTrue(report["identity_holds"], report)
        self.assertGreater(report["samples_delivered"], 0, report)

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

        gr-rdma-doctor runs here (ready or not, it must say which). The tutorial's
        soft-RoCE block runs as written in the rxe guest (test_guest_scripts);
        verbs.md's gr-rdma-rx line runs until stopped, so its device args are checked
        against the tutorial's, which the guest runs, and rxe_rx_test's."""
        doctor, verbs_md = self.mine("test_tutorial_verbs")
        proc = self.run_shell(commands(doctor).strip() + " || test $? -eq 1")
        self.assert_ran(proc, doctor)
        self.assertRegex(proc.stdout, r"Result: (READY|NOT READY)")
        tutorial = guest_script("tutorial_verbs")
        rx_test = (SOURCE / "tests/rxe-guest/rxe_rx_test.cc").read_text(encoding="utf-8")
        guest_check = (SOURCE / "tests/rxe-guest/guest_check.h").read_text(encoding="utf-8")
        for line in commands(verbs_md).splitlines():
            if not line.strip():
                continue
            args = re.search(r'--args "([^"]*)"', line).group(1)
            self.assertIn('gr-rdma-rx --args "%s"' % args, tutorial)
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
            runner = GUEST_RUNNERS.get(name)
            command = (runner + " " if runner else "") + str(built)
            self.assertRegex(tests_list, r"(?m)^doc_%s \d+ %s$" % (name, re.escape(command)))
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
        capture, tuned, rotation = self.mine("test_recording_md")
        proc = self.run_shell(commands(capture))
        self.assert_ran(proc, capture)
        self.assertIn("capture: valid", proc.stdout)
        proc = self.run_shell(commands(tuned))
        self.assert_ran(proc, tuned)
        report = json.loads((self.dir / "tuned.json").read_text())
        meta = json.loads((self.dir / "tuned.sigmf-meta").read_text())
        self.assertEqual(report["center_freq"], 100.1e6)
        self.assertEqual([c["core:frequency"] for c in meta["captures"]], [100.1e6])
        proc = self.run_shell(commands(rotation))
        self.assert_ran(proc, rotation)
        self.assertTrue((self.dir / "rec-0002.sigmf-meta").exists())

    def test_rx_server_md(self):
        status, converted = self.mine("test_rx_server_md")
        proc = self.run_shell(commands(status))
        self.assert_ran(proc, status)
        kinds = [json.loads(line)["kind"] for line in proc.stdout.splitlines()]
        self.assertEqual(kinds[-1], "report")
        self.assertIn("status", kinds)
        # The wire format differs from the flowgraph's: converted, every sample counted.
        proc = self.run_shell(commands(converted))
        self.assert_ran(proc, converted)
        report = json.loads(proc.stdout)
        self.assertEqual((report["otw_format"], report["format"]), ("sc16", "fc32"))
        self.assertEqual(report["samples_delivered"], 1000000)
        self.assertTrue(report["identity_holds"])

    # docs/links.md ------------------------------------------------------------------

    def test_links_md_shares(self):
        # Two hosts, each its share of one stream, and the combined identity: the
        # block's last command prints what the page shows after it.
        block, = self.mine("test_links_md_shares")
        proc = self.run_shell(commands(block))
        self.assert_ran(proc, block)
        self.assertEqual([line for line in proc.stdout.splitlines() if line.strip()],
                         self.shown_after(block))
        for h in (0, 1):
            report = json.loads((self.dir / ("share%d.json" % h)).read_text())
            self.assertEqual(report["share"], h)
            self.assertEqual(report["check"]["mismatches"], 0)
            self.assertTrue(report["identity_holds"])

    # docs/tx-server.md -------------------------------------------------------------

    def assert_tx_books(self, report, played=True):
        self.assertTrue(report["identity_holds"], report)
        self.assertEqual(report["device_check"]["mismatches"], 0)
        self.assertEqual(report["device_check"]["samples_checked"], report["played_intact"])
        if played:
            self.assertGreater(report["played_intact"], 0)

    def test_tx_server_md(self):
        ramp, interrupted, recording, throttled = self.mine("test_tx_server_md")
        proc = self.run_shell(commands(ramp))
        self.assert_ran(proc, ramp)
        report = json.loads(proc.stdout)
        self.assertEqual(report["samples_provided"], 1000000)
        self.assert_tx_books(report)
        # Stopped by SIGINT: the report, exit 0 (timeout --preserve-status passes it on).
        proc = self.run_shell(commands(interrupted))
        self.assert_ran(proc, interrupted)
        report = json.loads(proc.stdout)
        self.assertEqual(report["interrupted"], "SIGINT")
        self.assertTrue(report["continuous"])
        # Some samples played, unless a loaded machine took the 2 s to set up.
        self.assert_tx_books(report, played=False)
        # A recording of the emulator's ramp, transmitted: the device finds it intact.
        proc = self.run_shell(commands(recording))
        self.assert_ran(proc, recording)
        report = json.loads(proc.stdout)
        self.assertEqual(report["samples_provided"], 500000)
        self.assertTrue(report["file"]["ended"])
        self.assert_tx_books(report)
        self.assertEqual(json.loads((self.dir / "rx.json").read_text())["samples_delivered"],
                         500000)
        # The text report of a producer too slow: underflow zeros, and no stale sample.
        proc = self.run_shell(commands(throttled))
        self.assert_ran(proc, throttled)
        fields = dict(line.strip().split(": ", 1) for line in proc.stdout.splitlines()
                      if ": " in line)
        self.assertGreater(int(fields["Underflow zeros"]), 0)
        self.assertEqual(fields["Identity holds"], "yes")
        self.assertEqual(fields["Mismatches"], "0")

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
    gr_unittest.run(qa_doc_commands)
