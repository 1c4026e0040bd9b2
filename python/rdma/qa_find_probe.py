#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gr-rdma-probe against emulator daemons (docs/find-probe.md): it shows what a
daemon says about itself, its links and its streams' schedules, and changes nothing
on it; both tools' --help. gr-rdma-find is qa_find's."""

import json
import os
import struct
import time

from gnuradio import gr_unittest
from gnuradio import rdma

from find_probe_fixtures import (
    EMU, EMU_EXTENSION, EMU_LINK_DOWN, EMU_LINK_STRIDE, FIND, OKAY, OWNER_OTHER, PROBE, READ,
    RX_OWNER, RX_OWNER_TOKEN, RX_STRIDE, axioe_client, fake_device, free_udp_port,
    identity_of, read_word, recording_proxy, run, start_daemon, stop_daemon, two_daemons,
    unique_keys)


class qa_find_probe(two_daemons, gr_unittest.TestCase):

    def test_probe_text(self):
        proc = run(PROBE, "--addr", self.addr_a)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = proc.stdout
        self.assertTrue(out.startswith("gr-rdma emulator at %s\n" % self.addr_a), out)
        self.assertIn("    capabilities: %s\n" % identity_of(self.port_a)[1], out)
        self.assertIn("    serial: 0xa11ce\n", out)
        self.assertIn("    rx streams: 3\n", out)
        self.assertIn("    formats: sc16 fc32 sc8\n", out)
        for s in range(3):
            self.assertIn("\n  RX stream %d\n" % s, out)
        self.assertNotIn("RX stream 3", out)
        self.assertIn("\n  Link 0\n    address: 127.0.0.1\n", out)
        self.assertIn("    owner: free\n", out)
        self.assertIn("    lease: 5000 ms\n", out)
        self.assertIn("\n  Metadata\n", out)
        # Map 1.3: an RF channel per RX stream, as reset (docs/radio.md).
        self.assertIn("\n  RF\n    channels: 3\n    Channel 0\n"
                      "      center frequency: 100000000.000 Hz\n", out)
        self.assertIn("    Channel 2\n", out)
        self.assertNotIn("Channel 3", out)
        self.assertIn("      antennas: ANT0 ANT1\n", out)
        self.assertIn("      LO locked: yes\n", out)
        # RATE_CONTROL: the controller as reset, a line per stream.
        self.assertIn("\n  Controller\n    policy: none (0)\n    period: 1000 us\n"
                      "    events: 0\n    coalesced: 0\n    runs: 0\n    NAK cuts: 0\n"
                      "    TX NAK cuts: 0\n"
                      "    Stream 0\n      rate limit: none\n      rate: none\n"
                      "      weights: 0:1 (destination:weight)\n"
                      "      paths: 0:none (destination:ns)\n", out)
        self.assertIn("    Stream 2\n", out)
        self.assertNotIn("Stream 3", out)
        # CAP_TX: the READ rates of each TX stream, after the RX streams.
        self.assertIn("\n    TX stream 0\n      read rate limit: none\n"
                      "      read rate: none\n", out)
        self.assertNotIn("TX stream 1", out)

    def test_probe_json(self):
        proc = run(PROBE, "--addr", self.addr_b, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        d = json.loads(proc.stdout, object_pairs_hook=unique_keys)
        self.assertEqual(d["addr"], self.addr_b)
        self.assertEqual(d["type"], "emulator")
        self.assertEqual(" ".join(d["identity"]["capabilities"]),
                         identity_of(self.port_a)[1])
        self.assertEqual(d["identity"]["serial"], "0xb0b")
        self.assertEqual(d["identity"]["rx_streams"], 1)
        self.assertEqual(len(d["rx_streams"]), 1)
        self.assertEqual(len(d["links"]), 1)
        stream = d["rx_streams"][0]
        self.assertEqual((stream["owner"], stream["lease_ms"], stream["running"]),
                         ("free", 5000, False))
        self.assertIn("payload_bytes", stream["descriptor"])
        self.assertEqual(stream["counters"]["samples_emitted"], 0)
        rf = d["rf"]
        self.assertTrue(rf["reported"])
        self.assertEqual([c["index"] for c in rf["channels"]], [0])  # one per RX stream
        channel = rf["channels"][0]
        self.assertEqual(channel["freq_hz"], 100e6)
        self.assertEqual((channel["freq_min_hz"], channel["freq_max_hz"]), (70e6, 6e9))
        self.assertEqual((channel["gain_min_db"], channel["gain_max_db"],
                          channel["gain_step_db"]), (0, 76, 0.5))
        self.assertEqual(channel["antennas"], ["ANT0", "ANT1"])
        self.assertGreater(d["clock"]["device_time_ns"], 1.6e18)
        ctrl = d["controller"]
        self.assertEqual((ctrl["policy"], ctrl["policy_code"], ctrl["period_us"]),
                         ("none", 0, 1000))
        self.assertEqual((ctrl["events"], ctrl["coalesced"], ctrl["runs"], ctrl["nak_cuts"],
                          ctrl["tx_nak_cuts"]), (0, 0, 0, 0, 0))
        self.assertEqual(ctrl["streams"], [{"index": 0, "rate_limit_bytes_per_s": 0,
                                            "rate_bytes_per_s": 0,
                                            "weights": [{"destination": 0, "weight": 1}],
                                            "paths": [{"destination": 0, "path_ns": 0}],
                                            "device_rtts": [{"destination": 0, "rtt_ns": 0,
                                                             "retransmits": 0}]}])
        self.assertEqual(ctrl["tx_streams"], [{"index": 0, "read_rate_limit_bytes_per_s": 0,
                                               "read_rate_bytes_per_s": 0}])

    def test_probe_reads_only_and_sees_another_hosts_stream(self):
        host = rdma.rx_stream("type=remote,addr=%s,signal=ramp" % self.addr_b, "sc16",
                              1e6, 0)
        host.start()
        self.addCleanup(host.stop)
        self.assertGreater(self.receive(host), 0)
        proxy = recording_proxy(self.port_b)
        self.addCleanup(proxy.close)
        proc = run(PROBE, "--addr", "127.0.0.1:%d" % proxy.port, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        probed = json.loads(proc.stdout)
        stream = probed["rx_streams"][0]
        # The host's START was the controller's first events (demand, limit, link up);
        # the weights, like the descriptor, are the owner's to read.
        self.assertGreater(probed["controller"]["events"], 0)
        self.assertTrue(probed["controller"]["streams"][0]["weights"].startswith(
            "not readable: NOT_OWNER"), probed["controller"])
        self.assertEqual(stream["owner"], "owned by another host")
        self.assertTrue(stream["running"])
        self.assertEqual(stream["descriptor"], {"readable": False, "refused": "NOT_OWNER"})
        self.assertGreater(stream["counters"]["samples_emitted"], 0)
        # Plain READs only: no write, no FIFO read, nothing in the emulator's own
        # block (its fault log pops when read).
        self.assertGreater(len(proxy.requests), 5)
        for opcode, address, count in proxy.requests:
            self.assertEqual(opcode, READ, (opcode, hex(address)))
            self.assertLess(address + 4 * count, EMU_EXTENSION, hex(address))
        # The host keeps its stream, which keeps running.
        self.assertEqual(read_word(self.port_b, RX_OWNER), (OKAY, OWNER_OTHER))
        self.assertGreater(self.receive(host), 0)
        text = run(PROBE, "--addr", self.addr_b).stdout
        self.assertIn("    owner: owned by another host\n", text)
        self.assertIn("    Descriptor: not readable: another host owns the stream\n", text)
        self.assertIn("    status: running\n", text)

    def receive(self, host, samples=10000):
        got, deadline = 0, time.monotonic() + 5
        while got < samples and time.monotonic() < deadline:
            x = host.recv(1 << 14, 0.1)
            got += len(x)
            host.release(len(x))
        return got

    def test_probe_links(self):
        # A daemon with two links, a host streaming over both at 3:1 (docs/links.md).
        daemon = start_daemon(EMU, "--control", "127.0.0.1:0", "--link", "127.0.0.1",
                              "--links", "2", "--streams", "2")
        self.addCleanup(stop_daemon, daemon)
        port = daemon.port
        addr = "127.0.0.1:%d" % port
        host = rdma.rx_stream("type=remote,addr=%s,signal=ramp,links=2,weights=3:1"
                              % addr, "sc16", 1e6, 0)
        host.start()
        self.addCleanup(host.stop)
        self.assertGreater(self.receive(host, 1000000), 0)

        d = self.probe_json(addr)
        self.assertEqual([l["index"] for l in d["links"]], [0, 1])
        for link in d["links"]:
            self.assertEqual((link["status"], link["control"], link["control_word"],
                              link["down_events"], link["capacity_bytes_per_s"]),
                             ("up", "up", 1, 0, 0))
        tx = [link["tx_packets"] for link in d["links"]]
        self.assertAlmostEqual(tx[1] / sum(tx), 0.25, delta=0.01)
        schedule = d["rx_streams"][0]["schedule"]
        self.assertEqual(schedule["epoch_count"], 1)
        self.assertEqual(schedule["epochs_kept"], 4)
        dests = schedule["destinations"]
        self.assertEqual([x["index"] for x in dests], [0, 1])
        for x in dests:
            # DST_LINK and DST_WEIGHT are the owner's; the epoch's weight anyone's.
            self.assertEqual((x["link"], x["weight"]), (None, None))
            self.assertEqual((x["state"], x["state_word"], x["active"]),
                             ("active", "0x9", True))
        self.assertEqual([x["epoch_weight"] for x in dests], [3, 1])
        messages = [x["messages"] for x in dests]
        self.assertGreater(sum(messages), 900)
        self.assertAlmostEqual(messages[1] / sum(messages), 0.25, delta=0.01)
        self.assertLessEqual(sum(messages), schedule["messages_scheduled"] + 8)
        self.assertEqual(schedule["epochs"], [
            {"number": 0, "first_message": 0, "cause": "start", "cause_code": 0,
             "cause_link": 0, "weights": [3, 1]}])
        # A stream that never ran shows no schedule.
        self.assertNotIn("schedule", d["rx_streams"][1])

        # Cut link 1 (EMU_LINK_DOWN), as a client that owns a stream may: the device
        # takes destination 1 out in a new epoch.
        other = axioe_client(port)
        self.addCleanup(other.close)
        token = struct.unpack(">II", os.urandom(8))
        self.assertEqual(other.write(RX_OWNER_TOKEN + RX_STRIDE, *token), OKAY)
        self.assertEqual(other.write(EMU_LINK_DOWN + EMU_LINK_STRIDE, 1), OKAY)
        deadline = time.monotonic() + 5
        while True:
            d = self.probe_json(addr)
            schedule = d["rx_streams"][0]["schedule"]
            if schedule["epoch_count"] >= 2 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(schedule["epoch_count"], 2)
        link = d["links"][1]
        self.assertEqual((link["status"], link["control"], link["down_events"]),
                         ("down", "up", 1))
        cut = schedule["epochs"][1]
        self.assertEqual((cut["number"], cut["cause"], cut["cause_link"], cut["weights"]),
                         (1, "link_down", 1, [3, 0]))
        self.assertGreater(cut["first_message"], 0)
        self.assertEqual(cut["first_message"] % 16, 0)  # at a notification window
        dest = schedule["destinations"][1]
        self.assertEqual((dest["active"], dest["device_down"], dest["host_down"],
                          dest["state_word"], dest["epoch_weight"]),
                         (False, True, False, "0xa", 0))
        text = run(PROBE, "--addr", addr).stdout
        self.assertIn("        cause: link 1 went down\n        weights: 3 0\n", text)
        self.assertIn("        state: inactive: its link went down (device)\n", text)
        self.assertIn("    down events: 1\n", text)
        # After the run: the schedule stays, marked as the last run's.
        host.stop()
        text = run(PROBE, "--addr", addr).stdout
        self.assertIn("\n    Schedule: of the last run\n      epoch count: 2\n", text)

    def probe_json(self, addr):
        proc = run(PROBE, "--addr", addr, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout, object_pairs_hook=unique_keys)

    def test_probe_no_device(self):
        dead = "127.0.0.1:%d" % free_udp_port()
        proc = run(PROBE, "--addr", dead)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertIn(dead, proc.stderr)
        self.assertIn("no valid response", proc.stderr)
        fake = fake_device("bad_magic")
        try:
            proc = run(PROBE, "--addr", "127.0.0.1:%d" % fake.port)
        finally:
            fake.close()
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, "")
        self.assertIn("is not a gr-rdma device (ID_MAGIC reads 0x12345678", proc.stderr)

    def test_probe_bad_flags(self):
        for value in ("1.2.3", "127.0.0.1:0", "127.0.0.1:65536", "0.0.0.0", "", "x"):
            self.assert_usage_error(run(PROBE, "--addr", value), "--addr", value)
        self.assert_usage_error(run(PROBE, "--bogus"), "--bogus", "--bogus")
        self.assert_usage_error(run(PROBE, "--addr"), "--addr needs a value", "--addr")

    def test_help(self):
        for tool in (FIND, PROBE):
            proc = run(tool, "--help")
            self.assertEqual(proc.returncode, 0)
            self.assertIn("usage:", proc.stdout)
            self.assertIn("Exit status", proc.stdout)


if __name__ == '__main__':
    gr_unittest.run(qa_find_probe, verbosity=2)
