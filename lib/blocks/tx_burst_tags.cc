/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pmt_keys.h"
#include "tx_burst_tags.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace rdma {

tx_burst_tags::tx_burst_tags(gr::logger_ptr logger) : d_logger(std::move(logger)) {}

void tx_burst_tags::reset(bool skip_time_at_0)
{
    d_skip_time_at_0 = skip_time_at_0;
    d_any_end = d_any_begin = false;
    d_end_at = d_begin_at = 0;
    d_tags.clear();
}

uint64_t tx_burst_tags::time_of(const pmt::pmt_t& t)
{
    if (!pmt::is_tuple(t) || pmt::length(t) != 2)
        return 0;
    const pmt::pmt_t secs = pmt::tuple_ref(t, 0);
    const pmt::pmt_t frac = pmt::tuple_ref(t, 1);
    const bool whole =
        pmt::is_uint64(secs) || (pmt::is_integer(secs) && pmt::to_long(secs) >= 0);
    if (!whole || !pmt::is_real(frac))
        return 0;
    const double f = pmt::to_double(frac);
    if (!(f >= 0 && f < 1))
        return 0;
    return pmt::to_uint64(secs) * 1000000000u +
           static_cast<uint64_t>(std::llround(f * 1e9));
}

uint64_t tx_burst_tags::time_at_0(const std::vector<gr::tag_t>& tags) const
{
    const auto it = std::find_if(tags.begin(), tags.end(), [this](const gr::tag_t& t) {
        return t.offset == 0 && pmt::eqv(t.key, keys::tx_time());
    });
    if (it == tags.end())
        return 0;
    const uint64_t t = time_of(it->value);
    if (!t)
        warn_once(2,
                  "tx_time on item 0 is not (uint64 seconds, double fraction in "
                  "[0, 1)): ignored, the device starts now");
    return t;
}

void tx_burst_tags::applied(uint64_t p, const action& a)
{
    if (a.end) {
        d_any_end = true;
        d_end_at = p;
    }
    if (a.begin) {
        d_any_begin = true;
        d_begin_at = p;
    }
}

void tx_burst_tags::warn_once(int which, const char* text) const
{
    if (d_warned[which])
        return;
    d_warned[which] = true;
    d_logger->warn("{}", text);
}

void tx_burst_tags::scan(const std::vector<gr::tag_t>& tags)
{
    d_tags.clear();
    for (const gr::tag_t& t : tags)
        if (pmt::eqv(t.key, keys::tx_sob()) || pmt::eqv(t.key, keys::tx_eob()) ||
            pmt::eqv(t.key, keys::tx_time()))
            d_tags.push_back(t);
    std::sort(d_tags.begin(), d_tags.end(), gr::tag_t::offset_compare);
}

uint64_t tx_burst_tags::next(uint64_t at, uint64_t to, action& a) const
{
    a = action{};
    uint64_t best = to + 1; // no position yet
    auto consider = [&](uint64_t p, const gr::tag_t& t) {
        const bool end = pmt::eqv(t.key, keys::tx_eob());
        if (p < at || p > to || p > best || !(end ? wanted_end(p) : wanted_begin(p)))
            return;
        if (p < best)
            a = action{};
        best = p;
        if (end) {
            a.end = true;
        } else {
            a.begin = true;
            a.time_ns = time_of(t.value);
        }
    };
    for (const gr::tag_t& t : d_tags) {
        if (pmt::eqv(t.key, keys::tx_eob())) {
            if (pmt::is_bool(t.value) && pmt::to_bool(t.value))
                consider(t.offset + 1, t);
            else if (!pmt::is_bool(t.value))
                warn_once(1, "a tx_eob tag's value is not a bool (PMT_T): ignored");
        } else if (pmt::eqv(t.key, keys::tx_time())) {
            if (t.offset == 0 && d_skip_time_at_0)
                continue; // the device started at that time
            if (time_of(t.value))
                consider(t.offset, t);
            else
                warn_once(2,
                          "a tx_time tag is not (uint64 seconds, double fraction in "
                          "[0, 1)): ignored");
        } else if (!pmt::is_bool(t.value)) {
            warn_once(0, "a tx_sob tag's value is not a bool (PMT_T): ignored");
        }
        // tx_sob: where a burst begins as soon as possible anyway (after an END, or
        // the first item); inside an open burst nothing, as gr-uhd's.
    }
    return best > to ? to : best;
}

} // namespace rdma
} // namespace gr
