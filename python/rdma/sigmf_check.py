#
# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""Check a SigMF recording (PATH.sigmf-meta + PATH.sigmf-data) against the rules of
the SigMF 1.x specification that a recorder can break, written from the specification's
text. Usage:

    python3 -m gnuradio.rdma.sigmf_check PATH [PATH ...]

prints "PATH: valid" or one line per problem, exit status 1 when any is found.
"""

import datetime
import json
import math
import os
import re
import sys

# Sample formats: real or complex; float, signed or unsigned integer of a width; the
# byte order, required for anything wider than 8 bits.
DATATYPE = re.compile(r"^(?P<kind>[rc])(?P<type>f32|f64|i32|i16|u32|u16|i8|u8)"
                      r"(?P<order>_le|_be)?$")
WIDTH = {"f32": 4, "f64": 8, "i32": 4, "i16": 2, "u32": 4, "u16": 2, "i8": 1, "u8": 1}
VERSION = re.compile(r"^1\.[0-9]+\.[0-9]+$")
# ISO-8601 in UTC, "Z", with any number of fraction digits.
DATETIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$")
KEY = re.compile(r"^[A-Za-z0-9_]+:[A-Za-z0-9_]+$")


def _is_uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def datatype_bytes(datatype):
    """Bytes per sample of one channel (None: not a SigMF datatype)."""
    m = DATATYPE.match(datatype) if isinstance(datatype, str) else None
    if not m:
        return None
    width = WIDTH[m.group("type")]
    if width > 1 and not m.group("order"):
        return None  # wider than a byte: the order must be stated
    if width == 1 and m.group("order"):
        return None
    return width * (2 if m.group("kind") == "c" else 1)


def _check_datetime(value, where, problems):
    m = DATETIME.match(value) if isinstance(value, str) else None
    if not m:
        problems.append("%s: core:datetime %r is not ISO-8601 UTC "
                        "(YYYY-MM-DDTHH:MM:SS[.fraction]Z)" % (where, value))
        return
    try:
        datetime.datetime(*(int(m.group(i)) for i in range(1, 7)))
    except ValueError as e:
        problems.append("%s: core:datetime %r is no date: %s" % (where, value, e))


def _check_keys(obj, where, namespaces, problems):
    for key in obj:
        if not KEY.match(key):
            problems.append("%s: key %r is not namespace:name" % (where, key))
            continue
        ns = key.split(":", 1)[0]
        if ns != "core" and ns not in namespaces:
            problems.append("%s: key %r of namespace %r, which core:extensions does "
                            "not declare" % (where, key, ns))


def check_meta(meta, data_bytes=None):
    """The problems (strings) of a parsed meta object; data_bytes: the dataset's size,
    when there is one to check against."""
    problems = []
    if not isinstance(meta, dict):
        return ["the metadata is not a JSON object"]
    for part, kind in (("global", dict), ("captures", list), ("annotations", list)):
        if not isinstance(meta.get(part), kind):
            problems.append("top level: %r is missing or not a JSON %s"
                            % (part, "object" if kind is dict else "array"))
    if problems:
        return problems
    glob = meta["global"]
    namespaces = set()
    extensions = glob.get("core:extensions", [])
    if not isinstance(extensions, list):
        problems.append("global: core:extensions is not an array")
        extensions = []
    for i, ext in enumerate(extensions):
        if (not isinstance(ext, dict) or not isinstance(ext.get("name"), str)
                or not isinstance(ext.get("version"), str)
                or not isinstance(ext.get("optional"), bool)):
            problems.append("global: core:extensions[%d] needs name, version (strings) "
                            "and optional (boolean)" % i)
        else:
            namespaces.add(ext["name"])
    _check_keys(glob, "global", namespaces, problems)
    sample_bytes = None
    if "core:datatype" not in glob:
        problems.append("global: core:datatype is required")
    else:
        sample_bytes = datatype_bytes(glob["core:datatype"])
        if sample_bytes is None:
            problems.append("global: core:datatype %r is not (r|c)(f32|f64|i32|i16|u32|"
                            "u16|i8|u8) with _le/_be for types wider than 8 bits"
                            % (glob["core:datatype"],))
    if not isinstance(glob.get("core:version"), str) or not VERSION.match(
            glob["core:version"]):
        problems.append("global: core:version %r is not a 1.x version X.Y.Z"
                        % (glob.get("core:version"),))
    if "core:sample_rate" in glob and not (_is_number(glob["core:sample_rate"])
                                           and glob["core:sample_rate"] > 0):
        problems.append("global: core:sample_rate %r is not a positive number"
                        % (glob["core:sample_rate"],))
    channels = glob.get("core:num_channels", 1)
    if not _is_uint(channels) or channels < 1:
        problems.append("global: core:num_channels %r is not a positive integer"
                        % (channels,))
        channels = 1
    for key in ("core:hw", "core:recorder", "core:description", "core:author"):
        if key in glob and not isinstance(glob[key], str):
            problems.append("global: %s is not a string" % key)

    samples = None
    if data_bytes is not None and sample_bytes is not None:
        frame = sample_bytes * channels
        if data_bytes % frame:
            problems.append("dataset: %d bytes is not a whole number of %d-byte samples"
                            % (data_bytes, frame))
        samples = data_bytes // frame

    previous_start, previous_index = -1, -1
    for i, c in enumerate(meta["captures"]):
        where = "captures[%d]" % i
        if not isinstance(c, dict):
            problems.append("%s: not an object" % where)
            continue
        _check_keys(c, where, namespaces, problems)
        start = c.get("core:sample_start")
        if not _is_uint(start):
            problems.append("%s: core:sample_start %r is not an integer >= 0"
                            % (where, start))
            continue
        if start < previous_start:
            problems.append("%s: captures not sorted by core:sample_start (%d after %d)"
                            % (where, start, previous_start))
        if samples is not None and start > samples:
            problems.append("%s: core:sample_start %d is past the dataset's %d samples"
                            % (where, start, samples))
        previous_start = start
        if "core:global_index" in c:
            index = c["core:global_index"]
            if not _is_uint(index):
                problems.append("%s: core:global_index %r is not an integer >= 0"
                                % (where, index))
            else:
                if index < previous_index:
                    problems.append("%s: core:global_index decreases (%d after %d)"
                                    % (where, index, previous_index))
                previous_index = index
        if "core:datetime" in c:
            _check_datetime(c["core:datetime"], where, problems)
        if "core:frequency" in c and not _is_number(c["core:frequency"]):
            problems.append("%s: core:frequency is not a number" % where)
        if "core:header_bytes" in c and not _is_uint(c["core:header_bytes"]):
            problems.append("%s: core:header_bytes is not an integer >= 0" % where)
    if meta["captures"] and isinstance(meta["captures"][0], dict) and (
            meta["captures"][0].get("core:sample_start") not in (0, None)):
        # Not a MUST of the specification, but every sample should be in a capture.
        problems.append("captures[0]: the first capture does not start at sample 0")

    previous_start = -1
    for i, a in enumerate(meta["annotations"]):
        where = "annotations[%d]" % i
        if not isinstance(a, dict):
            problems.append("%s: not an object" % where)
            continue
        _check_keys(a, where, namespaces, problems)
        start = a.get("core:sample_start")
        if not _is_uint(start):
            problems.append("%s: core:sample_start %r is not an integer >= 0"
                            % (where, start))
            continue
        if start < previous_start:
            problems.append("%s: annotations not sorted by core:sample_start (%d after "
                            "%d)" % (where, start, previous_start))
        previous_start = start
        end = start
        if "core:sample_count" in a:
            count = a["core:sample_count"]
            if not _is_uint(count) or count == 0:
                problems.append("%s: core:sample_count %r is not a positive integer"
                                % (where, count))
            else:
                end = start + count
        if samples is not None and end > samples:
            problems.append("%s: samples %d..%d are past the dataset's %d samples"
                            % (where, start, end, samples))
        lower, upper = a.get("core:freq_lower_edge"), a.get("core:freq_upper_edge")
        if (lower is None) != (upper is None):
            problems.append("%s: core:freq_lower_edge and core:freq_upper_edge come "
                            "together" % where)
        elif lower is not None and not (_is_number(lower) and _is_number(upper)
                                        and lower <= upper):
            problems.append("%s: the frequency edges are not numbers lower <= upper"
                            % where)
        for key in ("core:label", "core:comment", "core:generator"):
            if key in a and not isinstance(a[key], str):
                problems.append("%s: %s is not a string" % (where, key))
    return problems


def check(path):
    """The problems of the recording PATH (with or without an extension)."""
    for suffix in (".sigmf-meta", ".sigmf-data"):
        if path.endswith(suffix):
            path = path[:-len(suffix)]
    try:
        with open(path + ".sigmf-meta") as f:
            meta = json.load(f)
    except OSError as e:
        return ["%s.sigmf-meta: %s" % (path, e.strerror)]
    except ValueError as e:
        return ["%s.sigmf-meta is not JSON: %s" % (path, e)]
    try:
        data_bytes = os.path.getsize(path + ".sigmf-data")
    except OSError as e:
        return ["%s.sigmf-data: %s" % (path, e.strerror)]
    return check_meta(meta, data_bytes)


def main(argv=None):
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: sigmf_check PATH [PATH ...]", file=sys.stderr)
        return 2
    bad = False
    for path in paths:
        problems = check(path)
        for p in problems:
            print("%s: %s" % (path, p))
        if not problems:
            print("%s: valid" % path)
        bad = bad or bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
