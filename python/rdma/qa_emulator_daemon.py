#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The emulator as a daemon (gr-rdma-emu): a host reaches it with type=remote."""

import os
import re
import signal
import subprocess

from gnuradio import gr, gr_unittest
from gnuradio import rdma

EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")


class qa_emulator_daemon(gr_unittest.TestCase):

    def setUp(self):
        self.daemon = subprocess.Popen(
            # Its FIFO is a second, so that a busy machine makes it late, not lossy;
            # the stream's ring (latency=2.1) holds the whole run. Port 0: it binds a
            # free one and names it (one found free here could be taken meanwhile).
            [EMU, "--control", "127.0.0.1:0", "--link", "127.0.0.1", "--fifo-ms", "1000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # It announces itself once its AXIoE server listens.
        self.banner = self.daemon.stdout.readline()
        found = re.search(r"AXIoE on 127\.0\.0\.1:(\d+),", self.banner)
        self.port = int(found.group(1)) if found else 0

    def tearDown(self):
        if self.daemon.poll() is None:
            self.daemon.kill()
        self.daemon.wait()

    def test_remote_ramp_bit_exact_and_clean_shutdown(self):
        self.assertNotEqual(self.port, 0, self.banner)  # the port it bound, named
        tb = gr.top_block()
        args = "type=remote,addr=127.0.0.1:%d,signal=ramp,latency=2.1" % self.port
        src = rdma.rx_source(args, "fc32", 10e6, int(5e6))
        check = rdma.ramp_check("fc32", src.ring_base(), 2 * src.ring_bytes())
        tb.connect(src, check)
        tb.run()
        self.assertEqual(check.items_checked(), int(5e6))
        self.assertEqual(check.mismatches(), 0)
        self.assertEqual(check.out_of_range_calls(), 0)
        self.assertEqual(src.read_counters()["device.samples_emitted"], int(5e6))
        self.daemon.send_signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(timeout=10), 0)

    def test_listens_on_loopback_by_default(self):
        # Whoever reaches the control port can claim and stop streams: without
        # --control the daemon serves this host only (docs/security.md).
        daemon = subprocess.Popen([EMU, "--link", "127.0.0.1"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        banner = daemon.stdout.readline()
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
        _, errors = daemon.communicate(timeout=10)
        if "Address already in use" in errors:
            self.skipTest("port 50100 is taken on this host")
        self.assertIn("AXIoE on 127.0.0.1:50100,", banner)

    def test_pacing_by_the_consumer_is_refused_naming_the_fix(self):
        # emu_pace=consumer is a test mode of an emulator in this process: a daemon,
        # as any device of its own, keeps its own time (docs/device-args.md).
        args = "type=remote,addr=127.0.0.1:%d,latency=2.1,emu_pace=consumer" % self.port
        with self.assertRaisesRegex(ValueError, "test mode.*remove emu_pace="):
            rdma.rx_stream(args, "sc16", 1e6)
        with self.assertRaisesRegex(ValueError, "test mode.*remove emu_pace="):
            rdma.tx_stream(args, "sc16", 1e6)

    def test_unreachable_device_names_the_fix(self):
        self.daemon.kill()
        self.daemon.wait()
        with self.assertRaisesRegex(RuntimeError, "127.0.0.1:%d" % self.port):
            rdma.rx_source("type=remote,addr=127.0.0.1:%d,timeout=0.01,retries=2" % self.port,
                           "fc32", 1e6, 0)


if __name__ == '__main__':
    gr_unittest.run(qa_emulator_daemon)
