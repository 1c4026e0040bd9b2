#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""gr-rdma-find against emulator daemons (docs/find-probe.md): it lists the daemons
that answer, directly or by broadcast, and nothing else. gr-rdma-probe is
qa_find_probe's."""

import json
import os
import shutil
import time

from gnuradio import gr_unittest

from find_probe_fixtures import (
    EMU, FIND, fake_device, free_udp_port, identity_of, run, start_daemon, stop_daemon,
    two_daemons)


class qa_find(two_daemons, gr_unittest.TestCase):

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
    gr_unittest.run(qa_find, verbosity=2)
