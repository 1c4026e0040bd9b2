#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Queued bursts from Python (docs/radio.md, "Burst queue"): three bursts into regions
of the ring the host chose, at three device times (two timed, one seamless); each is
the emulator's ramp of its own ring item indices and starts with its own rx_time."""

import numpy as np

from gnuradio import gr_unittest
from gnuradio import rdma


def ramp_sc16(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return np.stack([(k & 0xFFFF).astype(np.uint16).view(np.int16),
                     ((k >> 16) & 0xFFFF).astype(np.uint16).view(np.int16)], axis=1)


class qa_rx_stream_bursts(gr_unittest.TestCase):

    def test_three_bursts_into_chosen_regions(self):
        rate = 1e6
        s = rdma.rx_stream("type=emu,signal=ramp,latency=0.5", "sc16", rate,
                           rdma.rx_stream.queued)
        ring = s.ring_items()
        per_message = s.payload_bytes() // s.item_size()
        n = ring // 4 - per_message // 2
        t_a = s.device_time_now() + 500000000
        bursts = [(s.queue_burst(n, t_a, 0), t_a),
                  (s.queue_burst(n, 0, ring // 2), t_a + n * 1000)]  # seamless
        self.assertEqual([b[0] for b in bursts], [0, ring // 2])
        s.start()
        t_c = t_a + 2 * n * 1000 + 100000000
        c_item = ring + ring // 8  # where A was: only once A is released
        with self.assertRaisesRegex(ValueError, "release %d more items" % n):
            s.queue_burst(n, t_c, c_item)
        with self.assertRaisesRegex(ValueError, "not on a message boundary"):
            s.queue_burst(n, t_c, c_item + 1)
        with self.assertRaisesRegex(ValueError, "before the end of the previous burst"):
            s.queue_burst(n, t_a + 2 * n * 1000 - 1, 3 * ring // 4)

        got, events, mismatches = 0, [], 0
        while got < 3 * n:
            if got >= n and len(bursts) == 2:
                bursts.append((s.queue_burst(n, t_c, c_item), t_c))
            x = s.recv(1 << 16, 1.0)
            self.assertEqual(s.first_item, got)
            k = got
            while k < got + len(x):  # per burst: the ramp of its ring items
                b = k // n
                upto = min(got + len(x), (b + 1) * n)
                first = bursts[b][0] + k % n
                expect = ramp_sc16(first, upto - k)
                mismatches += int(np.count_nonzero(x[k - got:upto - got] != expect))
                k = upto
            got += len(x)
            s.release(len(x))
            events += s.events()
        s.stop()
        events += s.events()
        self.assertEqual(bursts[2][0], c_item)
        counts = s.counts()
        self.assertEqual(counts["lost"], 0, str(counts))  # else the zeros mismatch
        self.assertEqual(mismatches, 0)
        marks = [e for e in events if e["type"] == "time"]
        self.assertEqual([e["item"] for e in marks], [0, n, 2 * n])
        self.assertEqual([e["time_ns"] for e in marks], [b[1] for b in bursts])
        self.assertEqual(counts["delivered"], 3 * n)
        self.assertEqual(counts["lost"], 0)
        self.assertEqual(s.read_counters()["device.samples_emitted"], 3 * n)

    def test_rx_source_refuses_queued_bursts(self):
        with self.assertRaisesRegex(ValueError, "rx_stream"):
            rdma.rx_source("type=emu", "sc16", 1e6, rdma.rx_stream.queued)


if __name__ == '__main__':
    gr_unittest.run(qa_rx_stream_bursts)
