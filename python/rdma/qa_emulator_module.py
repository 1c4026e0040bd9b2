#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""The emulator is a module (docs/architecture.md, "The emulator's module"): the
transport library holds none of it, a process loads it only when type=emu, type=null
or nic=null is asked for, and one that cannot find it says which package to install."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from gnuradio import gr_unittest

EMU = os.environ.get("GR_RDMA_EMU", "gr-rdma-emu")
MODULE = "libgnuradio-rdma-emulator.so"

# Run in a fresh interpreter: what this one loaded says nothing.
PROBE = r"""
import sys
from gnuradio import rdma

def loaded():
    return any(l.rstrip().endswith("/%s") for l in open("/proc/self/maps"))

print("@@ before", loaded())
for args in sys.argv[1:]:
    try:
        s = rdma.rx_stream(args, "sc16", 1e6, 1000)
        print("@@ opened", loaded())
        del s
    except Exception as e:
        print("@@ refused", loaded(), str(e).replace("\n", " "))
""" % MODULE


def probe(*args, env=None):
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                         text=True, timeout=120, env=env)
    # The lines it printed (GNU Radio's log may share stdout).
    return [l[3:] for l in out.stdout.splitlines() if l.startswith("@@ ")], out.stderr


def library_paths():
    """The transport library and the module this interpreter would load."""
    import gnuradio.rdma  # noqa: F401 (loads the transport library)
    out = subprocess.run(
        [sys.executable, "-c",
         "from gnuradio import rdma\n"
         "s = rdma.rx_stream('type=emu', 'sc16', 1e6, 1000)\n"
         "for l in open('/proc/self/maps'):\n"
         "    p = l.split()[-1]\n"
         "    if 'libgnuradio-rdma-' in p: print('@@', p)\n"],
        capture_output=True, text=True, timeout=120)
    paths = sorted(set(l[3:] for l in out.stdout.splitlines() if l.startswith("@@ ")))
    transport = [p for p in paths if "libgnuradio-rdma-transport.so" in p]
    module = [p for p in paths if p.endswith("/" + MODULE)]
    return transport, module, out.stderr


class qa_emulator_module(gr_unittest.TestCase):

    def test_the_transport_library_holds_no_emulator_code(self):
        transport, module, errors = library_paths()
        self.assertEqual(len(transport), 1, errors)
        self.assertEqual(len(module), 1, errors)
        # The module sits beside the library that loads it, in a versioned directory.
        self.assertRegex(module[0], r"/gr-rdma-modules-[0-9.]+/" + re.escape(MODULE) + "$")
        self.assertEqual(os.path.dirname(os.path.dirname(module[0])),
                         os.path.dirname(transport[0]))
        symbols = {}
        for path in transport + module:
            nm = subprocess.run(["nm", "-C", path], capture_output=True, text=True,
                                check=True).stdout
            symbols[path] = sum(1 for line in nm.splitlines()
                                if re.search(r"gr::rdma::(emu|standin)::", line))
        self.assertEqual(symbols[transport[0]], 0)
        self.assertGreater(symbols[module[0]], 100)  # nm reads this build's symbols

    def test_loaded_only_when_asked_for(self):
        daemon = subprocess.Popen([EMU, "--control", "127.0.0.1:0", "--link", "127.0.0.1"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            banner = daemon.stdout.readline()
            port = re.search(r"AXIoE on 127\.0\.0\.1:(\d+),", banner).group(1)
            remote = "type=remote,addr=127.0.0.1:%s" % port
            # A host of a remote device (the daemon links the emulator itself) never
            # loads the module; type=emu and type=null do.
            lines, errors = probe(remote)
            self.assertEqual(lines, ["before False", "opened False"], errors)
            lines, errors = probe(remote, "type=emu")
            self.assertEqual(lines, ["before False", "opened False", "opened True"], errors)
            lines, errors = probe("type=null,hugepages=off")
            self.assertEqual(lines, ["before False", "opened True"], errors)
            # A key of the emulator's with a remote device loads it to say whose key
            # it is, and refuses.
            lines, errors = probe(remote + ",wire=inproc")
            self.assertEqual(len(lines), 2, errors)
            self.assertRegex(lines[1], r"^refused True .*wire= belongs to type=emu")
        finally:
            daemon.kill()
            daemon.wait()

    def test_a_missing_module_names_the_package(self):
        with tempfile.TemporaryDirectory() as empty:
            env = dict(os.environ, GR_RDMA_MODULE_PATH=empty)
            lines, errors = probe("type=emu", env=env)
        self.assertEqual(len(lines), 2, errors)
        self.assertRegex(lines[1], r"^refused False device args: type=emu is invalid: "
                                   r"expected one of remote \(the module .*%s did not "
                                   r"load .*package gr-rdma-emulator.*GR_RDMA_MODULE_PATH"
                         % re.escape(MODULE))

    def test_the_module_path_is_followed(self):
        # GR_RDMA_MODULE_PATH names another directory: the module is loaded from there.
        transport, module, errors = library_paths()
        self.assertEqual(len(module), 1, errors)
        with tempfile.TemporaryDirectory() as other:
            shutil.copy(module[0], other)
            env = dict(os.environ, GR_RDMA_MODULE_PATH=other)
            out = subprocess.run(
                [sys.executable, "-c",
                 "from gnuradio import rdma\n"
                 "s = rdma.rx_stream('type=emu', 'sc16', 1e6, 1000)\n"
                 "print('@@', [l.split()[-1] for l in open('/proc/self/maps')"
                 " if l.rstrip().endswith('/%s')][0])\n" % MODULE],
                capture_output=True, text=True, timeout=120, env=env)
            found = [l[3:] for l in out.stdout.splitlines() if l.startswith("@@ ")]
            self.assertEqual(found, [os.path.join(other, MODULE)], out.stderr)


if __name__ == '__main__':
    gr_unittest.run(qa_emulator_module)
