#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""One stream's identity from the reports of the hosts that took its shares.

    python3 -m gnuradio.rdma.combine_reports share0.json share1.json

Each file holds what `gr-rdma-rx --json` printed for one share of a stream split over
several hosts (share=h/H; docs/links.md, "Several hosts"). Checks that the reports
are of one stream and cover each of its shares exactly once, that each share's own
identity holds (its emitted = delivered + lost), and prints the stream's: emitted =
sum of delivered + sum of lost, where emitted is the device's count for the whole
stream (and the sum of the shares'). Exit status 0 when it holds, 1 when it does not,
2 when the reports cannot be combined (the message names why).
"""

import argparse
import json
import sys


class CombineError(Exception):
    """The reports are not the shares of one stream."""


def load_report(path):
    """The last report object in a gr-rdma-rx --json output (status lines may come
    before it)."""
    report = None
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                obj = json.loads(line)
                if isinstance(obj, dict) and obj.get("kind") == "report":
                    report = obj
    except (OSError, ValueError) as e:
        raise CombineError("%s: %s" % (path, e))
    if report is None:
        raise CombineError("%s holds no gr-rdma-rx --json report" % path)
    if "share" not in report:
        raise CombineError("%s is the report of a stream that is not split (no share=): "
                           "nothing to combine" % path)
    return report


def combine(reports):
    """The stream's accounting from its shares' reports (a dict); raises CombineError
    when they are not exactly the shares of one stream."""
    shares = {r["shares"] for r in reports}
    blocks = {r["share_block_items"] for r in reports}
    if len(shares) != 1 or len(blocks) != 1:
        raise CombineError("the reports split their streams differently (shares %s, "
                           "block samples %s): they are not of one stream"
                           % (sorted(shares), sorted(blocks)))
    count = shares.pop()
    seen = sorted(r["share"] for r in reports)
    if seen != list(range(count)):
        missing = sorted(set(range(count)) - set(seen))
        twice = sorted({h for h in seen if seen.count(h) > 1})
        raise CombineError("the stream has %d shares; %s%s" % (
            count,
            "missing: %s" % missing if missing else "",
            ("; " if missing and twice else "") + ("given twice: %s" % twice
                                                   if twice else "")))
    for r in reports:
        if r["samples_emitted"] is None:
            raise CombineError("share %d: its host could not read the device's count (%s)"
                               % (r["share"], r.get("identity_unknown_because")))
    stream_counts = {r["samples_emitted_stream"] for r in reports}
    per_share = sorted(reports, key=lambda r: r["share"])
    delivered = sum(r["samples_delivered"] for r in reports)
    lost = sum(r["samples_lost"] for r in reports)
    emitted_shares = sum(r["samples_emitted"] for r in reports)
    # Each host read the stream's count after its own run: the largest is the final.
    emitted = max(c for c in stream_counts if c is not None)
    return {
        "shares": count,
        "per_share": [{"share": r["share"], "emitted": r["samples_emitted"],
                       "delivered": r["samples_delivered"], "lost": r["samples_lost"],
                       "identity_holds": r["identity_holds"]} for r in per_share],
        "samples_emitted": emitted,
        "samples_emitted_shares": emitted_shares,
        "samples_delivered": delivered,
        "samples_lost": lost,
        "shares_hold": all(r["identity_holds"] for r in reports),
        "identity_holds": (emitted == emitted_shares == delivered + lost
                           and all(r["identity_holds"] for r in reports)),
    }


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python3 -m gnuradio.rdma.combine_reports",
        description="Combine the gr-rdma-rx --json reports of the hosts that took the "
                    "shares of one stream into the stream's identity.")
    p.add_argument("reports", nargs="+", help="one gr-rdma-rx --json output per share")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    opts = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        result = combine([load_report(path) for path in opts.reports])
    except CombineError as e:
        print("combine_reports: %s" % e, file=sys.stderr)
        return 2
    if opts.json:
        print(json.dumps(result))
    else:
        for s in result["per_share"]:
            print("share %(share)d: emitted %(emitted)d = delivered %(delivered)d + lost "
                  "%(lost)d" % s + ("" if s["identity_holds"] else "  (does NOT hold)"))
        print("stream: emitted %d (shares: %d) = delivered %d + lost %d: %s"
              % (result["samples_emitted"], result["samples_emitted_shares"],
                 result["samples_delivered"], result["samples_lost"],
                 "identity holds" if result["identity_holds"] else "identity does NOT hold"))
    return 0 if result["identity_holds"] else 1


if __name__ == "__main__":
    sys.exit(main())
