#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The device as the root object (UHD's multi_usrp with get_rx_stream): rdma.sdr
parses the args once, opens the device once and hands out its RX and TX streams."""

import time

import numpy as np

from gnuradio import gr_unittest
from gnuradio import rdma

ARGS = "type=emu,name=qa_sdr_streams,hugepages=off"


def ramp_sc16(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return np.stack([(k & 0xFFFF).astype(np.uint16).view(np.int16),
                     ((k >> 16) & 0xFFFF).astype(np.uint16).view(np.int16)], axis=1)


def receive_all(s):
    """Every item of a finite burst; items not the ramp must be reported lost."""
    s.start()
    got, wrong, lost = 0, 0, 0
    deadline = time.monotonic() + 30
    while not s.end_of_stream and time.monotonic() < deadline:
        x = s.recv(1 << 16, 0.5)
        if len(x):
            wrong += int(np.count_nonzero(np.any(x != ramp_sc16(got, len(x)), axis=1)))
            got += len(x)
            s.release(len(x))
    lost = sum(e["count"] for e in s.events() if e["type"] == "gap")
    s.stop()
    return got, wrong, lost


class qa_sdr_streams(gr_unittest.TestCase):

    def test_rx_stream_of_the_sdr_delivers_the_ramp_with_its_books(self):
        n = 200000
        s = rdma.sdr(ARGS + ",signal=ramp").get_rx_stream("sc16", 1e6, n)
        # The sdr is gone: its stream keeps the device open.
        got, wrong, lost = receive_all(s)
        c = s.counts()
        self.assertEqual(got, n)
        self.assertLessEqual(wrong, lost)  # a gap's items are zeros, reported
        self.assertEqual(c["delivered"] + c["lost"], n, str(c))

    def test_streams_of_one_sdr_share_its_device(self):
        radio = rdma.sdr(ARGS + ",streams=2,signal=ramp")
        a = radio.get_rx_stream("sc16", 1e6, 100000, 0)
        b = radio.get_rx_stream("sc16", 1e6, 100000, 1)
        # A tune through the sdr is the device's: another sdr naming it sees it.
        radio.set_center_freq(433.5e6, 1)
        self.assertEqual(rdma.sdr(ARGS + ",streams=2,signal=ramp").get_center_freq(1),
                         433.5e6)
        for s in (a, b):
            got, wrong, lost = receive_all(s)
            self.assertEqual(got, 100000)
            self.assertLessEqual(wrong, lost)
        # Both streams ran at once as two streams of one device: a third is refused.
        with self.assertRaisesRegex(ValueError, "streams=<count>"):
            radio.get_rx_stream("sc16", 1e6, 100000, 2)
        with self.assertRaisesRegex(ValueError, "stream 16 is out of range 0..15"):
            radio.get_rx_stream("sc16", 1e6, 100000, 16)

    def test_args_stream_is_the_default(self):
        radio = rdma.sdr(ARGS + ",streams=3,stream=2")
        self.assertEqual(radio.get_args_stream(), 2)
        self.assertEqual(rdma.sdr.args_stream, 2**64 - 1)
        s = radio.get_rx_stream("sc16", 1e6, 1000)
        with self.assertRaisesRegex(ValueError, "running in another"):
            # stream 2 is s's: a second RX stream 2 of one device in one process
            s.start()
            radio.get_rx_stream("sc16", 1e6, 1000, 2).start()
        s.stop()

    def test_keys_checked_once_for_both_directions(self):
        # The sdr takes the keys of RX and TX streams; each stream refuses the other
        # direction's, as rx_stream and tx_stream do.
        radio = rdma.sdr(ARGS + ",max_lead=0.01,tx_check=1")
        t = radio.get_tx_stream("sc16", 1e6)
        self.assertGreater(t.ring_items(), 0)
        with self.assertRaisesRegex(ValueError, "unknown key 'max_lead'"):
            radio.get_rx_stream("sc16", 1e6)
        with self.assertRaisesRegex(ValueError, "unknown key 'max_lead'"):
            rdma.rx_stream(ARGS + ",max_lead=0.01", "sc16", 1e6)
        with self.assertRaisesRegex(ValueError, "unknown key 'bogus'"):
            rdma.sdr(ARGS + ",bogus=1")

    def test_tx_stream_of_the_sdr_plays_the_ramp(self):
        t = rdma.sdr(ARGS + ",tx_check=1").get_tx_stream("sc16", 1e6)
        total = t.ring_items() // 2
        done = 0
        while done < total:
            x = t.wait_space(1, 2.0)
            self.assertGreater(len(x), 0)
            n = min(len(x), total - done)
            x[:n] = ramp_sc16(done, n)
            t.commit(n)
            done += n
        t.start()
        deadline = time.monotonic() + 10
        while t.counts()["played"] + t.counts()["late"] < total and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        t.stop()
        c = t.counts()
        self.assertTrue(c["identity_holds"], str(c))
        self.assertEqual(c["played"] + c["late"], total)
        self.assertEqual(t.read_counters()["device.check_mismatches"], 0)


if __name__ == "__main__":
    gr_unittest.run(qa_sdr_streams)
