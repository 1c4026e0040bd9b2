#!/usr/bin/python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""One benchmark run of a GNU Radio receiver; prints one JSON object.

    peer_gr.py udp  --port P --rate R --samples N --payload B --variant shipped|tuned
    peer_gr.py rdma --args ARGS --rate R --samples N [--check] [--reader]
                    [--format F --otw W]

udp:  network.udp_source (64-bit sequence number header) -> null_sink, fed by
      bench_udp_sender. "tuned" calls set_blkd_input_timer_value(1); the socket
      buffer comes from net.core.rmem_default, which the runner sets.
rdma: rdma.rx_source(ARGS, "sc16", R, N) -> null_sink, the production path; the
      device args pick the backend (type=emu, wire=inproc, type=null, ...). --format
      and --otw: the flowgraph's and the wire's formats (default sc16 both: zero
      copy); different ones make the source convert (bench/convert.py). --reader: a
      block that reads every byte (numpy, XOR of 8-byte words) instead of null_sink.

CPU is read twice, at 20 % and 80 % of the burst after the first item arrived, with
per-thread CPU clocks (rdma.process_cpu_by_role(): host / NIC / device, and every
thread of the process from /proc/self/task/*/schedstat). Between the two readings the
main thread sleeps. Run by bench/run.py; not a user tool.
"""

import argparse
import ctypes
import glob
import json
import os
import sys
import threading
import time

import numpy
from gnuradio import blocks, gr

ITEM_SIZE = {"sc16": 4, "fc32": 8, "sc8": 2}


def copy_census():
    """bench/copycount.c when it is loaded (LD_PRELOAD, copies phase), else None."""
    main_program = ctypes.CDLL(None)
    return main_program if hasattr(main_program, "copycount_dump") else None


def thread_times():
    """{name/tid: CPU seconds} of every thread of this process (schedstat: ns)."""
    out = {}
    for task in glob.glob("/proc/self/task/*"):
        try:
            with open(task + "/comm") as f:
                name = f.read().strip()
            with open(task + "/schedstat") as f:
                ns = int(f.read().split()[0])
        except OSError:
            continue  # the thread exited meanwhile
        out["%s/%s" % (name, os.path.basename(task))] = ns * 1e-9
    return out


def snapshot(rdma, sink):
    cpu = rdma.process_cpu_by_role()
    out = {"t": time.monotonic(), "items": sink.nitems_read(0),
           "host": cpu["host"], "nic": cpu["nic"], "device": cpu["device"],
           "threads": thread_times()}
    # Reading every thread's schedstat costs the main thread a millisecond or two: not
    # the receiver's. A window starts after the first snapshot's reading.
    out["host_after"] = rdma.process_cpu_by_role()["host"]
    return out


def sleep_until(t):
    delay = t - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def window(a, b):
    threads = {k: round(b["threads"][k] - a["threads"].get(k, 0.0), 6)
               for k in b["threads"]}
    return {"t0": a["t"], "t1": b["t"], "items0": a["items"], "items1": b["items"],
            "host_s": b["host"] - a["host_after"], "nic_s": b["nic"] - a["nic"],
            "device_s": b["device"] - a["device"],
            "threads": {k: v for k, v in threads.items() if v > 0}}


class reader(gr.sync_block):
    """A downstream block that reads every byte of its input, as one that processes
    samples must: the XOR of its 8-byte words (numpy, vectorised) and of the bytes
    after the last whole word, kept so that the reads happen."""

    def __init__(self, item):
        gr.sync_block.__init__(self, "reader", [(numpy.uint8, item)], [])
        self.result = 0

    def work(self, input_items, output_items):
        flat = input_items[0].reshape(-1)
        whole = flat.size // 8 * 8
        if whole:
            self.result ^= int(numpy.bitwise_xor.reduce(flat[:whole].view(numpy.uint64)))
        if whole < flat.size:
            self.result ^= int(numpy.bitwise_xor.reduce(flat[whole:]))
        return len(input_items[0])


def build(opts, rdma):
    tb = gr.top_block("bench")
    item = ITEM_SIZE[opts.format] if opts.mode == "rdma" else 4
    sink = reader(item) if opts.reader else blocks.null_sink(item)
    if opts.mode == "udp":
        from gnuradio import network
        header_seqnum = 1  # "64-bit Sequence Number" (gr-network udp_header_types.h)
        src = network.udp_source(4, 1, opts.port, header_seqnum, 8 + opts.payload,
                                 False, False, False)
        if opts.variant == "tuned":
            src.set_blkd_input_timer_value(1)
    else:
        src = rdma.rx_source(opts.args, opts.format, opts.rate, opts.samples, 1,
                             opts.otw or opts.format)
    tb.connect(src, sink)
    check = None
    if opts.check:
        check = rdma.ramp_check(opts.format, src.ring_base(), 2 * src.ring_bytes())
        tb.connect(src, check)
        tb.msg_connect((src, "async_msgs"), (check, "events"))
    return tb, src, sink, check


def run(opts):
    # Imported here: the module under test comes from PYTHONPATH (the build tree).
    from gnuradio import rdma
    tb, src, sink, check = build(opts, rdma)
    burst = opts.samples / opts.rate
    census = copy_census()
    if census:
        census.copycount_reset()  # what imports and set-up copied is not per sample
    tb.start()
    print("READY", flush=True)
    started = time.monotonic()
    while sink.nitems_read(0) == 0 and time.monotonic() - started < opts.timeout:
        time.sleep(0.005)
    first = time.monotonic()
    sleep_until(first + 0.2 * burst)
    a = snapshot(rdma, sink)
    sleep_until(first + 0.8 * burst)
    b = snapshot(rdma, sink)

    timed_out = False
    if opts.mode == "rdma":
        # A finite burst ends the flowgraph by itself (skipped samples never arrive).
        waiter = threading.Thread(target=tb.wait, daemon=True)
        waiter.start()
        waiter.join(max(0.0, first + burst + opts.timeout - time.monotonic()))
        if waiter.is_alive():  # the burst did not end: say so, stop it
            timed_out = True
            tb.stop()
            tb.wait()
    else:
        # udp_source never ends: wait until everything or nothing more arrives.
        last, last_change = sink.nitems_read(0), time.monotonic()
        while sink.nitems_read(0) < opts.samples:
            time.sleep(0.05)
            now, items = time.monotonic(), sink.nitems_read(0)
            if items != last:
                last, last_change = items, now
            elif now - last_change > 0.5 and now > first + burst:
                break
            if now > first + burst + opts.timeout:
                break
    items = sink.nitems_read(0)
    result = {"mode": opts.mode, "items": items, "window": window(a, b),
              "elapsed_s": time.monotonic() - first}
    if opts.mode == "rdma":
        result["timed_out"] = timed_out
        counters = src.read_counters()
        result.update({
            "samples_emitted": counters["device.samples_emitted"],
            "delivered": counters["host.delivered"],
            "lost": counters["host.lost"],
            "ring_bytes": src.ring_bytes(),
            "conversion_reads": src.conversion_reads(),
            "hugepages": src.hugepages(),
            "counters": {k: v for k, v in counters.items()
                         if not k.startswith(("host.latency.hist.",
                                              "host.latency.age.hist."))},
            "latency_hist": {k[len("host.latency.hist."):]: v for k, v in counters.items()
                             if k.startswith("host.latency.hist.")},
        })
        if check is not None:
            result["check"] = {"items_checked": check.items_checked(),
                               "mismatches": check.unexplained_mismatches(),
                               "out_of_ring_reads": check.out_of_range_calls()}
    else:
        tb.stop()
        tb.wait()
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["udp", "rdma"])
    p.add_argument("--rate", type=float, required=True)
    p.add_argument("--samples", type=int, required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--payload", type=int, default=8192)
    p.add_argument("--variant", choices=["shipped", "tuned"], default="tuned")
    p.add_argument("--args", default="type=emu")
    p.add_argument("--check", action="store_true")
    p.add_argument("--reader", action="store_true",
                   help="rdma: a block that reads every byte instead of null_sink")
    p.add_argument("--format", choices=sorted(ITEM_SIZE), default="sc16",
                   help="rdma: the flowgraph's items (rx_source's format)")
    p.add_argument("--otw", choices=sorted(ITEM_SIZE),
                   help="rdma: the wire format (default: --format, zero copy)")
    p.add_argument("--timeout", type=float, default=10.0)
    opts = p.parse_args()
    result = run(opts)
    census = copy_census()
    if census:
        census.copycount_dump()
    print(json.dumps(result), flush=True)
    # Skip interpreter teardown: some GNU Radio blocks crash in their destructors at
    # exit, which would only muddle the exit status of a finished measurement.
    os._exit(0)


if __name__ == "__main__":
    main()
