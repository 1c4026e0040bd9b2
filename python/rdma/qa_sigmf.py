#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""SigMF recordings (docs/recording.md): gr-rdma-rx --sigmf against the emulator with
injected loss, rotation and a full disk; rdma.sigmf_sink in a flowgraph of tagged test
items; and the checker itself, which must refuse what breaks the specification."""

import calendar
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time

import numpy as np
import pmt

from gnuradio import blocks, gr, gr_unittest

from gnuradio.rdma import sigmf_check, sigmf_sink

APP = os.environ.get("GR_RDMA_RX", "gr-rdma-rx")


def meta_of(base):
    with open(base + ".sigmf-meta") as f:
        return json.load(f)


def datetime_of(time_ns):
    """ISO-8601 UTC with nanoseconds, as SigMF's core:datetime takes it."""
    seconds, ns = divmod(int(time_ns), 1000000000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%09dZ" % ns


def ns_of(stamp):
    """core:datetime (YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ) in ns since the epoch."""
    whole, frac = stamp.rstrip("Z").split(".")
    seconds = calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S"))
    return seconds * 10**9 + int(frac.ljust(9, "0"))


def items_of(base, itemsize):
    return os.path.getsize(base + ".sigmf-data") // itemsize


def rx_time(ns):
    return pmt.make_tuple(pmt.from_uint64(ns // 10**9), pmt.from_double((ns % 10**9) * 1e-9))


def tag(offset, key, value):
    t = gr.tag_t()
    t.offset, t.key, t.value = offset, pmt.intern(key), value
    return t


def report(kind, cause, first, count):
    d = pmt.make_dict()
    for k, v in (("type", pmt.intern(kind)), ("cause", pmt.intern(cause)),
                 ("first_sample", pmt.from_uint64(first)), ("count", pmt.from_uint64(count)),
                 ("device_sample", pmt.from_uint64(first))):
        d = pmt.dict_add(d, pmt.intern(k), v)
    return pmt.cons(pmt.intern("rdma_rx_event"), d)


class qa_sigmf(gr_unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_sigmf-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_app(self, *args, **kw):
        return subprocess.run([APP, *args], capture_output=True, text=True, timeout=120,
                              **kw)

    def assert_valid(self, base):
        problems = sigmf_check.check(base)
        self.assertEqual(problems, [], base)

    # -- gr-rdma-rx --sigmf --------------------------------------------------------

    def test_recording_with_loss_matches_the_report(self):
        # The acceptance run: 10 s with 1 % of the messages lost. The recording is
        # valid SigMF and has one annotation per gap, exactly where the report says.
        # Paced by the consumer (a test mode, docs/device-args.md): the injected loss
        # is all that is lost, however busy the machine is.
        base = os.path.join(self.dir, "loss")
        proc = self.run_app("--args", "type=emu,signal=ramp,loss=0.01,device_timeout=5,"
                            "emu_pace=consumer",
                            "--format", "sc16",
                            "--rate", "1e6", "--duration", "10", "--sigmf", base,
                            "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rep = json.loads(proc.stdout)
        self.assert_valid(base)
        meta = meta_of(base)
        glob = meta["global"]
        self.assertEqual(glob["core:datatype"], "ci16_le")
        self.assertEqual(glob["core:sample_rate"], 1e6)
        self.assertEqual(glob["core:version"], "1.2.0")
        self.assertEqual(glob["core:recorder"], "gr-rdma-rx")
        self.assertIn("core:hw", glob)
        self.assertEqual([e["name"] for e in glob["core:extensions"]], ["rdma"])
        self.assertEqual(items_of(base, 4), rep["items_through_flowgraph"])
        self.assertEqual(items_of(base, 4), 10**7)
        capture = meta["captures"][0]
        self.assertEqual(capture["core:sample_start"], 0)
        self.assertEqual(capture["core:global_index"], 0)
        self.assertRegex(capture["core:datetime"], r"^\d{4}-\d\d-\d\dT[0-9:.]+Z$")

        self.assertGreater(rep["gaps"], 20, "too few gaps to test anything")
        self.assertEqual(rep["gap_ranges_dropped"], 0)
        gaps = [[a["core:sample_start"], a["rdma:lost"]] for a in meta["annotations"]
                if a["rdma:type"] == "gap"]
        self.assertEqual(len(gaps), rep["gaps"])
        self.assertEqual(gaps, sorted(rep["gap_ranges"]))
        for a in meta["annotations"]:
            self.assertEqual(a["core:label"], a["rdma:type"])
            self.assertIn(a["rdma:cause"], a["core:comment"])
            if a["rdma:type"] == "gap":
                self.assertEqual(a["core:sample_count"], a["rdma:lost"])
        # The zeros the annotations name are zeros in the file; the ramp elsewhere.
        data = np.fromfile(base + ".sigmf-data", dtype=np.uint32)
        for start, count in gaps[:50]:
            self.assertFalse(data[start:start + count].any())
            if start + count < len(data):
                self.assertEqual(data[start + count], start + count)

    def test_sc8_recording_is_ci8(self):
        # sc8 on the wire and in the file: SigMF's ci8, two bytes an item, the ramp's
        # item being its index mod 2^16. Paced: every item recorded, however busy the
        # machine.
        base = os.path.join(self.dir, "sc8")
        proc = self.run_app("--args", "type=emu,signal=ramp,emu_pace=consumer",
                            "--format", "sc8",
                            "--rate", "1e6", "--samples", "300000", "--sigmf", base,
                            "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_valid(base)
        self.assertEqual(meta_of(base)["global"]["core:datatype"], "ci8")
        self.assertEqual(items_of(base, 2), 300000)
        data = np.fromfile(base + ".sigmf-data", dtype="<u2")
        self.assertTrue(np.array_equal(data, np.arange(300000) % 65536))

    def test_freq_is_the_frequency_the_device_reports(self):
        # --freq tunes the stream's RF channel before the run: the recording's
        # core:frequency is what the device reads back (the report's center_freq),
        # here what was asked (the emulator tunes in 1 Hz steps from 70 MHz to 6 GHz).
        base = os.path.join(self.dir, "tuned")
        proc = self.run_app("--args", "type=emu,signal=tone", "--freq", "100.1e6",
                            "--gain", "10", "--rate", "1e6", "--samples", "200000",
                            "--sigmf", base, "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rep = json.loads(proc.stdout)
        self.assert_valid(base)
        captures = meta_of(base)["captures"]
        self.assertEqual(len(captures), 1)
        self.assertEqual(rep["center_freq"], 100.1e6)
        self.assertEqual(captures[0]["core:frequency"], rep["center_freq"])
        self.assertEqual(rep["gain"], 10)
        # Beyond the range: clipped by the device, with a warning, and recorded as set.
        proc = self.run_app("--args", "type=emu,signal=tone", "--freq", "1e12",
                            "--rate", "1e6", "--samples", "100000", "--sigmf", base,
                            "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rep = json.loads(proc.stdout)
        self.assertEqual(rep["center_freq"], 6e9)
        self.assertRegex(proc.stderr, r"warning: RF channel 0: center frequency .* "
                         r"1000000000000 requested, 6000000000 set")
        self.assert_valid(base)
        self.assertEqual(meta_of(base)["captures"][0]["core:frequency"], 6e9)
        # A device without an RF front end cannot be tuned: a configuration error.
        proc = self.run_app("--args", "type=null", "--freq", "100e6", "--duration", "1")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("no RF front end", proc.stderr)

    def test_rotation_adds_up_to_the_delivered_count(self):
        base = os.path.join(self.dir, "rot")
        proc = self.run_app("--args", "type=emu,signal=ramp,device_timeout=5",
                            "--format", "sc16",
                            "--rate", "1e6", "--duration", "3", "--sigmf", base,
                            "--rotate-size", "1000000", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rep = json.loads(proc.stdout)
        parts = rep["recordings"]
        self.assertGreaterEqual(len(parts), 10)
        self.assertEqual(parts[0], base + "-0000")
        total = 0
        for i, part in enumerate(parts):
            self.assert_valid(part)
            meta = meta_of(part)
            self.assertEqual(meta["global"]["rdma:part"], i)
            capture = meta["captures"][0]
            self.assertEqual(capture["core:sample_start"], 0)
            self.assertEqual(capture["core:global_index"], total)
            # Each part starts where the previous ended: the ramp is the item index.
            first = np.fromfile(part + ".sigmf-data", dtype=np.uint32, count=1)
            if len(first) and not rep["lost_by_cause"]["overrun_skipped"]:
                self.assertEqual(int(first[0]), total)
            if i and not rep["lost_by_cause"]["overrun_skipped"]:
                # Its time follows from the first part's at the rate, to the ns.
                t0 = meta_of(parts[0])["captures"][0]["core:datetime"]
                self.assertEqual(ns_of(capture["core:datetime"]) - ns_of(t0),
                                 total * 1000)
            total += items_of(part, 4)
            if i < len(parts) - 1:
                # Rotated once it held the size: a work() call's worth more at most.
                self.assertGreaterEqual(os.path.getsize(part + ".sigmf-data"), 1000000)
        # Every item handed out is in one file: delivered, or zeros of a gap, or
        # overwritten while unread (a loaded machine may lose some).
        self.assertEqual(total, rep["items_through_flowgraph"])
        self.assertEqual(total, rep["samples_delivered"] + rep["lost_by_cause"]["gap"]
                         + rep["lost_by_cause"]["overrun_overwritten"])
        self.assertEqual(total + rep["lost_by_cause"]["overrun_skipped"], 3 * 10**6)

    def test_rotation_by_seconds(self):
        base = os.path.join(self.dir, "sec")
        # Paced by the consumer: every sample of the run is in a file.
        proc = self.run_app("--args", "type=emu,signal=ramp,emu_pace=consumer",
                            "--format", "sc16", "--rate", "1e6", "--duration", "2.5",
                            "--sigmf", base, "--rotate-seconds", "1", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        parts = json.loads(proc.stdout)["recordings"]
        self.assertEqual(len(parts), 3)
        for part in parts:
            self.assert_valid(part)
        self.assertGreaterEqual(items_of(parts[0], 4), 10**6)
        self.assertEqual(sum(items_of(p, 4) for p in parts), 2500000)

    def test_rotate_needs_sigmf(self):
        proc = self.run_app("--rotate-size", "1000", "--duration", "0.1")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--rotate-size", proc.stderr)
        self.assertIn("--sigmf", proc.stderr)

    def test_full_disk_is_a_clear_error_with_a_valid_meta(self):
        # A file size limit of 3 MB (Python, the parent, ignores SIGXFSZ, and so the
        # child: writes beyond it fail with EFBIG, as on a full disk).
        limit = 3000000 + 2
        base = os.path.join(self.dir, "full")

        def cap():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        started = time.monotonic()
        proc = self.run_app("--format", "sc16", "--rate", "2e6", "--duration", "20",
                            "--sigmf", base, "--json", preexec_fn=cap)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertLess(time.monotonic() - started, 15, "the run went on")
        self.assertNotIn("Traceback", proc.stderr)
        self.assertIn("disk is full", proc.stderr)
        self.assertIn(base + ".sigmf-data", proc.stderr)
        rep = json.loads(proc.stdout)
        self.assertIn("disk is full", rep["recording_error"])
        self.assertTrue(rep["failure"].startswith("recording: "))
        self.assert_valid(base)
        size = os.path.getsize(base + ".sigmf-data")
        self.assertEqual(size, limit - limit % 4)
        self.assertIn("disk is full", meta_of(base)["global"]["rdma:error"])

    def test_full_tmpfs(self):
        # A real full disk: a 2 MiB tmpfs (needs the right to mount: root in CI).
        mnt = os.path.join(self.dir, "tmpfs")
        os.mkdir(mnt)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt],
                          capture_output=True).returncode != 0:
            self.skipTest("cannot mount a tmpfs here")
        try:
            base = os.path.join(mnt, "r")
            proc = self.run_app("--format", "sc16", "--rate", "1e6", "--duration", "10",
                                "--sigmf", base, "--json")
            self.assertEqual(proc.returncode, 1, proc.stderr)
            rep = json.loads(proc.stdout)
            self.assertIn("disk is full", rep["recording_error"])
            self.assertIn("0 bytes free", rep["recording_error"])
            self.assert_valid(base)
            self.assertGreater(items_of(base, 4), 0)
        finally:
            subprocess.run(["umount", mnt], capture_output=True)

    def test_data_on_dev_full(self):
        # The data file is /dev/full: nothing can be written, and the meta says so.
        base = os.path.join(self.dir, "devfull")
        os.symlink("/dev/full", base + ".sigmf-data")
        proc = self.run_app("--format", "sc16", "--rate", "1e6", "--duration", "5",
                            "--sigmf", base, "--json")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("disk is full", json.loads(proc.stdout)["recording_error"])
        meta = meta_of(base)
        self.assertEqual(sigmf_check.check_meta(meta, 0), [])
        self.assertIn("rdma:error", meta["global"])

    # -- rdma.sigmf_sink in a flowgraph -------------------------------------------

    def run_sink(self, n, tags, reports, **kw):
        base = os.path.join(self.dir, "sink")
        tb = gr.top_block()
        src = blocks.vector_source_c(np.zeros(n, dtype=np.complex64), False, 1, tags)
        sink = sigmf_sink(base, "fc32", 1e6, hw="test", **kw)
        tb.connect(src, sink)
        # The reports on the "events" port, queued before the flowgraph starts: the
        # block's thread handles them before its first work(), so that all are there.
        for r in reports:
            sink._post(pmt.intern("events"), r)
        tb.run()
        sink.finish()
        return base, sink

    def test_captures_follow_time_rate_and_frequency(self):
        t0 = 1700000000 * 10**9 + 123456789
        tags = [tag(0, "rx_time", rx_time(t0)), tag(0, "rx_rate", pmt.from_double(1e6)),
                tag(0, "rx_freq", pmt.from_double(100e6)),
                # a gap's re-tag on the timeline: no new capture
                tag(1000, "rx_time", rx_time(t0 + 1000 * 1000)),
                # a retune
                tag(2000, "rx_freq", pmt.from_double(101e6)),
                # an overrun skipped 5000 samples: the time leaps
                tag(3000, "rx_time", rx_time(t0 + 8000 * 1000)),
                # a rate change
                tag(4000, "rx_rate", pmt.from_double(2e6)),
                tag(4000, "rx_time", rx_time(t0 + 9000 * 1000))]
        # Reports out of order (an overwrite is reported after later gaps).
        reports = [report("gap", "packet_lost", 900, 100),
                   report("overrun", "skipped", 3000, 5000),
                   report("overrun", "overwritten", 500, 64)]
        base, sink = self.run_sink(5000, tags, reports)
        self.assertIsNone(sink.error())
        self.assert_valid(base)
        meta = meta_of(base)
        caps = meta["captures"]
        self.assertEqual([c["core:sample_start"] for c in caps], [0, 2000, 3000, 4000])
        self.assertEqual([c["core:global_index"] for c in caps], [0, 2000, 3000, 4000])
        self.assertEqual(caps[0]["core:datetime"], datetime_of(t0))
        self.assertEqual(caps[0]["core:datetime"], "2023-11-14T22:13:20.123456789Z")
        self.assertEqual(caps[1]["core:datetime"], datetime_of(t0 + 2000 * 1000))
        self.assertEqual([c.get("core:frequency") for c in caps],
                         [100e6, 101e6, 101e6, 101e6])
        self.assertEqual(caps[2]["core:datetime"], datetime_of(t0 + 8000 * 1000))
        self.assertEqual([c["rdma:sample_rate"] for c in caps], [1e6, 1e6, 1e6, 2e6])
        notes = meta["annotations"]
        self.assertEqual([(a["core:sample_start"], a["core:sample_count"], a["rdma:cause"])
                          for a in notes],
                         [(500, 64, "overwritten"), (900, 100, "packet_lost"),
                          (3000, 1, "skipped")])
        self.assertEqual(notes[2]["rdma:lost"], 5000)

    def test_annotations_are_capped_and_counted(self):
        reports = [report("gap", "packet_lost", i, 1) for i in range(0, 100, 2)]
        base, sink = self.run_sink(1000, [], reports, max_annotations=10)
        self.assert_valid(base)
        meta = meta_of(base)
        self.assertEqual(len(meta["annotations"]), 10)
        self.assertEqual(meta["global"]["rdma:annotations_dropped"], 40)

    def test_annotations_past_the_data_are_left_out(self):
        base, _ = self.run_sink(100, [], [report("gap", "packet_lost", 90, 20),
                                          report("gap", "packet_lost", 150, 5)])
        self.assert_valid(base)
        notes = meta_of(base)["annotations"]
        self.assertEqual([(a["core:sample_start"], a["core:sample_count"]) for a in notes],
                         [(90, 10)])

    def test_rotation_is_exact_and_splits_annotations(self):
        # 2500 items, 1000 a file (8000 bytes of fc32): exactly 1000, 1000, 500, no
        # empty file after; a gap across the first boundary in both files, split.
        t0 = 1700000000 * 10**9
        tags = [tag(0, "rx_time", rx_time(t0)), tag(0, "rx_freq", pmt.from_double(1e8))]
        base, sink = self.run_sink(2500, tags, [report("gap", "packet_lost", 990, 20)],
                                   rotate_size=8000)
        parts = sink.recordings()
        self.assertEqual(parts, [base + "-%04d" % i for i in range(3)])
        self.assertEqual([items_of(p, 8) for p in parts], [1000, 1000, 500])
        for i, part in enumerate(parts):
            self.assert_valid(part)
            meta = meta_of(part)
            self.assertEqual(meta["global"]["rdma:part"], i)
            cap = meta["captures"][0]
            self.assertEqual((cap["core:global_index"], cap["core:frequency"]),
                             (1000 * i, 1e8))
            self.assertEqual(cap["core:datetime"], datetime_of(t0 + 1000 * i * 1000))
        first, second = (meta_of(p)["annotations"] for p in parts[:2])
        self.assertEqual([(a["core:sample_start"], a["core:sample_count"], a["rdma:split"])
                          for a in first + second], [(990, 10, True), (0, 10, True)])
        self.assertEqual(meta_of(parts[2])["annotations"], [])

    def test_refuses_bad_parameters(self):
        with self.assertRaisesRegex(ValueError, "format='s8'"):
            sigmf_sink(os.path.join(self.dir, "x"), "s8")
        with self.assertRaisesRegex(ValueError, "does not exist"):
            sigmf_sink(os.path.join(self.dir, "no", "such", "dir"), "fc32")

    def test_grc_block_makes_the_block(self):
        # The GRC template, rendered as GRC does (Mako) with the defaults, builds it.
        import types
        import yaml
        from mako.template import Template
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "grc", "rdma_sigmf_sink.block.yml")) as f:
            block = yaml.safe_load(f)
        params = {p["id"]: p["default"] for p in block["parameters"]}
        params.update(path=repr(os.path.join(self.dir, "grc")), sample_rate="1e6",
                      hw="''", description="'a test'")
        for kind in ("fc32", "sc16"):
            params["type"] = types.SimpleNamespace(type=kind)
            make = Template(block["templates"]["make"]).render(**params)
            from gnuradio import rdma
            sink = eval(make, {"rdma": rdma})
            want = {"fc32": "cf32_le", "sc16": "ci16_le"}[kind]
            self.assertEqual(sink.datatype(), want)
            self.assertEqual(meta_of(os.path.join(self.dir, "grc"))["global"]
                             ["core:datatype"], want)
            del sink
        self.assertEqual(meta_of(os.path.join(self.dir, "grc"))["global"]
                         ["core:description"], "a test")

    # -- the checker ---------------------------------------------------------------

    def test_checker_refuses_what_breaks_the_rules(self):
        good = {"global": {"core:datatype": "ci16_le", "core:version": "1.2.0",
                           "core:sample_rate": 1e6,
                           "core:extensions": [{"name": "rdma", "version": "1.0.0",
                                                "optional": True}]},
                "captures": [{"core:sample_start": 0, "core:global_index": 0,
                              "core:datetime": "2026-01-02T03:04:05.123456789Z"},
                             {"core:sample_start": 10, "core:global_index": 10}],
                "annotations": [{"core:sample_start": 1, "core:sample_count": 2,
                                 "rdma:cause": "x"}]}
        self.assertEqual(sigmf_check.check_meta(good, 400), [])

        def broken(change, data_bytes=400):
            meta = json.loads(json.dumps(good))
            change(meta)
            return sigmf_check.check_meta(meta, data_bytes)
        cases = {
            "core:datatype is required": lambda m: m["global"].pop("core:datatype"),
            "ci16": lambda m: m["global"].update({"core:datatype": "ci16"}),
            "cx16_le": lambda m: m["global"].update({"core:datatype": "cx16_le"}),
            "core:version": lambda m: m["global"].update({"core:version": "v1.2"}),
            "captures not sorted": lambda m: m["captures"].reverse(),
            "global_index decreases":
                lambda m: m["captures"][1].update({"core:global_index": 0}) or
                m["captures"][0].update({"core:global_index": 5}),
            "not ISO-8601":
                lambda m: m["captures"][0].update({"core:datetime": "2026-01-02 03:04"}),
            "no date":
                lambda m: m["captures"][0].update({"core:datetime": "2026-13-02T03:04:05Z"}),
            "not a positive integer":
                lambda m: m["annotations"][0].update({"core:sample_count": 0}),
            "annotations not sorted": lambda m: m["annotations"].extend(
                [{"core:sample_start": 5}, {"core:sample_start": 4}]),
            "does not declare": lambda m: m["global"].pop("core:extensions"),
            "past the dataset":
                lambda m: m["annotations"][0].update({"core:sample_count": 200}),
            "'annotations' is missing": lambda m: m.pop("annotations"),
            "core:sample_rate": lambda m: m["global"].update({"core:sample_rate": -1}),
        }
        for says, change in cases.items():
            problems = broken(change)
            self.assertTrue(any(says in p for p in problems), "%s: %r" % (says, problems))
        self.assertTrue(any("whole number" in p for p in broken(lambda m: None, 402)))

    def test_checker_cli(self):
        base = os.path.join(self.dir, "cli")
        with open(base + ".sigmf-data", "wb") as f:
            f.write(b"\0" * 8)
        with open(base + ".sigmf-meta", "w") as f:
            json.dump({"global": {"core:datatype": "cf32_le", "core:version": "1.2.0"},
                       "captures": [{"core:sample_start": 0}], "annotations": []}, f)
        env = dict(os.environ)
        cmd = ["/usr/bin/python3", "-m", "gnuradio.rdma.sigmf_check", base]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("valid", proc.stdout)
        with open(base + ".sigmf-data", "ab") as f:
            f.write(b"\0")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("whole number", proc.stdout)


if __name__ == '__main__':
    gr_unittest.run(qa_sigmf)
