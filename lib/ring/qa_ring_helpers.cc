/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_ring_helpers.h"
#include <spdlog/fmt/fmt.h>
#include <spdlog/sinks/null_sink.h>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

namespace qa_ring {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

logger_ptr quiet_logger()
{
    return std::make_shared<spdlog::logger>(
        "qa_ring_quiet", std::make_shared<spdlog::sinks::null_sink_st>());
}

ring_options options(
    size_t min_bytes, hugepage_mode hugepages, bool lock, int numa_node, size_t granule)
{
    ring_options o;
    o.min_bytes = min_bytes;
    o.granule = granule;
    o.hugepages = hugepages;
    o.numa_node = numa_node;
    o.lock = lock;
    return o;
}

std::string read_text(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

//! Bytes of address space mapped, without [heap] and [stack], which grow on their own.
size_t mapped_bytes()
{
    std::istringstream maps(read_text("/proc/self/maps"));
    std::string line;
    size_t total = 0;
    while (std::getline(maps, line)) {
        if (contains(line, "[heap]") || contains(line, "[stack]"))
            continue;
        const size_t dash = line.find('-');
        const size_t space = line.find(' ');
        total += std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16) -
                 std::stoull(line.substr(0, dash), nullptr, 16);
    }
    return total;
}

/*!
 * The mirror property: every byte of the first copy is the byte at the same offset of
 * the second copy, in both directions, and a slice that starts near the end of the first
 * copy is contiguous and continues at the start of the ring.
 */
void check_mirror(const ring_memory& ring)
{
    uint8_t* const base = ring.base();
    const size_t n = ring.bytes();
    const std::string where = fmt::format(" (ring of {} bytes)", n);
    std::mt19937 rng(static_cast<unsigned>(n));
    auto random_bytes = [&rng](size_t len) {
        std::vector<uint8_t> v(len);
        for (auto& b : v)
            b = static_cast<uint8_t>(rng());
        return v;
    };

    // The whole ring, both directions.
    auto whole = random_bytes(n);
    std::memcpy(base, whole.data(), n);
    CPPUNIT_ASSERT_MESSAGE("first copy -> second" + where,
                           std::memcmp(base + n, whole.data(), n) == 0);
    whole = random_bytes(n);
    std::memcpy(base + n, whole.data(), n);
    CPPUNIT_ASSERT_MESSAGE("second copy -> first" + where,
                           std::memcmp(base, whole.data(), n) == 0);

    const size_t len = std::min<size_t>(1000, n);
    for (const size_t offset : { size_t(0), n / 2, n - 100 }) {
        const std::string at = fmt::format(" at offset {}", offset) + where;
        // One contiguous write; at n - 100 it runs off the end of the first copy and
        // must land at the start of the ring.
        auto pattern = random_bytes(len);
        std::memcpy(base + offset, pattern.data(), len);
        size_t wrong = 0;
        for (size_t i = 0; i < len; i++) {
            const size_t k = (offset + i) % n;
            wrong += base[k] != pattern[i];
            wrong += base[n + k] != pattern[i];
        }
        CPPUNIT_ASSERT_EQUAL_MESSAGE("contiguous write" + at, size_t(0), wrong);

        // Written item by item modulo the ring, through each copy; one contiguous read.
        for (size_t copy = 0; copy < 2; copy++) {
            pattern = random_bytes(len);
            for (size_t i = 0; i < len; i++)
                base[copy * n + (offset + i) % n] = pattern[i];
            CPPUNIT_ASSERT_MESSAGE(
                fmt::format("contiguous read after writing copy {}", copy) + at,
                std::memcmp(base + offset, pattern.data(), len) == 0);
        }
    }
}

} // namespace qa_ring
