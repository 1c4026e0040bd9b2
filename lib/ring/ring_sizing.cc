/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ring_sizing.h"
#include <spdlog/fmt/fmt.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gr {
namespace rdma {

size_t system_page_size()
{
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return page;
}

size_t default_hugepage_size()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    while (meminfo >> key) {
        if (key == "Hugepagesize:") {
            size_t kib = 0;
            meminfo >> kib;
            return kib * 1024;
        }
        meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return 0;
}

size_t ring_granularity(size_t page, size_t granule)
{
    if (page == 0 || granule == 0)
        throw std::invalid_argument(fmt::format(
            "ring granularity: page size ({}) and granule ({}) must be nonzero",
            page,
            granule));
    size_t unit = 0;
    if (__builtin_mul_overflow(page / std::gcd(page, granule), granule, &unit))
        throw std::invalid_argument(
            fmt::format("ring granularity: lcm of page size {} and granule {} overflows; "
                        "the granule must be a power of two or divide the page size",
                        page,
                        granule));
    return unit;
}

size_t round_up_bytes(size_t bytes, size_t unit)
{
    size_t padded = 0;
    if (unit == 0 || __builtin_add_overflow(bytes, unit - 1, &padded))
        throw std::invalid_argument(fmt::format(
            "ring size: {} bytes rounded up to a multiple of {} overflows", bytes, unit));
    return padded / unit * unit;
}

size_t ring_bytes_for(double sample_rate,
                      size_t item_size,
                      double latency_budget_s,
                      size_t granule,
                      size_t page)
{
    // !(x > 0) also rejects NaN.
    if (!(sample_rate > 0) || !std::isfinite(sample_rate))
        throw std::invalid_argument(fmt::format(
            "ring_bytes_for: sample rate must be positive and finite (items/s), got {}",
            sample_rate));
    if (!(latency_budget_s > 0) || !std::isfinite(latency_budget_s))
        throw std::invalid_argument(fmt::format("ring_bytes_for: latency budget must be "
                                                "positive and finite (seconds), got {}",
                                                latency_budget_s));
    if (item_size == 0)
        throw std::invalid_argument("ring_bytes_for: item size must be at least 1 byte");
    if (granule == 0 || granule % item_size != 0)
        throw std::invalid_argument(fmt::format(
            "ring_bytes_for: granule ({} bytes) must be a nonzero multiple of "
            "the item size ({} bytes), so that every packet holds whole items",
            granule,
            item_size));
    const size_t unit = ring_granularity(page, granule);

    // Largest ring GNU Radio can take, in bytes, as a multiple of unit; used both for the
    // check and to tell the user which budget would fit.
    size_t max_bytes = 0;
    if (__builtin_mul_overflow(max_ring_items, item_size, &max_bytes))
        max_bytes = std::numeric_limits<size_t>::max();
    max_bytes = max_bytes / unit * unit;
    auto too_long = [&](double items) {
        const double max_budget =
            static_cast<double>(max_bytes / item_size) / sample_rate;
        return std::invalid_argument(fmt::format(
            "ring_bytes_for: {} items/s x {} s needs a ring of {:.0f} items, but "
            "GNU Radio buffers hold fewer than 2^31 items (d_bufsize is unsigned "
            "int, noutput_items is int): lower the latency budget{}",
            sample_rate,
            latency_budget_s,
            items,
            max_bytes < granule ? " (no budget fits with this granule and page size)"
                                : fmt::format(" to at most {:.6g} s", max_budget)));
    };

    double items = sample_rate * latency_budget_s;
    // 409600 * 1.1 is 450560.00000000006 in binary floating point; a budget that is a
    // whole number of items must not grow by an item (and then by a page) through ceil().
    const double nearest = std::nearbyint(items);
    if (std::fabs(items - nearest) <= 1e-9 * nearest)
        items = nearest;
    items = std::ceil(items); // >= 1, so the rounding below yields at least one granule
    if (items > static_cast<double>(max_ring_items))
        throw too_long(items);

    size_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<size_t>(items), item_size, &bytes) ||
        bytes > max_bytes)
        throw too_long(std::ceil(items * item_size / unit) * unit / item_size);
    // max_bytes is a multiple of unit, so rounding up cannot pass it.
    return round_up_bytes(bytes, unit);
}

} // namespace rdma
} // namespace gr
