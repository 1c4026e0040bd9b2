#!/usr/bin/env python3
#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""ramp_check on its own: which mismatches the source's reports excuse, whatever
order the reports come in and however they overlap."""

import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import rdma

ITEMS = 2000


def report(cause, first, count):
    info = pmt.make_dict()
    info = pmt.dict_add(info, pmt.intern("type"), pmt.intern("overrun"))
    info = pmt.dict_add(info, pmt.intern("cause"), pmt.intern(cause))
    info = pmt.dict_add(info, pmt.intern("first_sample"), pmt.from_uint64(first))
    info = pmt.dict_add(info, pmt.intern("count"), pmt.from_uint64(count))
    return pmt.cons(pmt.intern("rdma_rx_event"), info)


def run_check(bad_items, reports):
    """A sc16 ramp (item k holds k) with \\p bad_items wrong, the reports posted to
    the checker before it reads a sample; returns the checker after the run."""
    ramp = list(range(ITEMS))
    for k in bad_items:
        ramp[k] = 0x7FFFFFFF
    tb = gr.top_block()
    src = blocks.vector_source_i(ramp)
    check = rdma.ramp_check("sc16", 0, 0)
    tb.connect(src, check)
    for r in reports:
        check.to_basic_block()._post(pmt.intern("events"), r)
    tb.run()
    return check


class qa_ramp_check(gr_unittest.TestCase):

    def test_an_unreported_mismatch_counts(self):
        check = run_check([700, 701], [])
        self.assertEqual(check.items_checked(), ITEMS)
        self.assertEqual(check.mismatches(), 2)
        self.assertEqual(check.unexplained_mismatches(), 2)
        self.assertEqual([list(r) for r in check.unexplained_ranges(8)], [[700, 2]])

    def test_a_small_report_then_one_around_it(self):
        # The overload run's order: a device overflow inside a gap first, then the gap
        # overwritten, a range around it. Every item both cover is excused, once.
        bad = [505, 700, 701, 999]
        check = run_check(bad, [report("device_overflow", 500, 10),
                                report("gap_overwritten", 100, 900)])
        self.assertEqual(check.mismatches(), len(bad))
        self.assertEqual(check.unexplained_mismatches(), 0)
        self.assertEqual(check.overwritten_items(), 900)

    def test_a_report_around_others_then_a_mismatch_outside(self):
        bad = [150, 1000, 1500]
        check = run_check(bad, [report("overwritten", 140, 20),
                                report("overwritten", 1490, 20),
                                report("gap_overwritten", 100, 100),
                                report("overwritten", 150, 5)])
        self.assertEqual(check.mismatches(), 3)
        # 1000 lies between the reports: the one mismatch nothing excuses.
        self.assertEqual(check.unexplained_mismatches(), 1)
        self.assertEqual([list(r) for r in check.unexplained_ranges(8)], [[1000, 1]])
        self.assertEqual(check.overwritten_items(), 120)

    def test_reports_of_other_causes_excuse_nothing(self):
        check = run_check([300], [report("skipped", 0, ITEMS),
                                  report("packet_lost", 0, ITEMS)])
        self.assertEqual(check.unexplained_mismatches(), 1)


if __name__ == "__main__":
    gr_unittest.run(qa_ramp_check)
