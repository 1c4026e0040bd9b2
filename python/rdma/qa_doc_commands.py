#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Every command of docs/recording.md and docs/rx-server.md, run as written (gr-rdma-rx
being the build tree's), in a scratch directory: each must succeed."""

import json
import os
import re
import shutil
import subprocess
import tempfile

from gnuradio import gr_unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "docs")
APP = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")


def blocks_of(page, language):
    with open(os.path.join(DOCS, page)) as f:
        text = f.read()
    return re.findall(r"```%s\n(.*?)```" % language, text, re.S)


class qa_doc_commands(gr_unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_doc_commands-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_shell(self, script):
        script = re.sub(r"(^|\s)gr-rdma-rx ", lambda m: m.group(1) + APP + " ", script)
        return subprocess.run(["bash", "-e", "-c", script], cwd=self.dir,
                              capture_output=True, text=True, timeout=120)

    def test_recording_md(self):
        sh = blocks_of("recording.md", "sh")
        self.assertEqual(len(sh), 2)
        proc = self.run_shell(sh[0])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("capture: valid", proc.stdout)
        proc = self.run_shell(sh[1])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "rec-0002.sigmf-meta")))
        py = blocks_of("recording.md", "python")
        self.assertEqual(len(py), 1)
        code = py[0].replace("/tmp/tone", os.path.join(self.dir, "tone"))
        proc = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True,
                              text=True, timeout=120, cwd=self.dir)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.run_shell("/usr/bin/python3 -m gnuradio.rdma.sigmf_check tone")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_rx_server_md(self):
        sh = blocks_of("rx-server.md", "sh")
        self.assertEqual(len(sh), 2)
        proc = self.run_shell(sh[0])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        kinds = [line.split('"kind": "')[1].split('"')[0]
                 for line in proc.stdout.splitlines()]
        self.assertEqual(kinds[-1], "report")
        self.assertIn("status", kinds)
        # The wire format differs from the flowgraph's: converted, every sample counted.
        proc = self.run_shell(sh[1])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = json.loads(proc.stdout)
        self.assertEqual((report["otw_format"], report["format"]), ("sc16", "fc32"))
        self.assertEqual(report["samples_delivered"], 1000000)
        self.assertTrue(report["identity_holds"])


if __name__ == '__main__':
    gr_unittest.run(qa_doc_commands)
