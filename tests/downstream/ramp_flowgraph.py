#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A downstream Python flowgraph: gnuradio.rdma as installed (PYTHONPATH), a burst of
the emulator's ramp into RDMA Ramp Check. Exit status 0 only if every sample arrived
bit-exact and the module came from the prefix given as the first argument."""

import os
import sys

from gnuradio import gr, rdma

prefix = os.path.realpath(sys.argv[1])
module = os.path.realpath(rdma.__file__)
if not module.startswith(prefix + os.sep):
    sys.exit(f"gnuradio.rdma was imported from {module}, not from the prefix {prefix}")

items = 1000000
tb = gr.top_block()
src = rdma.rx_source("type=emu,signal=ramp", "fc32", 2e6, items)
check = rdma.ramp_check("fc32", src.ring_base(), 2 * src.ring_bytes())
tb.connect(src, check)
tb.msg_connect((src, "async_msgs"), (check, "events"))
tb.run()
print(f"ramp_flowgraph: {check.items_checked()} of {items} items, "
      f"{check.mismatches()} mismatches, {check.gap_items()} in gaps, "
      f"{check.out_of_range_calls()} reads outside the ring")
ok = (check.items_checked() == items and check.mismatches() == 0 and
      check.gap_items() == 0 and check.out_of_range_calls() == 0 and not src.error())
sys.exit(0 if ok else 1)
