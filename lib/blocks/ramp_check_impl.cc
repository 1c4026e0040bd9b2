/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pmt_keys.h"
#include "ramp_check_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <cstring>

namespace gr {
namespace rdma {

ramp_check::sptr ramp_check::make(const std::string& format,
                                  uint64_t range_base,
                                  uint64_t range_bytes,
                                  const std::string& signal)
{
    return gnuradio::make_block_sptr<ramp_check_impl>(
        format, range_base, range_bytes, signal);
}

ramp_check_impl::ramp_check_impl(const std::string& format,
                                 uint64_t range_base,
                                 uint64_t range_bytes,
                                 const std::string& signal)
    : gr::sync_block("ramp_check",
                     gr::io_signature::make(1, 1, item_size(parse_sample_format(format))),
                     gr::io_signature::make(0, 0, 0)),
      d_format(parse_sample_format(format)),
      d_signal_args(signal),
      // Parsed now, so that bad args fail here; the rate comes with the stream (the
      // highest a stream may have here: the source checked freq= against its own).
      d_signal_config(parse_test_signal_args(signal, d_format, 4e9)),
      d_item(item_size(d_format)),
      d_range_base(static_cast<uintptr_t>(range_base)),
      d_range_bytes(range_bytes)
{
    message_port_register_in(keys::events());
    set_msg_handler(keys::events(), [this](const pmt::pmt_t& msg) { on_event(msg); });
    set_tag_propagation_policy(TPP_DONT);
}

bool ramp_check_impl::start()
{
    // A new run of the flowgraph starts item numbering, and the source's time, afresh.
    d_have_time = false;
    d_rate = 0;
    d_device_offset = 0;
    d_gap_end = 0;
    d_share = share_layout();
    d_stream0 = 0;
    return sync_block::start();
}

bool ramp_check_impl::inside_range(const void* data, int items) const
{
    const auto begin = reinterpret_cast<uintptr_t>(data);
    const uint64_t bytes = static_cast<uint64_t>(items) * d_item;
    return begin >= d_range_base && begin + bytes <= d_range_base + d_range_bytes;
}

bool ramp_check_impl::is_zero(const uint8_t* item) const
{
    static const uint8_t zeros[8] = {};
    return std::memcmp(item, zeros, d_item) == 0;
}

uint64_t ramp_check_impl::data_sample(const uint8_t* item) const
{
    if (d_format == sample_format::sc16) {
        uint32_t k;
        std::memcpy(&k, item, 4);
        return k; // the sample index mod 2^32
    }
    if (d_format == sample_format::sc8) {
        uint16_t k;
        std::memcpy(&k, item, 2);
        return k; // the sample index mod 2^16
    }
    float i;
    std::memcpy(&i, item, 4);
    return static_cast<uint64_t>(i); // the sample index mod 2^24
}

void ramp_check_impl::on_tag(const tag_t& tag, const uint8_t* item_data)
{
    const std::string key = pmt::symbol_to_string(tag.key);
    if (key == "rx_share") {
        const auto field = [&tag](const char* name) {
            return pmt::to_uint64(
                pmt::dict_ref(tag.value, pmt::mp(name), pmt::from_uint64(0)));
        };
        const uint64_t shares = field("shares"), block = field("block_items");
        if (shares > 1 && block > 0 && field("share") < shares)
            d_share = share_layout(unsigned(field("share")), unsigned(shares), block, 1);
    } else if (key == "rx_rate") {
        d_rate = pmt::to_double(tag.value);
        if (d_rate > 0 && (!d_signal || d_signal->config().sample_rate != d_rate)) {
            d_signal_config.sample_rate = d_rate;
            d_signal = std::make_unique<test_signal>(d_signal_config);
        }
    } else if (key == "rx_time") {
        const uint64_t s = pmt::to_uint64(pmt::tuple_ref(tag.value, 0));
        const double frac = pmt::to_double(pmt::tuple_ref(tag.value, 1));
        if (!d_have_time) {
            d_t0_s = s;
            d_t0_frac = frac;
            d_have_time = true;
            d_stream0 = static_cast<int64_t>(d_share.stream_sample(tag.offset));
        }
        const double since = static_cast<double>(s - d_t0_s) + (frac - d_t0_frac);
        // A share's tag names a stream sample of its own share: its local index.
        const int64_t device =
            (d_share.split() ? d_stream0 : 0) + std::llround(since * d_rate);
        const int64_t local =
            d_share.split()
                ? static_cast<int64_t>(d_share.local_below(static_cast<uint64_t>(device)))
                : device;
        d_device_offset = local - static_cast<int64_t>(tag.offset);
        d_time_tags++;
        // The ramp carries its own sample number: the tag must name the same sample.
        if (is_ramp() && tag.offset >= d_gap_end) {
            const uint64_t modulus = d_format == sample_format::sc16  ? (1ull << 32)
                                     : d_format == sample_format::sc8 ? (1ull << 16)
                                                                      : (1ull << 24);
            if (data_sample(item_data) != static_cast<uint64_t>(device) % modulus) {
                std::lock_guard<std::mutex> lock(d_ranges_mutex);
                d_time_error_items.push_back(tag.offset);
            }
        }
    } else if (key == "rx_gap") {
        const uint64_t count =
            pmt::to_uint64(pmt::dict_ref(tag.value, keys::count(), pmt::from_uint64(0)));
        d_gap_end = std::max(d_gap_end, tag.offset + count);
    }
}

void ramp_check_impl::record_mismatch(uint64_t item)
{
    if (d_mismatches++ == 0)
        d_first_mismatch = item;
    std::lock_guard<std::mutex> lock(d_ranges_mutex);
    d_mismatch_ranges.add(item, item + 1);
}

void ramp_check_impl::check(uint64_t first, const uint8_t* data, uint64_t count)
{
    // Items of a reported gap must be zeros.
    const uint64_t in_gap = first < d_gap_end ? std::min(count, d_gap_end - first) : 0;
    for (uint64_t i = 0; i < in_gap; i++) {
        d_gap_items++;
        if (!is_zero(data + i * d_item))
            record_mismatch(first + i);
    }
    // The others, the test signal: recomputed a chunk at a time (no allocation).
    for (uint64_t i = in_gap; i < count;) {
        const uint64_t local =
            static_cast<uint64_t>(static_cast<int64_t>(first + i) + d_device_offset);
        // A share's samples are consecutive in the stream within a block only.
        const uint64_t n =
            std::min<uint64_t>({ count - i, scratch_items, d_share.run_from(local) });
        const uint64_t device = d_share.stream_sample(local);
        if (d_signal)
            d_signal->generate(device, n, d_expect.data());
        else // no rate tag yet: only the ramp does not need one
            ramp_fill(d_format, device, n, d_expect.data());
        const uint8_t* p = data + i * d_item;
        for (uint64_t j = 0; j < n; j++)
            if (std::memcmp(d_expect.data() + j * d_item, p + j * d_item, d_item) != 0)
                record_mismatch(first + i + j);
        i += n;
    }
}

void ramp_check_impl::on_event(const pmt::pmt_t& msg)
{
    const pmt::pmt_t info = pmt::is_pair(msg) ? pmt::cdr(msg) : msg;
    if (!pmt::is_dict(info))
        return;
    // Reports that may come after the samples were handed out excuse them: overwritten
    // while unread, replaced by zeros on the device (RC), or never sent (its overflow).
    // Gaps announced by tags beforehand are checked to be zeros instead.
    const pmt::pmt_t cause = pmt::dict_ref(info, keys::cause(), pmt::PMT_NIL);
    if (!pmt::is_symbol(cause))
        return;
    const std::string why = pmt::symbol_to_string(cause);
    if (why != "overwritten" && why != "zero_substituted" && why != "gap_overwritten" &&
        why != "device_overflow")
        return;
    const uint64_t first =
        pmt::to_uint64(pmt::dict_ref(info, keys::first_sample(), pmt::from_uint64(0)));
    const uint64_t count =
        pmt::to_uint64(pmt::dict_ref(info, keys::count(), pmt::from_uint64(0)));
    std::lock_guard<std::mutex> lock(d_ranges_mutex);
    d_overwritten.add(first, first + count);
}

uint64_t ramp_check_impl::unexplained_mismatches() const
{
    std::lock_guard<std::mutex> lock(d_ranges_mutex);
    uint64_t unexplained = 0;
    for (const auto& [first, end] : d_mismatch_ranges.ranges())
        unexplained += (end - first) - d_overwritten.overlap(first, end);
    return unexplained;
}

std::vector<std::vector<uint64_t>> ramp_check_impl::unexplained_ranges(size_t max) const
{
    std::lock_guard<std::mutex> lock(d_ranges_mutex);
    std::vector<std::vector<uint64_t>> out;
    for (const auto& [first, end] : d_mismatch_ranges.ranges()) {
        for (uint64_t i = first; i < end && out.size() < max; i++) {
            if (d_overwritten.contains(i))
                continue;
            if (!out.empty() && out.back()[0] + out.back()[1] == i)
                out.back()[1]++;
            else
                out.push_back({ i, 1 });
        }
    }
    return out;
}

uint64_t ramp_check_impl::time_errors() const
{
    // A tag on a sample that was later reported overwritten cannot be checked.
    std::lock_guard<std::mutex> lock(d_ranges_mutex);
    uint64_t errors = 0;
    for (uint64_t item : d_time_error_items)
        errors += !d_overwritten.contains(item);
    return errors;
}

uint64_t ramp_check_impl::overwritten_items() const
{
    std::lock_guard<std::mutex> lock(d_ranges_mutex);
    return d_overwritten.size();
}

int ramp_check_impl::work(int noutput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star&)
{
    d_calls++;
    if (d_range_bytes && !inside_range(input_items[0], noutput_items))
        d_out_of_range++;
    const auto* data = static_cast<const uint8_t*>(input_items[0]);
    const uint64_t first = nitems_read(0);
    get_tags_in_range(d_tags, 0, first, first + noutput_items);
    // By offset; at one offset the rate before the time that needs it, and a gap
    // before the time tag of its first item (after a skip, the item the stream resumes
    // at may be a lost one: its time cannot be read from its zeros). Stable: tags of
    // one key at one offset stay in the order they were added, the last one standing.
    const auto rank = [](const tag_t& t) {
        const std::string key = pmt::symbol_to_string(t.key);
        return key == "rx_share" ? -1 : key == "rx_rate" ? 0 : key == "rx_gap" ? 1 : 2;
    };
    std::stable_sort(
        d_tags.begin(), d_tags.end(), [&rank](const tag_t& a, const tag_t& b) {
            if (a.offset != b.offset)
                return a.offset < b.offset;
            return rank(a) < rank(b);
        });
    uint64_t at = first;
    for (const tag_t& tag : d_tags) {
        check(at, data + (at - first) * d_item, tag.offset - at);
        at = tag.offset;
        on_tag(tag, data + (at - first) * d_item);
    }
    check(at, data + (at - first) * d_item, first + noutput_items - at);
    d_items += noutput_items;
    return noutput_items;
}

} // namespace rdma
} // namespace gr
