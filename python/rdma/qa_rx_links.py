#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""A stream over two links in a flowgraph (docs/links.md, "Failover"): what rx_source
says on async_msgs when one of them loses everything, and what a SigMF recording
keeps of it. The failover itself is tested in C++ (qa_rx_stream_failover)."""

import json
import os
import shutil
import tempfile

import pmt

from gnuradio import blocks, gr, gr_unittest
from gnuradio import rdma

RATE = 4e6
ITEMS = 2000 * 1024  # 0.5 s
ARGS = ("type=emu,signal=ramp,hugepages=off,links=2,weights=1:1,mtu=4096,payload=4096,"
        "emu_link_loss=1@0.2")  # link 1 loses everything: the host must find it


def reports(debug):
    out = []
    for i in range(debug.num_messages()):
        msg = debug.get_message(i)
        out.append(pmt.to_python(pmt.cdr(msg)))
    return out


class qa_rx_links(gr_unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_rx_links")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_silent_link_is_reported_and_recorded(self):
        base = os.path.join(self.dir, "two_links")
        tb = gr.top_block()
        src = rdma.rx_source(ARGS, "sc16", RATE, ITEMS)
        rec = rdma.sigmf_sink(base, "sc16", RATE, hw="test")
        debug = blocks.message_debug()
        tb.connect(src, rec)
        tb.msg_connect((src, "async_msgs"), (rec, "events"))
        tb.msg_connect((src, "async_msgs"), (debug, "store"))
        tb.run()
        counters = src.read_counters()
        got = reports(debug)

        down = [r for r in got if r["type"] == "link" and r["cause"] == "link_down"]
        self.assertEqual(len(down), 1, got)
        self.assertEqual(down[0]["link"], 1)
        self.assertEqual(down[0]["by"], "host")
        self.assertEqual(down[0]["epoch"], 1)
        schedule = [r for r in got if r["type"] == "link" and r["cause"] == "schedule"]
        self.assertEqual([s["epoch"] for s in schedule], [1])
        self.assertEqual(schedule[0]["weights"], [1, 0, 0, 0, 0, 0, 0, 0])
        self.assertEqual(schedule[0]["first_sample"], down[0]["first_sample"])
        # Every gap names link 1, and they add up to what the host counted for it.
        gaps = [r for r in got if r["type"] == "gap"]
        self.assertTrue(gaps)
        for g in gaps:
            self.assertEqual(g["links"], [1], g)
            self.assertLess(g["first_sample"], down[0]["first_sample"])
        self.assertEqual(sum(g["count"] for g in gaps), counters["host.link1.lost_samples"])
        self.assertEqual(counters["host.link0.lost_samples"], 0)
        self.assertEqual(counters["host.link1.declared_down"], 1)
        self.assertEqual(counters["device.samples_emitted"],
                         counters["host.delivered"] + counters["host.lost"])

        with open(base + ".sigmf-meta") as f:
            meta = json.load(f)
        annotated = [a for a in meta["annotations"] if a["rdma:type"] == "gap"]
        self.assertEqual(len(annotated), len(gaps))
        for a in annotated:
            self.assertEqual(a["rdma:links"], [1])

    def test_one_link_reports_carry_no_links(self):
        tb = gr.top_block()
        src = rdma.rx_source("type=emu,signal=ramp,hugepages=off,drop=5", "sc16", RATE,
                             100 * 1024)
        debug = blocks.message_debug()
        tb.connect(src, blocks.null_sink(4))
        tb.msg_connect((src, "async_msgs"), (debug, "store"))
        tb.run()
        gaps = [r for r in reports(debug) if r["type"] == "gap"]
        self.assertTrue(gaps)
        for g in gaps:
            self.assertNotIn("links", g)


if __name__ == "__main__":
    gr_unittest.run(qa_rx_links)
