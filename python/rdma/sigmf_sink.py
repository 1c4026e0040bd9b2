#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""rdma.sigmf_sink: a SigMF 1.2 recording of a stream, with its losses annotated.

GNU Radio's file_sink writes the samples (no Python touches them); a small block beside
it reads the stream's tags (rx_time, rx_rate, rx_freq) and takes rx_source's reports
(async_msgs) on its "events" port, and from those writes PATH.sigmf-meta. The layout,
the annotation keys, rotation and what happens when the disk fills: docs/recording.md.
"""

import datetime
import json
import os
import threading
import time

import numpy as np
import pmt

from gnuradio import blocks, gr

SIGMF_VERSION = "1.2.0"
EXTENSION = {"name": "rdma", "version": "1.0.0", "optional": True}
DATATYPES = {"sc16": ("ci16_le", 4), "fc32": ("cf32_le", 8), "sc8": ("ci8", 2)}
# A new capture starts where the device time leaps off the current capture's timeline
# (an overrun skipped samples, a re-armed run): by more than this, or half a sample.
TIME_LEAP_NS = 1000
# file_sink ends its thread when a write fails outright (ENOSPC, a device that refuses
# writes): items it has not taken for this long, while the stream went on, mean that.
STALL_S = 3.0


def datetime_of(time_ns):
    """ISO-8601 UTC with nanoseconds, as SigMF's core:datetime takes it."""
    seconds, ns = divmod(int(time_ns), 1000000000)
    stamp = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % ns


def time_ns_of(tag_value):
    """rx_time (uint64 seconds, double fraction) in ns."""
    seconds = pmt.to_uint64(pmt.tuple_ref(tag_value, 0))
    frac = pmt.to_double(pmt.tuple_ref(tag_value, 1))
    return seconds * 1000000000 + int(round(frac * 1e9))


class _segment:
    """Where one capture begins in the run (absolute item), and its timeline."""

    __slots__ = ("item", "time_ns", "rate", "freq")

    def __init__(self, item, time_ns, rate, freq):
        self.item, self.time_ns, self.rate, self.freq = item, time_ns, rate, freq

    def time_at(self, item):
        if self.time_ns is None:
            return None
        return self.time_ns + int(round((item - self.item) * 1e9 / self.rate))


class _recording:
    """One PATH.sigmf-data / PATH.sigmf-meta pair: its first item in the run, and its
    item count once it is closed (None while file_sink still writes it)."""

    def __init__(self, base, first_item, index):
        self.base, self.first_item, self.index = base, first_item, index
        self.items = None
        self.annotations_dropped = 0

    @property
    def data_path(self):
        return self.base + ".sigmf-data"

    @property
    def meta_path(self):
        return self.base + ".sigmf-meta"


class _meta_watcher(gr.sync_block):
    """Reads the tags of every item and the reports; never the samples."""

    def __init__(self, owner, dtype):
        gr.sync_block.__init__(self, "sigmf_meta_watcher", in_sig=[dtype], out_sig=None)
        self._owner = owner
        self.message_port_register_in(pmt.intern("events"))
        # The gateway calls a handler by its name on this block.
        self.set_msg_handler(pmt.intern("events"), self.handle_report)

    def handle_report(self, msg):
        self._owner._on_report(msg)

    def work(self, input_items, output_items):
        n = len(input_items[0])
        start = self.nitems_read(0)
        tags = self.get_tags_in_window(0, 0, n)
        self._owner._on_items(start, n, tags)
        return n

    def stop(self):
        # The flowgraph ends (GRC, tb.stop()): the meta as it stands. gr-rdma-rx calls
        # finish() again once every thread has stopped, for the last items.
        self._owner.finish()
        return True


class sigmf_sink(gr.hier_block2):
    """Record a stream as SigMF 1.2 (PATH.sigmf-data + PATH.sigmf-meta).

    Connect the stream to the input and rx_source's "async_msgs" to "events": every gap
    and overrun becomes an annotation; rx_time, rx_rate and rx_freq tags make the
    captures. rotate_size (bytes of data) and rotate_seconds (of samples) > 0 start a new
    pair PATH-0001, PATH-0002, ... (the first is PATH-0000) when the current one has
    reached them; each is a recording of its own. At most max_annotations annotations
    wait in memory; beyond them they are counted, not kept (rdma:annotations_dropped).
    """

    def __init__(self, path, format="fc32", sample_rate=1e6, hw="", recorder="gr-rdma",
                 description="", rotate_size=0, rotate_seconds=0.0,
                 max_annotations=100000):
        if format not in DATATYPES:
            raise ValueError("sigmf_sink: format=%r is invalid: expected sc16, fc32 or sc8"
                             % (format,))
        if not path:
            raise ValueError("sigmf_sink: path is empty: expected a path without the "
                             ".sigmf-data/.sigmf-meta extension")
        if not (sample_rate > 0):
            raise ValueError("sigmf_sink: sample_rate=%r is invalid: expected > 0"
                             % (sample_rate,))
        if rotate_size < 0 or rotate_seconds < 0:
            raise ValueError("sigmf_sink: rotate_size and rotate_seconds must be >= 0 "
                             "(0: no rotation)")
        if max_annotations < 1:
            raise ValueError("sigmf_sink: max_annotations=%r is invalid: expected >= 1"
                             % (max_annotations,))
        datatype, itemsize = DATATYPES[format]
        gr.hier_block2.__init__(self, "sigmf_sink",
                                gr.io_signature(1, 1, itemsize), gr.io_signature(0, 0, 0))
        self.message_port_register_hier_in("events")
        for suffix in (".sigmf-data", ".sigmf-meta"):
            if path.endswith(suffix):
                path = path[:-len(suffix)]
        self._path = path
        self._datatype, self._itemsize = datatype, itemsize
        self._rate = float(sample_rate)
        self._hw, self._recorder, self._description = hw, recorder, description
        self._rotate_items = 0
        if rotate_size:
            self._rotate_items = max(1, int(rotate_size) // itemsize)
        self._rotate_seconds = float(rotate_seconds)
        self._rotating = bool(rotate_size or rotate_seconds)
        self._max_annotations = int(max_annotations)
        self._lock = threading.RLock()
        self._log = gr.logger("sigmf_sink")
        self._error = None
        self._annotations = []  # (absolute item, count, dict), waiting for their file
        self._segments = [_segment(0, None, self._rate, None)]
        self._closed = []  # recordings whose meta is final
        self._items_seen = 0
        self._last_check = 0.0
        self._sink_progress = (0, time.monotonic())  # file_sink's items read, and when
        self._pending = None  # the next recording, while file_sink has not switched
        first = _recording(self._base(0), 0, 0)
        self._current = first
        self._ensure_directory(first.data_path)
        self._sink = blocks.file_sink(itemsize, first.data_path, False)
        # A flush per work(): the file's size on disk is what file_sink has written, so
        # a write the disk refused shows at once (file_sink itself drops it silently).
        self._sink.set_unbuffered(True)
        self._write_meta(first, final=False)
        self._watcher = _meta_watcher(
            self, {2: np.uint16, 4: np.uint32, 8: np.complex64}[itemsize])
        self.connect(self, self._sink)
        self.connect(self, self._watcher)
        self.msg_connect(self, "events", self._watcher, "events")

    # -- what the flowgraph tells us ------------------------------------------------

    def _on_items(self, start, n, tags):
        with self._lock:
            for tag in sorted(tags, key=lambda t: t.offset):
                self._on_tag(tag.offset, pmt.symbol_to_string(tag.key), tag.value)
            self._items_seen = start + n
            if self._error is None:
                self._check_disk()
                self._maybe_rotate()

    def _on_tag(self, item, key, value):
        last = self._segments[-1]
        if key == "rx_time":
            t = time_ns_of(value)
            if last.time_ns is None and last.item == item:
                last.time_ns = t
                return
            expected = last.time_at(item)
            leap = max(TIME_LEAP_NS, 0.5e9 / last.rate)
            if expected is not None and abs(t - expected) <= leap:
                return  # on the timeline: a gap's zeros kept it (re-tag after a gap)
            self._new_segment(item, time_ns=t)
        elif key == "rx_rate":
            rate = pmt.to_double(value)
            if rate > 0 and rate != last.rate:
                self._new_segment(item, rate=rate)
        elif key == "rx_freq":
            freq = pmt.to_double(value)
            if freq != last.freq:
                self._new_segment(item, freq=freq)

    def _new_segment(self, item, time_ns=None, rate=None, freq=None):
        last = self._segments[-1]
        seg = _segment(item, time_ns if time_ns is not None else last.time_at(item),
                       rate or last.rate, freq if freq is not None else last.freq)
        if last.item == item:
            # Several tags on one item (rx_time, rx_rate and rx_freq on item 0): one
            # capture; an rx_rate on the item of the rx_time keeps the tagged time.
            if time_ns is None:
                seg.time_ns = last.time_ns
            self._segments[-1] = seg
        else:
            self._segments.append(seg)
        if len(self._segments) == 1 and item == 0 and rate:
            self._rate = rate

    def _on_report(self, msg):
        try:
            report = pmt.to_python(pmt.cdr(msg))
        except Exception:  # not rx_source's shape: nothing to annotate
            return
        if not isinstance(report, dict) or report.get("type") not in ("gap", "overrun"):
            return
        first = int(report.get("first_sample", 0))
        count = int(report.get("count", 0))
        cause = str(report.get("cause", ""))
        kind = report["type"]
        skipped = kind == "overrun" and cause == "skipped"
        # Skipped samples never reached the host: not in the file. The annotation marks
        # the first sample after the leap; the others cover the items they name.
        span = 1 if skipped else max(1, count)
        if kind == "gap":
            text = "%d samples lost (%s): zeros in the recording" % (count, cause)
        elif skipped:
            text = ("%d samples skipped before this one (overrun: the reader fell a ring "
                    "behind); they are not in the recording" % count)
        else:
            text = "%d samples overwritten while unread (overrun, %s)" % (count, cause)
        note = {"core:label": kind, "core:comment": text, "rdma:type": kind,
                "rdma:cause": cause, "rdma:lost": count}
        if "device_sample" in report:
            note["rdma:device_sample"] = int(report["device_sample"])
        with self._lock:
            if len(self._annotations) >= self._max_annotations:
                self._current.annotations_dropped += 1
                return
            self._annotations.append((first, span, note))

    # -- rotation and the disk ---------------------------------------------------

    def _base(self, index):
        return "%s-%04d" % (self._path, index) if self._rotating else self._path

    @staticmethod
    def _ensure_directory(path):
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise ValueError("sigmf_sink: directory %s does not exist: create it or "
                             "choose another path" % directory)

    def _maybe_rotate(self):
        if not self._rotating:
            return
        if self._pending is not None:
            self._settle_switch()
            return
        cur = self._current
        # What file_sink has written (it may lag this block): it switches at its next
        # work(), so the file then holds at least the limit.
        held = self._sink.nitems_read(0) - cur.first_item
        limit = self._rotate_items
        if self._rotate_seconds:
            by_time = max(1, int(self._rotate_seconds * self._segments[-1].rate))
            limit = min(limit, by_time) if limit else by_time
        if held < limit:
            return
        nxt = _recording(self._base(cur.index + 1), None, cur.index + 1)
        self._pending = nxt
        # file_sink switches at its next work(); where is known from the old file's
        # size once the new one has data (_settle_switch).
        self._sink.open(nxt.data_path)

    def _settle_switch(self, final=False):
        nxt = self._pending
        try:
            new_size = os.path.getsize(nxt.data_path)
        except OSError:
            new_size = 0
        if new_size == 0 and not final:
            return
        cur = self._current
        cur.items = os.path.getsize(cur.data_path) // self._itemsize
        nxt.first_item = cur.first_item + cur.items
        self._close(cur)
        self._current, self._pending = nxt, None
        self._write_meta(nxt, final=False)

    def _check_disk(self):
        now = time.monotonic()
        if now - self._last_check < 0.05 or self._pending is not None:
            return
        self._last_check = now
        cur = self._current
        taken = self._sink.nitems_read(0)
        if taken != self._sink_progress[0]:
            self._sink_progress = (taken, now)
        stalled = (self._items_seen > taken
                   and now - self._sink_progress[1] >= STALL_S)
        # file_sink counts an item read once written and flushed: a file shorter than
        # that lost writes (EFBIG, ENOSPC after a partial write).
        written = taken - cur.first_item
        try:
            st = os.stat(cur.data_path)
        except OSError as e:
            self._fail("cannot stat the data file %s: %s" % (cur.data_path, e.strerror))
            return
        size = st.st_size if os.path.isfile(cur.data_path) else 0
        if size >= written * self._itemsize and not stalled:
            return
        free = "?"
        try:
            st = os.statvfs(cur.data_path)
            free = st.f_bavail * st.f_frsize
        except OSError:
            pass
        how = ("file_sink stopped taking items (its write failed; the log says how)"
               if stalled else "file_sink's writes fell short")
        self._fail("writing %s failed after %d bytes (%d samples): %s: the disk is full, "
                   "the file size limit reached or the file refuses writes (%s bytes "
                   "free); the recording ends there"
                   % (cur.data_path, size, size // self._itemsize, how, free))

    def _fail(self, why):
        self._error = why
        self._log.error(why)
        self._sink.close()  # no more writes to a file that cannot grow
        cur = self._current
        try:
            size = os.path.getsize(cur.data_path) if os.path.isfile(cur.data_path) else 0
            whole = size - size % self._itemsize
            if whole != size:  # a write cut inside a sample
                os.truncate(cur.data_path, whole)
            cur.items = whole // self._itemsize
        except OSError:
            cur.items = 0
        self._close(cur)

    # -- the meta file -----------------------------------------------------------

    def _close(self, rec):
        self._write_meta(rec, final=True)
        if rec not in self._closed:
            self._closed.append(rec)
        end = rec.first_item + rec.items
        # What the next file still needs: annotations past this one, and the capture
        # in effect at its first item.
        self._annotations = [a for a in self._annotations if a[0] + a[1] > end]
        while len(self._segments) > 1 and self._segments[1].item <= end:
            self._segments.pop(0)

    def _meta(self, rec, items):
        glob = {
            "core:datatype": self._datatype,
            "core:sample_rate": self._rate_at(rec.first_item or 0),
            "core:version": SIGMF_VERSION,
            "core:num_channels": 1,
            "core:recorder": self._recorder,
            "core:extensions": [dict(EXTENSION)],
        }
        if self._hw:
            glob["core:hw"] = self._hw
        if self._description:
            glob["core:description"] = self._description
        if self._rotating:
            glob["rdma:part"] = rec.index
        if rec.annotations_dropped:
            glob["rdma:annotations_dropped"] = rec.annotations_dropped
        if rec is self._current and self._error:
            glob["rdma:error"] = self._error
        first = rec.first_item or 0
        end = None if items is None else first + items
        captures = []
        for seg in self._segments:
            if end is not None and seg.item >= end and seg.item != first:
                break
            if seg.item < first:
                continue
            captures.append(self._capture(seg, seg.item, first))
        # The capture in effect at the file's first item.
        before = [s for s in self._segments if s.item <= first]
        if before and (not captures or captures[0]["core:sample_start"] != 0):
            captures.insert(0, self._capture(before[-1], first, first))
        if not captures:
            captures = [{"core:sample_start": 0, "core:global_index": first}]
        annotations = []
        for item, span, note in sorted(self._annotations, key=lambda a: a[0]):
            lo, hi = max(item, first), item + span
            if end is not None:
                hi = min(hi, end)
            if hi <= lo:
                continue
            a = {"core:sample_start": lo - first, "core:sample_count": hi - lo}
            a.update(note)
            if lo != item or hi != item + span:
                a["rdma:split"] = True  # the rest is in the neighbouring file
            annotations.append(a)
        return {"global": glob, "captures": captures, "annotations": annotations}

    def _rate_at(self, item):
        rate = self._rate
        for seg in self._segments:
            if seg.item <= item:
                rate = seg.rate
        return rate

    def _capture(self, seg, item, first):
        c = {"core:sample_start": item - first, "core:global_index": item}
        t = seg.time_at(item)
        if t is not None:
            c["core:datetime"] = datetime_of(t)
        if seg.freq is not None:
            c["core:frequency"] = seg.freq
        c["rdma:sample_rate"] = seg.rate
        return c

    def _write_meta(self, rec, final):
        items = rec.items if final else None
        meta = self._meta(rec, items)
        tmp = rec.meta_path + ".tmp"
        # Whole or not at all: a full disk leaves the previous meta, which is valid.
        try:
            with open(tmp, "w") as f:
                json.dump(meta, f, indent=1)
                f.write("\n")
            os.replace(tmp, rec.meta_path)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            why = "writing %s failed: %s" % (rec.meta_path, e.strerror)
            if self._error is None:
                self._error = why
            self._log.error(why + "; the previous meta file stays")

    # -- the public face ------------------------------------------------------------

    def finish(self):
        """Write the meta of the recording(s) still open from what the data files hold
        now. Called when the flowgraph stops; callable again (rewrites it)."""
        with self._lock:
            if self._pending is not None:
                self._settle_switch(final=True)
            cur = self._current
            if self._error is None or cur.items is None:
                try:
                    cur.items = os.path.getsize(cur.data_path) // self._itemsize
                except OSError:
                    cur.items = 0
            self._write_meta(cur, final=True)
            if cur not in self._closed:
                self._closed.append(cur)

    def error(self):
        """Why the recording stopped early (disk full, a meta that could not be
        written); None when it did not. Looks at the data file first (at most every
        50 ms): file_sink may have stopped while no item reached this block."""
        with self._lock:
            if self._error is None:
                self._check_disk()
            return self._error

    def recordings(self):
        """The paths (without extension) of the pairs written so far, in order."""
        with self._lock:
            out = [r.base for r in self._closed]
            if self._current.base not in out:
                out.append(self._current.base)
            return out
