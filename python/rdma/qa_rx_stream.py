#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""rx_stream from Python without a flowgraph: numpy views of the ring, no copy."""

import time

import numpy as np

from gnuradio import gr_unittest
from gnuradio import rdma


def ramp_sc16(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return np.stack([(k & 0xFFFF).astype(np.uint16).view(np.int16),
                     ((k >> 16) & 0xFFFF).astype(np.uint16).view(np.int16)], axis=1)


def ramp_fc32(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return ((k & 0xFFFFFF).astype(np.float32) + 0j).astype(np.complex64)


class qa_rx_stream(gr_unittest.TestCase):

    def consume(self, fmt, expected):
        n = 3000000
        # numpy checking in Python is slower than a flowgraph: 5 MS/s keeps it ahead on
        # a quiet machine. On a loaded one the device may lap it: then every item that
        # is not the ramp must be one the stream reported (zeros of a gap, or samples
        # overwritten while held), and the books must still balance.
        s = rdma.rx_stream("type=emu,signal=ramp,latency=0.1", fmt, 5e6, n)
        base, span = s.ring_base(), 2 * s.ring_bytes()
        s.start()
        got = 0
        events = []
        wrong = []  # [first, end) of items that were not the ramp
        while not s.end_of_stream:
            x = s.recv(1 << 18, 1.0)
            events += s.events()
            if len(x) == 0:
                continue
            address = x.__array_interface__["data"][0]
            self.assertTrue(base <= address and address + x.nbytes <= base + span,
                            "the view is not inside the ring")
            self.assertFalse(x.flags.writeable)
            self.assertEqual(s.first_item, got)
            want = expected(got + self.skipped(events, got), len(x))
            for e in events:  # a gap's items are zeros, as handed out
                if e["type"] == "gap":
                    lo, hi = max(e["item"], got), min(e["item"] + e["count"], got + len(x))
                    want[lo - got:max(lo, hi) - got] = 0
            bad = np.flatnonzero(x != want)
            if len(bad):  # runs of consecutive wrong items
                cuts = np.flatnonzero(np.diff(bad) != 1)
                starts = np.concatenate(([bad[0]], bad[cuts + 1]))
                ends = np.concatenate((bad[cuts], [bad[-1]])) + 1
                wrong += [(got + int(a), got + int(b)) for a, b in zip(starts, ends)]
            got += len(x)
            s.release(len(x))
        s.stop()
        events += s.events()
        told = [(e["item"], e["item"] + e["count"]) for e in events
                if e["cause"] in ("overwritten", "gap_overwritten")]
        for lo, hi in wrong:
            covered = sum(max(0, min(hi, b) - max(lo, a)) for a, b in told)
            self.assertTrue(covered >= hi - lo,
                            "items %d..%d are not the ramp and were not reported "
                            "(reports: %s; all: %s)" % (lo, hi, told, events))
        self.assertEqual(got + self.skipped(events, got), n)
        c = s.counts()
        self.assertEqual(c["delivered"] + c["lost"], n)

    @staticmethod
    def skipped(events, upto):
        """Device samples skipped before consumer item upto (overruns)."""
        return sum(e["count"] for e in events
                   if e["type"] == "overrun" and e["cause"] == "skipped"
                   and e["item"] <= upto)

    def test_numpy_views_sc16(self):
        self.consume("sc16", ramp_sc16)

    def test_numpy_views_fc32(self):
        self.consume("fc32", ramp_fc32)

    def test_stop_tells_what_the_device_wrote_over_a_held_view(self):
        # The consumer holds a view and never comes back while the device laps the
        # ring: stop() must still tell that those samples were overwritten.
        s = rdma.rx_stream("type=emu,signal=ramp,latency=0.07", "sc16", 5e6, 0)
        s.start()
        x = s.recv(1000, 1.0)
        while len(x) == 0:
            x = s.recv(1000, 1.0)
        first, held = s.first_item, len(x)
        time.sleep(5 * s.ring_items() / 5e6)  # five rings go by
        s.stop()
        told = [e for e in s.events() if e["cause"] == "overwritten"]
        self.assertTrue(any(e["item"] <= first and first + held <= e["item"] + e["count"]
                            for e in told), told)
        c, emitted = s.counts(), s.read_counters()["device.samples_emitted"]
        self.assertEqual(c["delivered"] + c["lost"], emitted)
        self.assertGreaterEqual(c["lost_overwritten"], held)

    def test_view_keeps_the_ring_alive(self):
        s = rdma.rx_stream("type=emu,signal=ramp,latency=0.1", "fc32", 1e6, 10000)
        s.start()
        x = s.recv(100, 1.0)
        while len(x) == 0:
            x = s.recv(100, 1.0)
        first = x.copy()
        del s  # the view holds the stream: its memory must stay mapped
        np.testing.assert_array_equal(x, first)

    def test_few_lines_of_python(self):
        # What the README promises, verbatim in spirit: a tone, power per block. Paced
        # by the consumer (a test mode, docs/device-args.md): no lost samples' zeros in
        # the power, however busy the machine is.
        s = rdma.rx_stream("type=emu,signal=tone,freq=1e5,amplitude=0.5,"
                           "emu_pace=consumer", "fc32", 10e6, 1000000)
        s.start()
        powers = []
        while not s.end_of_stream:
            x = s.recv()
            if len(x):
                powers.append(float(np.mean(np.abs(x) ** 2)))
                s.release(len(x))
        s.stop()
        self.assertTrue(powers)
        self.assertAlmostEqual(np.mean(powers), 0.25, places=3)


if __name__ == '__main__':
    gr_unittest.run(qa_rx_stream)
