#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gr-rdma-find and gr-rdma-probe against emulator daemons (docs/find-probe.md): find
lists the daemons that answer, directly or by broadcast, and nothing else; probe shows
what a daemon says about itself and changes nothing on it."""

import json
import os
import select
import shutil
import socket
import struct
import subprocess
import threading
import time

from gnuradio import gr_unittest
from gnuradio import rdma

EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
FIND = os.environ.get("GR_RDMA_FIND", "gr-rdma-find")
PROBE = os.environ.get("GR_RDMA_PROBE", "gr-rdma-probe")

HEADER = ">HBBIIHBB"  # magic, version, opcode, sequence, address, count, status, reserved
MAGIC, READ, WRITE, RESPONSE = 0xAE10, 0x01, 0x02, 0x80
OKAY, DECERR, NOT_OWNER = 0x00, 0x03, 0x12
RX_OWNER, OWNER_OTHER = 0x2078, 2
EMU_EXTENSION = 0xF000
RX_STRIDE, RX_OWNER_TOKEN = 0x100, 0x2070
EMU_LINK_DOWN, EMU_LINK_STRIDE = 0xE400, 0x40
# ID_CAPABILITIES bit names, as docs/register-map.md and docs/radio.md spell them.
CAPABILITY_BITS = ["RX_UC", "RX_RC", "TX", "IMMEDIATE", "CLOCK", "METADATA", "EMULATOR",
                   "LOSS_INJECTION", "OWNERSHIP", "RF", "TIME_SET", "COMMAND_QUEUE",
                   "BURST_QUEUE", "TX_BURSTS", "MULTI_LINK", "SHARES", "RATE_CONTROL"]
ID_VERSION, ID_CAPABILITIES = 0x004, 0x008


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*argv):
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def start_daemon(*argv):
    """A gr-rdma-emu, once its AXIoE server listens (it says so on stdout)."""
    daemon = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    banner = daemon.stdout.readline()
    if "AXIoE on" not in banner:
        daemon.kill()
        raise AssertionError("gr-rdma-emu did not start: %r %r"
                             % (banner, daemon.communicate()[1]))
    return daemon


def stop_daemon(daemon):
    if daemon.poll() is None:
        daemon.terminate()
    try:
        daemon.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.communicate()


class udp_thread:
    """A UDP socket on loopback served by a thread until close()."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.stopping = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stopping:
            ready, _, _ = select.select(self.sockets(), [], [], 0.05)
            for s in ready:
                data, peer = s.recvfrom(4096)
                self.on_datagram(s, data, peer)

    def sockets(self):
        return [self.sock]

    def close(self):
        self.stopping = True
        self.thread.join()
        for s in self.sockets():
            s.close()


class fake_device(udp_thread):
    """Answers every AXIoE request as no gr-rdma device does: with a wrong ID_MAGIC,
    with DECERR, or with bytes that are not AXIoE at all."""

    def __init__(self, mode):
        self.mode = mode
        super().__init__()

    def on_datagram(self, s, data, peer):
        if len(data) < 16:
            return
        _, _, opcode, sequence, address, count, _, _ = struct.unpack(HEADER, data[:16])
        if self.mode == "garbage":
            s.sendto(b"hello, not AXIoE", peer)
            return
        status = DECERR if self.mode == "decerr" else OKAY
        answer = struct.pack(HEADER, MAGIC, 1, opcode | RESPONSE, sequence, address, count,
                             status, 0)
        if status == OKAY:
            answer += struct.pack(">%dI" % count, *([0x12345678] + [0] * (count - 1)))
        s.sendto(answer, peer)


class recording_proxy(udp_thread):
    """Relays AXIoE between a client and a daemon, keeping each request's opcode and
    address: what the client did to the device, datagram by datagram."""

    def __init__(self, device_port):
        self.device = ("127.0.0.1", device_port)
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.back.bind(("127.0.0.1", 0))
        self.client = None
        self.requests = []
        super().__init__()

    def sockets(self):
        return [self.sock, self.back]

    def on_datagram(self, s, data, peer):
        if s is self.sock:
            self.client = peer
            _, _, opcode, _, address, count, _, _ = struct.unpack(HEADER, data[:16])
            self.requests.append((opcode, address, count))
            self.back.sendto(data, self.device)
        elif self.client is not None:
            self.sock.sendto(data, self.client)


def read_word(port, address):
    """One AXIoE READ from a client of its own: (status, word or None)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.05)
        sequence = int.from_bytes(os.urandom(4), "big")
        request = struct.pack(HEADER, MAGIC, 1, READ, sequence, address, 1, 0, 0)
        for _ in range(20):
            s.sendto(request, ("127.0.0.1", port))
            try:
                answer = s.recv(2048)
            except socket.timeout:
                continue
            header = struct.unpack(HEADER, answer[:16])
            if header[3] == sequence:
                word = struct.unpack(">I", answer[16:20])[0] if len(answer) >= 20 else None
                return header[6], word
    raise AssertionError("the daemon does not answer")


class axioe_client:
    """A client of its own (one socket: one AXIoE client to the device) that writes."""

    def __init__(self, port):
        self.device = ("127.0.0.1", port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(0.05)

    def close(self):
        self.sock.close()

    def write(self, address, *words):
        sequence = int.from_bytes(os.urandom(4), "big")
        request = (struct.pack(HEADER, MAGIC, 1, WRITE, sequence, address, len(words), 0,
                               0) + struct.pack(">%dI" % len(words), *words))
        for _ in range(20):
            self.sock.sendto(request, self.device)
            try:
                answer = self.sock.recv(2048)
            except socket.timeout:
                continue
            header = struct.unpack(HEADER, answer[:16])
            if header[3] == sequence:
                return header[6]
        raise AssertionError("the daemon does not answer")


def identity_of(port):
    """What the daemon says of itself, read here without the tools under test: its map
    version "major.minor" and its capabilities by name."""
    version = read_word(port, ID_VERSION)[1]
    caps = read_word(port, ID_CAPABILITIES)[1]
    names = [n for i, n in enumerate(CAPABILITY_BITS) if caps & (1 << i)]
    return "%d.%d" % (version >> 16, version & 0xFFFF), " ".join(names)


def unique_keys(pairs):
    """A JSON object whose keys are unique (json.loads keeps the last of a repeated key,
    silently)."""
    keys = [k for k, _ in pairs]
    repeated = sorted(set(k for k in keys if keys.count(k) > 1))
    if repeated:
        raise AssertionError("JSON object repeats key(s) %s" % repeated)
    return dict(pairs)


class qa_find_probe(gr_unittest.TestCase):

    def setUp(self):
        # Two daemons, told apart by port, serial and stream count.
        self.port_a, self.port_b = free_udp_port(), free_udp_port()
        self.a = start_daemon(EMU, "--control", "127.0.0.1:%d" % self.port_a, "--link",
                              "127.0.0.1", "--serial", "0xA11CE", "--streams", "3")
        self.addCleanup(stop_daemon, self.a)
        self.b = start_daemon(EMU, "--control", "127.0.0.1:%d" % self.port_b, "--link",
                              "127.0.0.1", "--serial", "0xB0B")
        self.addCleanup(stop_daemon, self.b)
        self.addr_a = "127.0.0.1:%d" % self.port_a
        self.addr_b = "127.0.0.1:%d" % self.port_b

    def assert_usage_error(self, proc, flag, what):
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(proc.returncode, 2, "%s: %r" % (what, proc.stderr))
        self.assertEqual(len(lines), 1, "%s: not one line: %r" % (what, proc.stderr))
        self.assertIn(flag, lines[0], what)
        self.assertEqual(proc.stdout, "", what)

    # ---- gr-rdma-find ------------------------------------------------------------

    def test_find_both_daemons(self):
        proc = run(FIND, "--addr", self.addr_a, "--addr", self.addr_b)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        blocks = proc.stdout.split("-- gr-rdma device ")[1:]
        self.assertEqual(len(blocks), 2, proc.stdout)
        # In the order asked, each with its own address, serial and streams.
        for block, addr, serial, streams in ((blocks[0], self.addr_a, "0xa11ce", 3),
                                             (blocks[1], self.addr_b, "0xb0b", 1)):
            self.assertIn("    type: emulator\n", block)
            self.assertIn("    addr: %s\n" % addr, block)
            self.assertIn("    serial: %s\n" % serial, block)
            self.assertIn("    map version: %s\n" % identity_of(self.port_a)[0], block)
            self.assertIn("    rx streams: %d\n" % streams, block)
            self.assertIn("    links: 1\n", block)

    def test_find_json(self):
        proc = run(FIND, "--addr", self.addr_b, "--addr", self.addr_a, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        devices = [json.loads(line) for line in proc.stdout.splitlines()]
        self.assertEqual([(d["addr"], d["serial"], d["rx_streams"]) for d in devices],
                         [(self.addr_b, "0xb0b", 1), (self.addr_a, "0xa11ce", 3)])
        for d in devices:
            self.assertEqual(d["type"], "emulator")
            self.assertEqual(d["map_version"], identity_of(self.port_a)[0])
            self.assertEqual(d["links"], 1)
            self.assertEqual(" ".join(d["capabilities"]), identity_of(self.port_a)[1])

    def test_find_default_address_and_port(self):
        # No --addr: 127.0.0.1, at --port (50100 unless told).
        proc = run(FIND, "--port", str(self.port_b), "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["addr"], self.addr_b)
        # --port also completes an --addr without one, wherever it stands.
        proc = run(FIND, "--addr", "127.0.0.1", "--port", str(self.port_a), "--json")
        self.assertEqual(json.loads(proc.stdout)["addr"], self.addr_a)

    def test_find_each_device_once(self):
        proc = run(FIND, "--addr", self.addr_a, "--addr", self.addr_a, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(proc.stdout.splitlines()), 1, proc.stdout)

    def test_find_dead_address(self):
        dead = "127.0.0.1:%d" % free_udp_port()
        start = time.monotonic()
        proc = run(FIND, "--addr", dead, "--wait", "0.3")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertNotIn(dead, proc.stderr, "said without -v")
        self.assertLess(time.monotonic() - start, 5)
        proc = run(FIND, "--addr", dead, "--wait", "0.3", "-v")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("%s (--addr): no answer within 0.3 s" % dead, proc.stderr)
        # Among live ones: they are listed, exit 0, and the dead one only with -v.
        proc = run(FIND, "--addr", dead, "--addr", self.addr_a, "--wait", "0.3")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("addr: " + self.addr_a, proc.stdout)
        self.assertNotIn(dead, proc.stdout + proc.stderr)

    def test_find_ignores_what_is_no_gr_rdma_device(self):
        for mode, says in (("bad_magic", "not a gr-rdma device (ID_MAGIC reads "
                                         "0x12345678"),
                           ("decerr", "answered DECERR"),
                           ("garbage", "not an AXIoE response")):
            fake = fake_device(mode)
            try:
                where = "127.0.0.1:%d" % fake.port
                proc = run(FIND, "--addr", where, "--wait", "0.3")
                self.assertEqual(proc.returncode, 1, mode)
                self.assertEqual(proc.stdout, "", mode)
                self.assertNotIn(where, proc.stderr, mode)
                proc = run(FIND, "--addr", where, "--addr", self.addr_b, "--wait", "0.3",
                           "-v")
                self.assertEqual(proc.returncode, 0, mode)
                self.assertEqual(proc.stdout.count("-- gr-rdma device"), 1, mode)
                self.assertIn(where, proc.stderr, mode)
                self.assertIn(says, proc.stderr, mode)
            finally:
                fake.close()

    def test_find_bad_flags(self):
        common = ["nan", "inf", "1e400", "-1", "abc", ""]
        table = {
            "--port": common + ["0", "65536", "1.5", "0x"],
            "--wait": common + ["0", "0.001", "61", "1e300"],
            "--addr": ["1.2.3", "127.0.0.1:0", "127.0.0.1:65536", "0.0.0.0", "",
                       "localhost", "127.0.0.1:nan"],
            "--broadcast": ["nosuchif0", "lo", ""],
        }
        for flag, values in table.items():
            for value in values:
                what = "gr-rdma-find %s %r" % (flag, value)
                proc = run(FIND, flag, value)
                self.assert_usage_error(proc, flag, what)
                self.assertIn("expected", proc.stderr, what)
        self.assert_usage_error(run(FIND, "--bogus"), "--bogus", "--bogus")
        self.assert_usage_error(run(FIND, "--addr"), "--addr needs a value", "--addr")
        self.assertIn("lo has none", run(FIND, "--broadcast", "lo").stderr)

    # ---- gr-rdma-probe -----------------------------------------------------------

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
                      "    events: 0\n    coalesced: 0\n    runs: 0\n    Stream 0\n"
                      "      rate limit: none\n      rate: none\n"
                      "      weights: 0:1 (destination:weight)\n", out)
        self.assertIn("    Stream 2\n", out)
        self.assertNotIn("Stream 3", out)

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
        self.assertEqual((ctrl["events"], ctrl["coalesced"], ctrl["runs"]), (0, 0, 0))
        self.assertEqual(ctrl["streams"], [{"index": 0, "rate_limit_bytes_per_s": 0,
                                            "rate_bytes_per_s": 0,
                                            "weights": [{"destination": 0, "weight": 1}]}])

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
        port = free_udp_port()
        daemon = start_daemon(EMU, "--control", "127.0.0.1:%d" % port, "--link",
                              "127.0.0.1", "--links", "2", "--streams", "2")
        self.addCleanup(stop_daemon, daemon)
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


NS_A, NS_B = "grfind%d-a" % os.getpid(), "grfind%d-b" % os.getpid()
IF_A, IF_B = "grfa%d" % (os.getpid() % 100000), "grfb%d" % (os.getpid() % 100000)
IP_A, IP_B = "198.51.100.1", "198.51.100.2"  # TEST-NET-2, inside the namespaces only


class qa_find_broadcast(gr_unittest.TestCase):
    """A device on another host, found by broadcast: two network namespaces joined by
    a veth pair, the daemon in one, gr-rdma-find in the other."""

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("needs root: creates network namespaces (ip netns add)")
        if shutil.which("ip") is None:
            self.skipTest("needs iproute2's ip to create network namespaces")
        for ns in (NS_A, NS_B):
            proc = run("ip", "netns", "add", ns)
            if proc.returncode != 0:
                self.skipTest("cannot create a network namespace: " + proc.stderr.strip())
            self.addCleanup(run, "ip", "netns", "del", ns)
        for cmd in (["link", "add", IF_A, "netns", NS_A, "type", "veth", "peer", "name",
                     IF_B, "netns", NS_B],
                    ["-n", NS_A, "addr", "add", IP_A + "/24", "dev", IF_A],
                    ["-n", NS_B, "addr", "add", IP_B + "/24", "dev", IF_B],
                    ["-n", NS_A, "link", "set", IF_A, "up"],
                    ["-n", NS_B, "link", "set", IF_B, "up"]):
            proc = run("ip", *cmd)
            if proc.returncode != 0:
                self.skipTest("cannot set up the veth pair (ip %s): %s"
                              % (" ".join(cmd), proc.stderr.strip()))

    def in_a(self, *argv):
        return ["ip", "netns", "exec", NS_A] + list(argv)

    def find_from_b(self, *argv):
        return run("ip", "netns", "exec", NS_B, FIND, *argv)

    def test_broadcast_finds_a_daemon_listening_on_the_wildcard(self):
        # The default port, 50100: the namespaces have their own.
        wildcard = start_daemon(*self.in_a(EMU, "--control", "0.0.0.0:50100", "--link",
                                           IP_A, "--serial", "0xFEED"))
        self.addCleanup(stop_daemon, wildcard)
        # One bound to the interface's address does not hear broadcasts (Linux
        # delivers them to sockets bound to the wildcard or the broadcast address).
        bound = start_daemon(*self.in_a(EMU, "--control", IP_A + ":50101", "--link", IP_A,
                                        "--serial", "0xBEEF"))
        self.addCleanup(stop_daemon, bound)

        proc = self.find_from_b("--broadcast", IF_B, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        devices = [json.loads(line) for line in proc.stdout.splitlines()]
        self.assertEqual([(d["addr"], d["serial"]) for d in devices],
                         [(IP_A + ":50100", "0xfeed")])
        # The broadcast address itself does as well as the interface's name.
        proc = self.find_from_b("--broadcast", "198.51.100.255", "-v")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("addr: %s:50100" % IP_A, proc.stdout)
        self.assertIn("broadcast to 198.51.100.255:50100", proc.stderr)

        proc = self.find_from_b("--broadcast", IF_B, "--port", "50101", "-v")
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("0 answer(s)", proc.stderr)
        proc = self.find_from_b("--addr", IP_A + ":50101", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["serial"], "0xbeef")


if __name__ == '__main__':
    # verbosity=2: a skipped broadcast test says why in the test log.
    gr_unittest.run(qa_find_probe, verbosity=2)
