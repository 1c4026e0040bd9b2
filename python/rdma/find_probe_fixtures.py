#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What the gr-rdma-find and gr-rdma-probe suites share (qa_find, qa_find_probe):
emulator daemons started and stopped, the tools run, AXIoE spoken here without the
tools (fake devices, a recording proxy, a client of its own), and two daemons told
apart by port, serial and stream count for each test."""

import os
import select
import socket
import struct
import subprocess
import threading


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
                   "BURST_QUEUE", "TX_BURSTS", "MULTI_LINK", "SHARES", "RATE_CONTROL",
                   "LINKS_CONTINUE", "RC_LINKS", "STOP_CAUSE"]
ID_VERSION, ID_CAPABILITIES = 0x004, 0x008


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*argv):
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def start_daemon(*argv):
    """A gr-rdma-emu, once its AXIoE server listens (it says so on stdout). Its port is
    daemon.port, as the banner names it: give it "--control 127.0.0.1:0" and it binds
    a free one itself (a port found free and then given to it can be taken meanwhile by
    a test running beside, under ctest -j)."""
    daemon = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    banner = daemon.stdout.readline()
    if "AXIoE on" not in banner:
        daemon.kill()
        raise AssertionError("gr-rdma-emu did not start: %r %r"
                             % (banner, daemon.communicate()[1]))
    daemon.port = int(banner.split("AXIoE on ")[1].split(",")[0].rsplit(":", 1)[1])
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


class two_daemons:
    """Mixed into a gr_unittest.TestCase: two daemons for each test, and the check
    of a usage error."""

    def setUp(self):
        # Two daemons, told apart by port, serial and stream count.
        self.a = start_daemon(EMU, "--control", "127.0.0.1:0", "--link", "127.0.0.1",
                              "--serial", "0xA11CE", "--streams", "3")
        self.addCleanup(stop_daemon, self.a)
        self.b = start_daemon(EMU, "--control", "127.0.0.1:0", "--link", "127.0.0.1",
                              "--serial", "0xB0B")
        self.addCleanup(stop_daemon, self.b)
        self.port_a, self.port_b = self.a.port, self.b.port
        self.addr_a = "127.0.0.1:%d" % self.port_a
        self.addr_b = "127.0.0.1:%d" % self.port_b

    def assert_usage_error(self, proc, flag, what):
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(proc.returncode, 2, "%s: %r" % (what, proc.stderr))
        self.assertEqual(len(lines), 1, "%s: not one line: %r" % (what, proc.stderr))
        self.assertIn(flag, lines[0], what)
        self.assertEqual(proc.stdout, "", what)
