#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""One stream split over two hosts (docs/links.md, "Several hosts"): two gr-rdma-rx
processes on loopback, share=0/2 and share=1/2, against one emulator daemon. Each is
bit-exact on its own share and accounts for it exactly; combine_reports adds the two
reports up into the stream's identity."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from find_probe_fixtures import read_word
from gnuradio.rdma import combine_reports
from gnuradio.rdma.rx_report import local_below

APP = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")
PROBE = os.environ.get("GR_RDMA_PROBE", "gr-rdma-probe")
EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
PYTHON = sys.executable

IPM = 1024       # sc16 samples per message: payload=4096
BLOCK = 16       # messages per block (share_block= default)
MESSAGES = 6000  # 1.5 s of stream at 4 MS/s
LINK1_DOWN_EVENTS = 0x1000 + 0x100 * 1 + 0x3C  # docs/register-map.md, "Link control"


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class qa_shares(unittest.TestCase):

    def setUp(self):
        self.port = free_udp_port()
        self.start_daemon(links=1)
        self.tmp = tempfile.TemporaryDirectory()

    def start_daemon(self, links):
        # A FIFO of a second: on a busy machine the daemon sends late rather than drop
        # (its 30 ms default overflowed beside two busy loops); the hosts' grace covers
        # it (latency= below).
        self.daemon = subprocess.Popen(
            [EMU, "--control", "127.0.0.1:%d" % self.port, "--link", "127.0.0.1",
             "--links", str(links), "--fifo-ms", "1000"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.daemon.stdout.readline()  # it listens once it has said so

    def stop_daemon(self):
        if self.daemon.poll() is None:
            self.daemon.kill()
        self.daemon.wait()
        self.daemon.stdout.close()

    def tearDown(self):
        self.stop_daemon()
        self.tmp.cleanup()

    def args(self, share, extra=""):
        return ("type=remote,addr=127.0.0.1:%d,signal=ramp,mtu=4096,payload=4096,"
                "latency=2.1,share=%s%s" % (self.port, share, extra))

    def start_host(self, share, samples, extra="", check=True):
        cmd = [APP, "--args", self.args(share, extra), "--rate", "4e6", "--format",
               "sc16", "--samples", str(samples), "--json"] + (["--check"] if check else [])
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def finish(self, proc, name):
        out, err = proc.communicate(timeout=120)
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(out)
        return proc.returncode, out, err, path

    def run_two_hosts(self, samples, extra0="", extra1=""):
        # Share 1's host first: it waits for share 0's layout, share 0's for it.
        second = self.start_host("1/2", samples, extra1)
        first = self.start_host("0/2", samples, extra0)
        return self.finish(first, "share0.json"), self.finish(second, "share1.json")

    def combine(self, *paths):
        return subprocess.run([PYTHON, "-m", "gnuradio.rdma.combine_reports", *paths],
                              capture_output=True, text=True, timeout=60)

    def test_two_hosts_each_bit_exact_on_their_share(self):
        samples = IPM * MESSAGES
        results = self.run_two_hosts(samples)
        reports = []
        for h, (rc, out, err, _) in enumerate(results):
            self.assertEqual(rc, 0, "share %d: %s" % (h, err))
            r = json.loads(out)
            reports.append(r)
            # 6000 messages are 375 blocks: share 0 takes 188, share 1 187.
            mine = local_below(samples, h, 2, BLOCK * IPM)
            self.assertEqual(mine, (188 if h == 0 else 187) * BLOCK * IPM)
            self.assertEqual((r["share"], r["shares"], r["share_block"]), (h, 2, BLOCK))
            # Its own samples only, every one checked against the ramp's stream index.
            self.assertEqual(r["samples_emitted"], mine)
            self.assertEqual(r["samples_delivered"], mine)
            self.assertEqual(r["samples_lost"], 0)
            self.assertTrue(r["identity_holds"])
            self.assertEqual(r["check"]["items_checked"], mine)
            self.assertEqual(r["check"]["mismatches"], 0)
            self.assertEqual(r["check"]["time_errors"], 0)
            self.assertGreater(r["check"]["time_tags"], 0)
            self.assertEqual(r["samples_emitted_stream"], samples)
        proc = self.combine(results[0][3], results[1][3])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("stream: emitted %d (shares: %d) = delivered %d + lost 0: "
                      "identity holds" % (samples, samples, samples), proc.stdout)

    def test_loss_is_each_hosts_own_and_the_sum_holds(self):
        # Messages 5 and 40 are share 0's (blocks 0 and 2), 20 and 21 share 1's
        # (block 1): the emulator drops them, as share 0's host configured it.
        samples = IPM * MESSAGES
        results = self.run_two_hosts(samples, ",drop=5:20:21:40")
        lost = []
        for h, (rc, out, err, _) in enumerate(results):
            self.assertEqual(rc, 0, "share %d: %s" % (h, err))
            r = json.loads(out)
            self.assertTrue(r["identity_holds"], r)
            self.assertEqual(r["check"]["mismatches"], 0)
            lost.append(r["samples_lost"])
            # The gap is at the share's local sample of the message it lost.
            first = r["gap_ranges"][0][0]
            self.assertEqual(first, (5 if h == 0 else 20 - BLOCK) * IPM)
        self.assertEqual(lost, [2 * IPM, 2 * IPM])
        proc = self.combine(results[0][3], results[1][3], "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        combined = json.loads(proc.stdout)
        self.assertTrue(combined["identity_holds"])
        self.assertEqual(combined["samples_emitted"], samples)
        self.assertEqual(combined["samples_lost"], 4 * IPM)
        self.assertEqual(combined["samples_delivered"], samples - 4 * IPM)

    def test_each_host_over_two_links(self):
        # Share 0's host takes destinations 0 and 1 at 3:1 (local messages 0 1 3 on
        # link 0, 2 on link 1), share 1's destinations 4 and 5 at 1:1. The emulator
        # drops stream messages 5 and 6 (share 0's local 5, link 0, and 6, link 1) and
        # 340 and 341 (share 1's local 164 and 165: one on each link).
        self.stop_daemon()
        self.start_daemon(links=2)
        samples = IPM * MESSAGES
        # link_timeout=0: a busy machine's late notifications must not take a link
        # out here (failover is the next test's).
        results = self.run_two_hosts(
            samples, ",links=2,weights=3:1,link_timeout=0,drop=5:6:340:341",
            ",links=2,weights=1:1,link_timeout=0")
        for h, (rc, out, err, _) in enumerate(results):
            self.assertEqual(rc, 0, "share %d: %s" % (h, err))
            r = json.loads(out)
            mine = local_below(samples, h, 2, BLOCK * IPM)
            self.assertEqual(r["samples_emitted"], mine)
            self.assertEqual(r["samples_lost"], 2 * IPM, r)
            self.assertEqual(r["samples_delivered"], mine - 2 * IPM)
            self.assertTrue(r["identity_holds"])
            self.assertEqual(r["check"]["mismatches"], 0)
            self.assertEqual(r["check"]["time_errors"], 0)
            links = r["links"]
            self.assertEqual([l["link"] for l in links], [0, 1])
            # Each loss on the link that carried it, the rest nowhere else.
            self.assertEqual([l["lost_samples"] for l in links], [IPM, IPM], r)
            self.assertEqual(r["links_unattributed"]["messages"], 0, r)
            carried = [l["messages"] for l in links]
            self.assertEqual(sum(carried), mine // IPM)
            share_of_link0 = carried[0] / sum(carried)
            self.assertAlmostEqual(share_of_link0, 0.75 if h == 0 else 0.5, delta=0.01)
        proc = self.combine(results[0][3], results[1][3])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("stream: emitted %d (shares: %d) = delivered %d + lost %d: "
                      "identity holds" % (samples, samples, samples - 4 * IPM, 4 * IPM),
                      proc.stdout)

    def test_three_hosts_over_two_links_each(self):
        # H = 3 gives each share two destinations (D = 2): share h's are 2h and 2h+1,
        # on links 0 and 1. Every host bit-exact on its share, 1:1 over its links, and
        # the three reports make the stream's identity.
        self.stop_daemon()
        self.start_daemon(links=2)
        samples = IPM * MESSAGES
        hosts = [self.start_host("%d/3" % h, samples, ",links=2,weights=1:1,link_timeout=0")
                 for h in (2, 1, 0)]  # share 0's last: it waits for the others
        results = [self.finish(p, "share%d.json" % (2 - i)) for i, p in enumerate(hosts)]
        results.reverse()
        for h, (rc, out, err, _) in enumerate(results):
            self.assertEqual(rc, 0, "share %d: %s" % (h, err))
            r = json.loads(out)
            mine = local_below(samples, h, 3, BLOCK * IPM)
            self.assertEqual((r["share"], r["shares"]), (h, 3))
            self.assertEqual(r["samples_delivered"], mine)
            self.assertEqual(r["samples_lost"], 0)
            self.assertEqual(r["check"]["items_checked"], mine)
            self.assertEqual(r["check"]["mismatches"], 0)
            carried = [l["messages"] for l in r["links"]]
            self.assertEqual(sum(carried), mine // IPM)
            # 1:1, but for the start: a share's host gives its destinations their
            # weights one by one, and its START may come between (only the first is
            # sure to be in the device's epoch 0: rx_stream_links.cc), for
            # longer on a busy machine (16 of 2000 messages seen): at most 2 % apart.
            self.assertLessEqual(abs(carried[0] - carried[1]), 1 + sum(carried) // 50,
                                 r["links"])
        proc = self.combine(*[x[3] for x in results])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("stream: emitted %d (shares: %d) = delivered %d + lost 0: "
                      "identity holds" % (samples, samples, samples), proc.stdout)

    def test_a_hosts_silent_link_goes_by_its_own_weight(self):
        # Link 1 loses every frame from 0.3 s to 0.6 s, a failure only the hosts can
        # see. Share 0's host does not use it (weight 0); share 1's, over links 0 and
        # 1, declares its own destination 5 down by its DST_WEIGHT (LINK_CONTROL would
        # take the link from every share) and goes on over link 0; link_retry= later
        # it gives the weight back, and link 1 carries again. What link 1 lost is
        # counted on it, the books balance, and the ramp is whole elsewhere.
        from gnuradio import rdma
        import numpy as np
        self.stop_daemon()
        self.start_daemon(links=2)
        samples = IPM * MESSAGES
        first = self.start_host("0/2", samples, ",links=2,weights=1:0,emu_link_loss=1@0.3-0.6",
                                check=False)
        s = rdma.rx_stream(self.args("1/2", ",links=2,weights=1:1,link_timeout=60,link_retry=500,"
                                     "hugepages=off"),
                           "sc16", 4e6, samples)
        s.start()
        mine = local_below(samples, 1, 2, BLOCK * IPM)
        got = mismatches = 0
        block = BLOCK * IPM
        deadline = time.monotonic() + 20
        while not s.end_of_stream and time.monotonic() < deadline:
            x = s.recv(1 << 16, 0.05)
            j = np.arange(s.first_item, s.first_item + len(x), dtype=np.uint64)
            stream_sample = j // block * block * 2 + block + j % block
            want = (stream_sample & 0xFFFFFFFF).astype(np.uint32)
            data = np.frombuffer(x, dtype=np.uint32)
            mismatches += int(np.count_nonzero((data != want) & (data != 0)))
            got += len(x)
            s.release(len(x))
        s.stop()
        c = s.read_counters()
        rc, out, err, _ = self.finish(first, "share0.json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(got, mine)
        self.assertEqual(mismatches, 0)
        self.assertEqual(c["host.link1.declared_down"], 1, c)
        self.assertGreater(c["host.link1.lost_samples"], 0)
        self.assertEqual(c["host.link0.lost_samples"], 0)
        self.assertEqual(c["host.lost"], c["host.link1.lost_samples"])
        self.assertEqual(c["host.links_unattributed_messages"], 0)
        self.assertEqual(c["device.samples_emitted"], c["host.delivered"] + c["host.lost"])
        # Within the link timeout (60 ms: 117 of the share's messages, half of them
        # link 1's) and a window or two.
        self.assertLess(c["host.lost"], 160 * IPM)
        # Link 1 was out from ~0.36 s to ~0.86 s of 1.5 s, and carried its half
        # before and after: to the share's last message.
        share_messages = mine // IPM
        self.assertEqual(c["host.link0.messages"] + c["host.link1.messages"],
                         share_messages)
        self.assertGreater(c["host.link1.messages"], 0.25 * share_messages)
        self.assertLess(c["host.link1.messages"], 0.45 * share_messages)
        self.assertGreaterEqual(c["host.link1.frontier"], share_messages - 2)
        # Share 0's host lost nothing, and link 1 never went out of the device's
        # schedules (LINK_DOWN_EVENTS: LINK_CONTROL stayed 1).
        r = json.loads(out)
        self.assertEqual(r["samples_lost"], 0)
        self.assertTrue(r["identity_holds"])
        self.assertEqual(read_word(self.port, LINK1_DOWN_EVENTS), (0, 0))

    def test_probe_shows_the_shares(self):
        # While two hosts stream (3 s), gr-rdma-probe shows the layout, both shares
        # ready, share 1 held by another host, and each share's samples so far.
        samples = 12000000
        second = self.start_host("1/2", samples, check=False)
        first = self.start_host("0/2", samples, check=False)
        shares, deadline = None, time.monotonic() + 20
        while time.monotonic() < deadline:
            proc = subprocess.run([PROBE, "--addr", "127.0.0.1:%d" % self.port, "--json"],
                                  capture_output=True, text=True, timeout=30)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            stream = json.loads(proc.stdout)["rx_streams"][0]
            shares = stream["shares"]
            if stream["running"] and shares["count"] == 2:
                break
            time.sleep(0.05)
        self.assertEqual((shares["count"], shares["block"], shares["ready"]),
                         (2, BLOCK, "0x3"), shares)
        hosts = shares["hosts"]
        self.assertEqual([x["index"] for x in hosts], [0, 1])
        self.assertEqual([x["ready"] for x in hosts], [True, True])
        self.assertEqual(hosts[1]["holder"], "another host")
        self.assertNotIn("holder", hosts[0])  # share 0 is the stream owner's
        self.assertGreater(hosts[0]["start_time_ns"], 0)
        for h, proc in enumerate((first, second)):
            rc, out, err, _ = self.finish(proc, "probed%d.json" % h)
            self.assertEqual(rc, 0, err)

    def test_share_0_alone_names_the_missing_host(self):
        proc = self.start_host("0/2", IPM * 100, ",share_wait=0.3", check=False)
        rc, out, err, _ = self.finish(proc, "alone.json")
        self.assertNotEqual(rc, 0)
        self.assertIn("share 1 of 2 has no host ready", err + out)
        self.assertIn("share=1/2", err + out)
        # The layout it left (RX_SHARES 2) does not stop a host of the whole stream.
        proc = subprocess.Popen(
            [APP, "--args",
             "type=remote,addr=127.0.0.1:%d,signal=ramp,latency=2.1" % self.port,
             "--rate", "4e6", "--format", "sc16", "--samples", str(IPM * 100), "--check",
             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rc, out, err, _ = self.finish(proc, "whole.json")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("share", json.loads(out))

    def test_share_1_alone_names_share_0(self):
        proc = self.start_host("1/2", IPM * 100, ",share_wait=0.3", check=False)
        rc, out, err, _ = self.finish(proc, "alone.json")
        self.assertNotEqual(rc, 0)
        self.assertIn("start share 0's host", err + out)

    def streaming_host(self, share, extra):
        """A continuous run (30 s unless something ends it), checked; returns it and
        an event set once its stream runs (its log line), its stderr kept."""
        proc = subprocess.Popen(
            [APP, "--args", self.args(share, extra), "--rate", "4e6", "--format", "sc16",
             "--duration", "30", "--check", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        streaming, lines = threading.Event(), []

        def read():
            for line in proc.stderr:
                lines.append(line)
                if "RX stream 0" in line and "ring" in line:
                    streaming.set()
        threading.Thread(target=read, daemon=True).start()
        return proc, streaming, lines

    def kill_one_share_host(self, dead):
        """Both hosts stream, then share `dead`'s host is SIGKILLed: the other must
        report share_lost once the dead host's lease (0.5 s) lapses. Before (issue 31)
        it took the device's stop for share 0's STOP and ended as if all was well."""
        hosts = {}
        try:
            for h in (1, 0):  # share 1's host first: it waits for share 0's layout
                hosts[h] = self.streaming_host("%d/2" % h, ",lease=0.5")
            for h in (0, 1):
                self.assertTrue(hosts[h][1].wait(30), "".join(hosts[h][2]))
            time.sleep(0.5)
            killed = time.monotonic()
            hosts[dead][0].kill()
            hosts[dead][0].communicate()
            survivor = hosts[1 - dead][0]
            out, _ = survivor.communicate(timeout=60)
            told = time.monotonic() - killed
        finally:
            for proc, _, _ in hosts.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
        err = "".join(hosts[1 - dead][2])
        report = json.loads(out)
        self.assertEqual(survivor.returncode, 1, err)
        self.assertEqual(report["failure"], report["error"])
        # The bound: the lease, one pass of the device's lapse check and one heartbeat
        # (250 ms) with room for a loaded machine; the run would have gone on for 30 s.
        self.assertLess(told, 10, err)
        # Its own books are whole: the device stopped the run and its counters are final.
        self.assertTrue(report["identity_holds"], err)
        self.assertEqual(report["check"]["mismatches"], 0)
        return report["error"], err

    def test_a_share_host_killed_is_reported_by_share_0s_host(self):
        error, log = self.kill_one_share_host(1)
        self.assertIn("share 1's host left: its lease lapsed", error)
        self.assertIn("stopped for every share", error)
        self.assertIn("share 1's host left", log)  # the error line in the log too

    def test_share_0s_host_killed_is_reported_by_share_1s_host(self):
        error, log = self.kill_one_share_host(0)
        self.assertIn("the stream's owner left: its lease lapsed", error)
        self.assertIn("stopped for every share", error)

    def test_combine_refuses_what_is_not_one_stream(self):
        def report(h, shares=2, emitted=10, delivered=10, lost=0):
            return {"kind": "report", "share": h, "shares": shares,
                    "share_block_items": 16, "samples_emitted": emitted,
                    "samples_delivered": delivered, "samples_lost": lost,
                    "identity_holds": emitted == delivered + lost,
                    "samples_emitted_stream": 20}
        good = combine_reports.combine([report(0), report(1)])
        self.assertTrue(good["identity_holds"])
        for reports, words in (([report(0)], "missing: [1]"),
                               ([report(0), report(0)], "given twice: [0]"),
                               ([report(0), report(1, shares=3)], "split their streams")):
            with self.assertRaises(combine_reports.CombineError) as e:
                combine_reports.combine(reports)
            self.assertIn(words, str(e.exception))
        # A host whose own identity fails makes the stream's fail.
        bad = combine_reports.combine([report(0), report(1, delivered=9)])
        self.assertFalse(bad["identity_holds"])
        # A report without share= is refused with the reason.
        path = os.path.join(self.tmp.name, "plain.json")
        with open(path, "w") as f:
            f.write(json.dumps({"kind": "report", "samples_emitted": 1}) + "\n")
        proc = self.combine(path)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not split", proc.stderr)


if __name__ == "__main__":
    unittest.main()
