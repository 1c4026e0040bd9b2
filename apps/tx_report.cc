/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tx_report.h"
#include <spdlog/fmt/fmt.h>

namespace gr {
namespace rdma {
namespace app {

namespace {

uint64_t counter(const tx_run_result& r, const std::string& name)
{
    const auto it = r.counters.find(name);
    return it == r.counters.end() ? 0 : it->second;
}

report_node&
add_seconds(report_node& n, const std::string& label, double s, const std::string& key)
{
    const std::string v = fmt::format("{:.6f}", s);
    return n.add_raw(label, v + " s", v, key);
}

report_node& add_or_null(report_node& n, const std::string& label, const std::string& v)
{
    return v.empty() ? n.add_raw(label, "none", "null") : n.add(label, v);
}

void add_counters(report_node& n, const tx_run_result& r, const std::string& prefix)
{
    for (const auto& [name, value] : r.counters)
        if (name.compare(0, prefix.size(), prefix) == 0)
            n.add_raw(name.substr(prefix.size()),
                      std::to_string(value),
                      std::to_string(value),
                      name.substr(prefix.size()));
}

} // namespace

std::string tx_failure(const tx_options& o, const tx_run_result& r)
{
    const auto& c = r.counts;
    if (!r.error.empty())
        return r.error;
    if (r.timed_out)
        return "timed out: the device did not play what it was given within --timeout";
    if (!c.final)
        return "the device's final counters are unknown: the identity cannot be checked";
    if (!c.identity_holds())
        return fmt::format("samples unaccounted for: provided {} != played intact {} + "
                           "zero-substituted (late) {} + not played {}",
                           c.host_committed,
                           c.played,
                           c.late,
                           c.not_played);
    if (r.spans_outside_ring)
        return fmt::format("{} spans were written outside the registered ring",
                           r.spans_outside_ring);
    if (o.tx_check && counter(r, "device.check_mismatches"))
        return fmt::format("the device's ramp check found {} mismatches in {} samples",
                           counter(r, "device.check_mismatches"),
                           counter(r, "device.check_samples"));
    if (o.tx_check && counter(r, "device.check_samples") != c.played)
        return fmt::format("the device checked {} of the {} samples it played intact",
                           counter(r, "device.check_samples"),
                           c.played);
    if (r.interrupted.empty() && o.samples && !r.file_ended &&
        c.host_committed != o.samples)
        return fmt::format(
            "provided {} of the {} samples requested", c.host_committed, o.samples);
    return "";
}

report_node tx_report(const tx_options& o,
                      const tx_run_result& r,
                      const std::string& failure,
                      bool with_counters)
{
    const auto& c = r.counts;
    report_node root("gr-rdma-tx");
    root.add_json("kind", "\"report\"");
    root.add("Args", o.args);
    root.add("Format", o.format);
    root.add("Signal", o.signal);
    root.add_raw(
        "Rate requested", fmt::format("{} S/s", o.rate), fmt::format("{}", o.rate));
    if (o.samples)
        root.add("Samples requested", o.samples);
    else
        root.add_raw("Samples requested", "until stopped", "null");
    root.add_bool("Continuous", o.samples == 0);

    // The books, to the sample: provided = played intact + zero-substituted (late) +
    // not played; underflow zeros are the device's own, outside them.
    root.add("Samples provided", c.host_committed);
    root.add("Played intact", c.played);
    root.add("Zero-substituted (late)", c.late);
    root.add("Underflow zeros", c.underflow);
    root.add("Not played", c.not_played);
    if (c.final)
        root.add_bool("Identity holds", c.identity_holds());
    else
        root.add_raw(
            "Identity holds", "unknown (the device's final counters are)", "null");

    auto& check = root.child("Device check");
    check.add_bool("Enabled", o.tx_check);
    check.add("Samples checked", counter(r, "device.check_samples"));
    check.add("Mismatches", counter(r, "device.check_mismatches"));
    if (!o.tx_check)
        check.set_summary("off (tx_check=1 in --args compares the ramp)");

    root.add("Lead time", c.lead_ns, "ns");
    root.add("RTT", c.rtt_ns, "ns");
    root.add("Reads", c.reads);
    root.add("Rereads", c.rereads);
    // The stream's reports, summed: they add up to the counters above once stopped.
    root.add("Underflow reports", r.underflow_reports);
    root.add("Underflow reported", r.underflow_reported);
    root.add("Zero-substituted (late) reports", r.late_reports);
    root.add("Zero-substituted (late) reported", r.late_reported);

    add_seconds(root, "Elapsed", r.elapsed_s, "elapsed_s");
    const double achieved = r.elapsed_s > 0 ? c.host_committed / r.elapsed_s : 0;
    root.add_raw("Rate achieved",
                 fmt::format("{:.1f} S/s provided", achieved),
                 fmt::format("{:.1f}", achieved));
    root.add("Ring", r.ring_bytes, "bytes");
    root.add("Ring items", r.ring_items);
    root.add("Payload", r.payload_bytes, "bytes");
    root.add("Max reads", r.max_reads);
    root.add_bool("Hugepages", r.hugepages);

    auto& zero_copy = root.child("Zero copy");
    zero_copy.add("Spans written", r.spans_written);
    zero_copy.add("Spans outside ring", r.spans_outside_ring);
    zero_copy.set_summary(r.spans_outside_ring ? "VIOLATED"
                                               : "every span written in the ring");
    if (o.from_file) {
        auto& file = root.child("File");
        file.add_bool("Ended", r.file_ended);
        file.add("Rewinds", r.file_rewinds);
        file.add("Tail bytes dropped", r.file_tail_bytes_dropped);
    }

    // CPU seconds by role, as gr-rdma-rx reports them, with the producer apart.
    auto& cpu = root.child("CPU seconds");
    add_seconds(cpu, "Producer", r.cpu.producer, "producer");
    add_seconds(cpu, "Other host", r.cpu.other_host, "other_host");
    add_seconds(cpu, "Host", r.cpu.host, "host");
    add_seconds(cpu, "NIC", r.cpu.nic, "nic");
    add_seconds(cpu, "Device", r.cpu.device, "device");
    add_seconds(cpu, "Total", r.cpu.total, "total");

    add_or_null(root, "Error", r.error);
    root.add_bool("Timed out", r.timed_out);
    add_or_null(root, "Interrupted", r.interrupted);
    add_or_null(root, "Failure", failure);

    // Every counter, for a machine; the text says what matters above.
    if (with_counters)
        for (const char* area : { "device", "nic", "host" })
            add_counters(root.child(area), r, std::string(area) + ".");
    return root;
}

} // namespace app
} // namespace rdma
} // namespace gr
