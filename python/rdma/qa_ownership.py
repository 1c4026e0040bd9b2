#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Stream ownership against the emulator daemon (gr-rdma-emu), as hosts meet it: a
stranger's STOP is refused and the stream runs on; a host that dies (SIGKILL) keeps
the stream until its lease lapses, then the device stops it and the next host takes
it. The same for a TX stream (tx_stream). docs/register-map.md, "Ownership";
docs/security.md."""

import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import json

import numpy as np

from gnuradio import gr_unittest
from gnuradio import rdma

EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
RX = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")
# Seconds: short for the test, long against a loaded machine's stalls. At 3 s, beside
# two busy loops and the suite, a host that was killed had last renewed its lease so
# long before that the lease lapsed before the next host could be refused.
LEASE = 6.0

RX_COMMAND, RX_STATUS, RX_RKEY, RX_OWNER = 0x2000, 0x2004, 0x2018, 0x2078
TX_COMMAND, TX_STATUS, TX_RKEY, TX_OWNER = 0x3000, 0x3004, 0x3018, 0x3078
STOP = 2
RUNNING = 1
OKAY, NOT_OWNER = 0x00, 0x12
OWNER_FREE, OWNER_OTHER = 0, 2

# Host A: streams until it is killed; keeps the count of items it has had in a file.
HOST_A = r"""
import os, sys, time
from gnuradio import rdma
s = rdma.rx_stream(sys.argv[1], "sc16", 1e6, 0)
s.start()
print("started", flush=True)
items, last = 0, 0.0
while True:
    x = s.recv(1 << 16, 0.05)
    items += len(x)
    s.release(len(x))
    if time.monotonic() - last > 0.02:
        with open(sys.argv[2] + ".tmp", "w") as f:
            f.write(str(items))
        os.replace(sys.argv[2] + ".tmp", sys.argv[2])
        last = time.monotonic()
"""


# Host A for transmit: writes the ramp into its TX ring as fast as the device frees it,
# until it is killed; keeps the count of items the device fetched in a file.
HOST_A_TX = r"""
import os, sys, time
import numpy as np
from gnuradio import rdma
t = rdma.tx_stream(sys.argv[1], "sc16", 1e6)
t.start()
print("started", flush=True)
last = 0.0
while True:
    x = t.wait_space(1, 0.05)
    if len(x):
        k = np.arange(t.committed(), t.committed() + len(x), dtype=np.uint64)
        x[:, 0] = (k & 0xFFFF).astype(np.uint16).view(np.int16)
        x[:, 1] = ((k >> 16) & 0xFFFF).astype(np.uint16).view(np.int16)
        t.commit(len(x))
    if time.monotonic() - last > 0.02:
        with open(sys.argv[2] + ".tmp", "w") as f:
            f.write(str(t.fetched()))
        os.replace(sys.argv[2] + ".tmp", sys.argv[2])
        last = time.monotonic()
"""


def ramp_sc16(first, n):
    k = np.arange(first, first + n, dtype=np.uint64)
    return np.stack([(k & 0xFFFF).astype(np.uint16).view(np.int16),
                     ((k >> 16) & 0xFFFF).astype(np.uint16).view(np.int16)], axis=1)


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class axioe_peer:
    """A bare AXIoE client (docs/axioe.md), a client of its own: a stranger."""

    def __init__(self, port):
        self.device = ("127.0.0.1", port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.sequence = int.from_bytes(os.urandom(4), "big")

    def transact(self, opcode, address, words=()):
        self.sequence = (self.sequence + 1) & 0xFFFFFFFF
        count = len(words) if words else 1
        request = struct.pack(">HBBIIHBB", 0xAE10, 1, opcode, self.sequence, address,
                              count, 0, 0) + b"".join(struct.pack(">I", w) for w in words)
        for _ in range(20):
            self.sock.sendto(request, self.device)
            try:
                while True:
                    answer = self.sock.recv(2048)
                    _, _, op, seq, _, _, status, _ = struct.unpack(">HBBIIHBB", answer[:16])
                    if seq == self.sequence and op == opcode | 0x80:
                        data = [struct.unpack(">I", answer[i:i + 4])[0]
                                for i in range(16, len(answer), 4)]
                        return status, data
            except socket.timeout:
                continue
        raise AssertionError("the daemon does not answer")

    def read(self, address):
        return self.transact(0x01, address)

    def write(self, address, value):
        return self.transact(0x02, address, [value])[0]

    def close(self):
        self.sock.close()


class qa_ownership(gr_unittest.TestCase):

    def setUp(self):
        self.port = free_udp_port()
        self.daemon = subprocess.Popen(
            [EMU, "--control", "127.0.0.1:%d" % self.port, "--link", "127.0.0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertIn("AXIoE on", self.daemon.stdout.readline())
        self.args = "type=remote,addr=127.0.0.1:%d,signal=ramp,lease=%g" % (self.port, LEASE)
        self.stranger = axioe_peer(self.port)
        self.host_a = None
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.stranger.close()
        self.tmp.cleanup()
        for p in (self.host_a, self.daemon):
            if p is None:
                continue
            if p.poll() is None:
                p.kill()
            p.communicate()

    def items_of_a(self):
        """The item count host A has published last."""
        if self.host_a.poll() is not None:
            self.fail("host A ended: " + self.host_a.communicate()[1])
        try:
            with open(self.count_file) as f:
                return int(f.read())
        except FileNotFoundError:
            return 0

    def start_host_a(self, script, args):
        self.count_file = os.path.join(self.tmp.name, "items")
        self.host_a = subprocess.Popen([sys.executable, "-c", script, args,
                                        self.count_file],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
        # Its logger writes to stdout too.
        while self.host_a.stdout.readline().strip() != "started":
            if self.host_a.poll() is not None:
                self.fail("host A failed: " + self.host_a.communicate()[1])
        deadline = time.monotonic() + 5.0
        while self.items_of_a() == 0:
            self.assertLess(time.monotonic(), deadline, "host A moves no samples")
            time.sleep(0.02)

    def test_foreign_stop_refused_then_dead_host_replaced(self):
        self.start_host_a(HOST_A, self.args)

        # A stranger: its STOP is refused with NOT_OWNER, nothing happens, nothing
        # crashes; it cannot read the ring's key either, but can see what is going on.
        self.assertEqual(self.stranger.write(RX_COMMAND, STOP), NOT_OWNER)
        self.assertEqual(self.stranger.read(RX_RKEY), (NOT_OWNER, []))
        self.assertEqual(self.stranger.read(RX_OWNER), (OKAY, [OWNER_OTHER]))
        status, words = self.stranger.read(RX_STATUS)
        self.assertEqual(status, OKAY)
        self.assertTrue(words[0] & RUNNING)
        before = self.items_of_a()
        time.sleep(0.3)
        self.assertGreater(self.items_of_a(), before + 100000, "A's stream stalled")
        self.assertIsNone(self.daemon.poll(), "the daemon died")

        # Host A dies without a word.
        self.host_a.kill()
        self.host_a.wait()
        killed = time.monotonic()

        # Host B, at once: the stream is still A's, and B is told so and what to do.
        b = rdma.rx_stream(self.args, "sc16", 1e6, 0)
        with self.assertRaisesRegex(RuntimeError,
                                    r"RX stream 0 is owned by another host; wait for its "
                                    r"lease \(%g s\) to lapse or add take_over=1" % LEASE):
            b.start()
        self.assertLess(time.monotonic() - killed, LEASE - 1.0, "B tried too late")

        # The lease lapses: the device stops A's stream by itself, and frees it.
        while self.stranger.read(RX_OWNER)[1] != [OWNER_FREE]:
            self.assertLess(time.monotonic() - killed, LEASE + 3.0, "the lease never lapsed")
            time.sleep(0.05)
        self.assertEqual(self.stranger.read(RX_STATUS)[1][0] & RUNNING, 0)

        # B takes the stream over and receives the ramp.
        b.start()
        got = 0
        deadline = time.monotonic() + 5.0
        while got < 100000 and time.monotonic() < deadline:
            x = b.recv(1 << 16, 0.1)
            got += len(x)
            b.release(len(x))
        self.assertGreaterEqual(got, 100000)
        self.assertEqual(self.stranger.read(RX_OWNER), (OKAY, [OWNER_OTHER]))
        b.stop()
        self.assertEqual(self.stranger.read(RX_OWNER), (OKAY, [OWNER_FREE]))
        self.assertEqual(self.stranger.read(RX_STATUS)[1][0] & RUNNING, 0)

    def test_tx_foreign_stop_refused_then_dead_host_replaced(self):
        args = ("type=remote,addr=127.0.0.1:%d,hugepages=off,latency=0.05,lease=%g"
                % (self.port, LEASE))
        self.start_host_a(HOST_A_TX, args)

        # A stranger: its STOP of the TX stream is refused and the device goes on
        # fetching A's samples; it cannot read the ring's key, but sees the owner.
        self.assertEqual(self.stranger.write(TX_COMMAND, STOP), NOT_OWNER)
        self.assertEqual(self.stranger.read(TX_RKEY), (NOT_OWNER, []))
        self.assertEqual(self.stranger.read(TX_OWNER), (OKAY, [OWNER_OTHER]))
        self.assertTrue(self.stranger.read(TX_STATUS)[1][0] & RUNNING)
        before = self.items_of_a()
        time.sleep(0.3)
        self.assertGreater(self.items_of_a(), before + 100000, "A's stream stalled")

        # Host A dies without a word; host B is told whose stream it is and what to do.
        self.host_a.kill()
        self.host_a.wait()
        killed = time.monotonic()
        b = rdma.tx_stream(args + ",tx_check=1", "sc16", 1e6)
        with self.assertRaisesRegex(RuntimeError,
                                    r"TX stream 0 is owned by another host; wait for its "
                                    r"lease \(%g s\) to lapse or add take_over=1" % LEASE):
            b.start()
        self.assertLess(time.monotonic() - killed, LEASE - 1.0, "B tried too late")

        # The lease lapses: the device stops A's run by itself, and frees the stream.
        while self.stranger.read(TX_OWNER)[1] != [OWNER_FREE]:
            self.assertLess(time.monotonic() - killed, LEASE + 3.0, "the lease never lapsed")
            time.sleep(0.05)
        self.assertEqual(self.stranger.read(TX_STATUS)[1][0] & RUNNING, 0)

        # B takes the stream and transmits the ramp, which arrives intact.
        b.start()
        self.assertEqual(self.stranger.read(TX_OWNER), (OKAY, [OWNER_OTHER]))
        done = 0
        while done < 300000:
            x = b.wait_space(1, 1.0)
            self.assertGreater(len(x), 0, b.error())
            n = min(len(x), 300000 - done)
            x[:n] = ramp_sc16(done, n)
            b.commit(n)
            done += n
        self.assertTrue(b.wait_played(2.0), "B's samples were not played")
        b.stop()
        self.assertEqual(self.stranger.read(TX_OWNER), (OKAY, [OWNER_FREE]))
        c = b.counts()
        self.assertTrue(c["final"] and c["identity_holds"], str(c))
        self.assertEqual(b.read_counters()["device.check_mismatches"], 0)
        self.assertGreater(c["played"], 0)

    def test_take_over_ends_the_other_hosts_run(self):
        # Two hosts: each its own view of the device (name=), as two processes have.
        a = rdma.rx_stream(self.args + ",name=host_a", "sc16", 1e6, 0)
        a.start()
        c = rdma.rx_stream(self.args + ",name=host_c,take_over=1", "sc16", 1e6, 0)
        c.start()
        got = 0
        deadline = time.monotonic() + 5.0
        while got < 50000 and time.monotonic() < deadline:
            x = c.recv(1 << 16, 0.1)
            got += len(x)
            c.release(len(x))
        self.assertGreaterEqual(got, 50000)
        a.stop()  # it lost the stream: a warning, not an error
        self.assertEqual(self.stranger.read(RX_OWNER), (OKAY, [OWNER_OTHER]))
        c.stop()

    def wait_owned(self):
        """Until a host owns RX stream 0 (its run started)."""
        deadline = time.monotonic() + 20
        while self.stranger.read(RX_OWNER) != (OKAY, [OWNER_OTHER]):
            self.assertLess(time.monotonic(), deadline, "nobody claimed RX stream 0")
            time.sleep(0.01)

    def gr_rdma_rx(self, extra, duration):
        """gr-rdma-rx on the daemon's RX stream 0, checked; returns it and an event set
        once its stream runs (its log line), its stderr kept in a list."""
        proc = subprocess.Popen([RX, "--args", self.args + extra, "--format", "sc16",
                                 "--rate", "2e6", "--duration", str(duration), "--check",
                                 "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        streaming, lines = threading.Event(), []

        def read():
            for line in proc.stderr:
                lines.append(line)
                if "RX stream 0" in line and "ring" in line:
                    streaming.set()
        threading.Thread(target=read, daemon=True).start()
        return proc, streaming, lines

    def test_gr_rdma_rx_taken_over_is_told_and_keeps_no_false_books(self):
        # The first host ran its whole 20 s once, reporting gaps, then took the taker's
        # counters for its own: "emitted 10000000 != delivered 16363520 + lost ...".
        a, a_streams, a_err = self.gr_rdma_rx(",name=host_a", 20)
        c = None
        try:
            self.assertTrue(a_streams.wait(20), "".join(a_err))
            self.wait_owned()
            time.sleep(0.5)
            taken = time.monotonic()
            c, _, c_err = self.gr_rdma_rx(",name=host_c,take_over=1", 1)
            out_c, _ = c.communicate(timeout=60)
            out_a, _ = a.communicate(timeout=30)
            ended = time.monotonic()
        finally:
            for p in (a, c):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.communicate()
        report = json.loads(out_a)
        self.assertEqual(a.returncode, 1, "".join(a_err))
        self.assertIn("another host's now", report["error"])
        self.assertEqual(report["failure"], report["error"])
        self.assertIsNone(report["identity_holds"])  # its counters are the taker's
        self.assertIn("another host", report["identity_unknown_because"])
        self.assertEqual(report["check"]["mismatches"], 0)
        self.assertLess(ended - taken, 19)  # told, not run to its end
        # The taker's run is whole and its own.
        taker = json.loads(out_c)
        self.assertEqual(c.returncode, 0, "".join(c_err))
        self.assertTrue(taker["identity_holds"])

    def test_gr_rdma_rx_refused_keeps_no_false_books(self):
        # A second host without take_over: once "FAILED: samples unaccounted for:
        # emitted 11807744 != delivered 0 + lost 0" (the owner's counter) and error null.
        a, a_streams, a_err = self.gr_rdma_rx(",name=host_a", 20)
        b = None
        try:
            self.assertTrue(a_streams.wait(20), "".join(a_err))
            self.wait_owned()
            b, _, b_err = self.gr_rdma_rx(",name=host_b", 1)
            out_b, _ = b.communicate(timeout=60)
            self.assertIsNone(a.poll(), "the owner's run ended")
        finally:
            for p in (a, b):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.communicate()
        report = json.loads(out_b)
        self.assertEqual(b.returncode, 1, "".join(b_err))
        self.assertIn("owned by another host", report["error"])
        self.assertIn("take_over=1", report["error"])
        self.assertIsNone(report["identity_holds"])
        self.assertEqual(report["samples_delivered"], 0)

    def test_gr_rdma_rx_stopped_past_its_lease_blames_itself(self):
        # Once: "device ... has not answered for 2755 ms", the device blamed for the
        # host's own pause. The device stopped the run and freed the stream because
        # this host said nothing for its lease (RX_STOP_CAUSE: lapsed), and the host
        # measured its own silence: it says so.
        a, a_streams, a_err = self.gr_rdma_rx(",name=host_a", 20)
        try:
            self.assertTrue(a_streams.wait(20), "".join(a_err))
            self.wait_owned()
            os.kill(a.pid, signal.SIGSTOP)
            time.sleep(LEASE + 1.5)
            os.kill(a.pid, signal.SIGCONT)
            out_a, _ = a.communicate(timeout=30)
        finally:
            if a.poll() is None:
                a.kill()
                a.communicate()
        report = json.loads(out_a)
        err = "".join(a_err)
        self.assertEqual(a.returncode, 1, err)
        self.assertIn("this host's watch went", report["error"])
        self.assertIn("longer than its ownership lease", report["error"])
        self.assertNotIn("has not answered", report["error"])
        self.assertNotIn("has not answered", err)


if __name__ == '__main__':
    gr_unittest.run(qa_ownership)
