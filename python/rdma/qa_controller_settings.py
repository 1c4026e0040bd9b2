#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The device controller's settings as users reach them (docs/links.md, "Setting the
controller"): the ctrl_policy= and ctrl_period= device args of rx_stream and tx_stream
(written at START, once the host owns its stream), the setters of rdma.sdr and of the
rdma.device block, and what the device's ownership rule makes of them: while another
host owns a stream, only an owner may set them, and the refusal names the fix. Each
setting is checked where it lands, in CTRL_POLICY and CTRL_PERIOD_US as a client of
its own reads them, and in gr-rdma-probe."""

import json
import time

from gnuradio import gr_unittest
from gnuradio import rdma

from find_probe_fixtures import (EMU, OKAY, PROBE, read_word, run,
                                 start_daemon, stop_daemon)

CTRL_POLICY, CTRL_PERIOD_US = 0xA000, 0xA004
POLICY_CODES = {"none": 0, "water_filling": 1, "shortest_rtt": 2}


class qa_controller_settings(gr_unittest.TestCase):

    def setUp(self):
        self.daemon = start_daemon(EMU, "--control", "127.0.0.1:0", "--link", "127.0.0.1",
                                   "--streams", "2")
        self.port = self.daemon.port
        self.addr = "type=remote,addr=127.0.0.1:%d,hugepages=off" % self.port

    def tearDown(self):
        stop_daemon(self.daemon)

    def registers(self):
        """(CTRL_POLICY, CTRL_PERIOD_US) as a client of its own reads them."""
        out = []
        for address in (CTRL_POLICY, CTRL_PERIOD_US):
            status, word = read_word(self.port, address)
            self.assertEqual(status, OKAY)
            out.append(word)
        return tuple(out)

    def test_rx_stream_args_set_the_controller_at_start(self):
        self.assertEqual(self.registers(), (0, 1000))  # the reset values
        s = rdma.rx_stream(self.addr + ",signal=ramp,ctrl_policy=water_filling,"
                           "ctrl_period=0.0025", "sc16", 1e6, 0)
        self.assertEqual(self.registers(), (0, 1000), "written at START, not before")
        s.start()
        try:
            self.assertEqual(self.registers(), (POLICY_CODES["water_filling"], 2500))
            probe = run(PROBE, "--addr", "127.0.0.1:%d" % self.port, "--json")
            self.assertEqual(probe.returncode, 0, probe.stderr)
            ctrl = json.loads(probe.stdout)["controller"]
            self.assertEqual((ctrl["policy_code"], ctrl["period_us"]), (1, 2500))
        finally:
            s.stop()
        # The device's settings outlive the run; without the keys a stream leaves them.
        self.assertEqual(self.registers(), (1, 2500))
        s = rdma.rx_stream(self.addr + ",signal=ramp", "sc16", 1e6, 0)
        s.start()
        s.stop()
        self.assertEqual(self.registers(), (1, 2500))

    def test_tx_stream_args_set_the_controller_at_start(self):
        t = rdma.tx_stream(self.addr + ",latency=0.05,ctrl_policy=shortest_rtt,"
                           "ctrl_period=1", "sc16", 1e6)
        self.assertEqual(self.registers(), (0, 1000))
        t.start()
        try:
            self.assertEqual(self.registers(), (POLICY_CODES["shortest_rtt"], 1000000))
        finally:
            t.stop()

    def test_sdr_and_device_block_setters(self):
        radio = rdma.sdr(self.addr)
        self.assertEqual(rdma.sdr.get_ctrl_policies(),
                         ["none", "water_filling", "shortest_rtt"])
        self.assertEqual((radio.get_ctrl_policy(), radio.get_ctrl_period()), ("none", 0.001))
        # Nobody owns a stream: any host may set them.
        radio.set_ctrl_policy("shortest_rtt")
        radio.set_ctrl_period(0.0000014)  # rounded to the microsecond
        self.assertEqual(self.registers(), (2, 1))
        self.assertEqual((radio.get_ctrl_policy(), radio.get_ctrl_period()),
                         ("shortest_rtt", 1e-6))
        block = rdma.device(self.addr, 0)
        self.assertEqual(block.get_ctrl_policies(), rdma.sdr.get_ctrl_policies())
        block.set_ctrl_policy("water_filling")
        block.set_ctrl_period(0.004)
        self.assertEqual(self.registers(), (1, 4000))
        self.assertEqual((block.get_ctrl_policy(), block.get_ctrl_period()),
                         ("water_filling", 0.004))

    def test_bad_values_are_refused_naming_the_fix(self):
        radio = rdma.sdr(self.addr)
        radio.set_ctrl_policy("water_filling")
        for bad in ("fair", "", "Water_Filling", "1"):
            with self.assertRaisesRegex(ValueError, "none, water_filling, shortest_rtt"):
                radio.set_ctrl_policy(bad)
        for bad in (0, -1, 1e-7, 1.000001, 2, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, r"1e-06 \.\.\. 1 seconds"):
                radio.set_ctrl_period(bad)
        self.assertEqual(self.registers(), (1, 1000), "nothing refused was written")
        for bad, key in (("ctrl_policy=fair", "ctrl_policy"), ("ctrl_period=0", "ctrl_period"),
                         ("ctrl_period=2", "ctrl_period"), ("ctrl_period=abc", "ctrl_period"),
                         ("ctrl_period=1e-7", "ctrl_period")):
            with self.assertRaisesRegex(ValueError, key + "=") as caught:
                rdma.rx_stream(self.addr + "," + bad, "sc16", 1e6, 0)
            with self.assertRaisesRegex(ValueError, key + "="):
                rdma.tx_stream(self.addr + "," + bad, "sc16", 1e6)
        with self.assertRaisesRegex(ValueError, "set by the host of share 0"):
            rdma.rx_stream(self.addr + ",share=1/2,ctrl_policy=none", "sc16", 1e6, 0)
        self.assertIn("water_filling", str(rdma_error(lambda: rdma.rx_stream(
            self.addr + ",ctrl_policy=fair", "sc16", 1e6, 0))))
        self.assertEqual(self.registers(), (1, 1000))

    def test_a_device_without_rate_control(self):
        # The stand-in has no controller (no RATE_CONTROL).
        with self.assertRaisesRegex(ValueError, "no RATE_CONTROL.*drop it"):
            rdma.rx_stream("type=null,ctrl_policy=none", "sc16", 1e6, 0)
        with self.assertRaisesRegex(RuntimeError, "has no RATE_CONTROL"):
            rdma.sdr("type=null").set_ctrl_policy("none")
        with self.assertRaisesRegex(RuntimeError, "has no RATE_CONTROL"):
            rdma.sdr("type=null").get_ctrl_period()

    def test_only_an_owner_may_set_them_while_a_stream_is_owned(self):
        # Two hosts: the same daemon through two AXIoE clients (name= opens it again).
        host_a = self.addr + ",name=a,signal=ramp"
        host_b = self.addr + ",name=b,signal=ramp"
        a = rdma.rx_stream(host_a, "sc16", 1e6, 0)
        a.start()
        try:
            with self.assertRaisesRegex(RuntimeError,
                                        "another host owns a stream of it.*start a stream"):
                rdma.sdr(host_b).set_ctrl_policy("water_filling")
            with self.assertRaisesRegex(RuntimeError, "another host owns a stream"):
                rdma.sdr(host_b).set_ctrl_period(0.002)
            self.assertEqual(self.registers(), (0, 1000))
            self.assertEqual(rdma.sdr(host_b).get_ctrl_policy(), "none")  # anyone reads
            # The owner may; and host B may once it owns a stream of its own, by its args
            # at START as by its setters.
            rdma.sdr(host_a).set_ctrl_policy("shortest_rtt")
            self.assertEqual(self.registers()[0], 2)
            b = rdma.rx_stream(host_b + ",stream=1,ctrl_policy=water_filling,"
                               "ctrl_period=0.003", "sc16", 1e6, 0)
            b.start()
            try:
                self.assertEqual(self.registers(), (1, 3000))
                rdma.sdr(host_b).set_ctrl_policy("none")
                self.assertEqual(self.registers()[0], 0)
            finally:
                b.stop()
        finally:
            a.stop()


def rdma_error(make):
    try:
        make()
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        return e
    raise AssertionError("not refused")


if __name__ == "__main__":
    gr_unittest.run(qa_controller_settings)
