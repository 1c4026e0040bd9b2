#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Parts of gr-rdma-rx's report that only some streams have: per link (a stream over
several links) and per share (a stream split over several hosts), from the stream's
counters (docs/links.md)."""

LINK_FIELDS = ("messages", "lost_samples", "frontier", "imm_out_of_sequence", "path_ns")


def link_report(counters):
    """Per link, what the stream's host.link<n>.* counters say (docs/links.md, "Host
    side"): {} for a stream over one link, which has none. A link's lost_samples are
    the samples of its messages found lost on the way (gaps); what the consumer lost
    (overruns, the stop) is no link's, and what the schedule could no longer place is
    "links_unattributed"."""
    links = counters.get("host.links")
    if not links:
        return {}
    return {
        "links": [dict([("link", n)] + [(f, counters["host.link%d.%s" % (n, f)])
                                         for f in LINK_FIELDS])
                  for n in range(links)],
        "links_unattributed": {
            "messages": counters["host.links_unattributed_messages"],
            "lost_samples": counters["host.links_unattributed_samples"]},
        "imm_wrong_destination": counters["host.imm_wrong_destination"],
    }


def link_lines(report):
    """The summary's line per link (none for one link)."""
    lines = []
    links = report.get("links", [])
    total = sum(l["messages"] for l in links)
    for l in links:
        lines.append("link %(link)d: %(messages)d messages" % l
                     + (" (%.1f %%)" % (100.0 * l["messages"] / total) if total else "")
                     + ", %(lost_samples)d samples lost, %(imm_out_of_sequence)d "
                       "immediates out of sequence" % l)
    if links:
        u = report["links_unattributed"]
        if u["messages"] or u["lost_samples"]:
            lines.append("no link known: %(messages)d messages, %(lost_samples)d samples "
                         "lost" % u)
    return lines


def local_below(samples, share, shares, block_items):
    """How many of a stream's first `samples` samples are share `share`'s: shares take
    turns in blocks of `block_items` samples (docs/links.md, "Several hosts")."""
    round_items = block_items * shares
    into = samples % round_items
    mine_from = share * block_items
    partial = 0 if into <= mine_from else min(into - mine_from, block_items)
    return samples // round_items * block_items + partial


def share_report(counters, samples_requested):
    """This host's share of a split stream: {} for a stream that is not split. Its
    samples_emitted is the share's (SHARE_SAMPLES_EMITTED), so its identity is its
    own; combine_reports sums the shares into the stream's."""
    shares = counters.get("share.count")
    if not shares:
        return {}
    share = counters["share.index"]
    block_items = counters["share.block_items"]
    out = {
        "share": share,
        "shares": shares,
        "share_block": counters["share.block_messages"],
        "share_block_items": block_items,
        "samples_emitted_share": counters.get("device.samples_emitted"),
        "samples_emitted_stream": counters.get("device.stream_samples_emitted"),
    }
    if samples_requested is not None:
        out["samples_requested_share"] = local_below(samples_requested, share, shares,
                                                     block_items)
    return out


def share_lines(report):
    """The summary's line for a share (none for a stream that is not split)."""
    if "share" not in report:
        return []
    return ["share %d of %d (blocks of %d messages): its samples only; the stream "
            "emitted %s in all (python3 -m gnuradio.rdma.combine_reports adds the "
            "shares' reports up)"
            % (report["share"], report["shares"], report["share_block"],
               "?" if report["samples_emitted_stream"] is None
               else report["samples_emitted_stream"])]
