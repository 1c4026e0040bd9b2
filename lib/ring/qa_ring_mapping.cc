/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The ring mapping: the mirror property, physical memory once and prefaulted, the
// options it refuses, and no leaked mappings or file descriptors on any path.

#include "qa_ring_helpers.h"
#include "ring_memory.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <dirent.h>
#include <spdlog/fmt/fmt.h>
#include <system_error>
#include <type_traits>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace qa_ring;

// Address stability is part of the contract: the ring is registered with the NIC.
static_assert(!std::is_copy_constructible_v<ring_memory>);
static_assert(!std::is_move_constructible_v<ring_memory>);
static_assert(!std::is_copy_assignable_v<ring_memory>);
static_assert(!std::is_move_assignable_v<ring_memory>);

namespace {

size_t count_lines(const std::string& text)
{
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

size_t count_fds()
{
    size_t n = 0;
    DIR* dir = ::opendir("/proc/self/fd");
    CPPUNIT_ASSERT(dir);
    while (::readdir(dir))
        n++;
    ::closedir(dir);
    return n;
}

//! Rss and Pss, in bytes, of the ring's two mappings (/proc/self/smaps).
void ring_rss_pss(const ring_memory& ring, size_t& rss, size_t& pss)
{
    const uintptr_t lo = reinterpret_cast<uintptr_t>(ring.base());
    const uintptr_t hi = lo + 2 * ring.bytes();
    std::istringstream smaps(read_text("/proc/self/smaps"));
    std::string line;
    bool inside = false;
    rss = pss = 0;
    while (std::getline(smaps, line)) {
        const size_t dash = line.find('-');
        if (dash != std::string::npos && dash > 0 &&
            line.find_first_not_of("0123456789abcdef") == dash) {
            const uintptr_t start = std::stoull(line.substr(0, dash), nullptr, 16);
            inside = start >= lo && start < hi;
            continue;
        }
        if (!inside)
            continue;
        std::istringstream fields(line);
        std::string key;
        size_t kb = 0;
        fields >> key >> kb;
        if (key == "Rss:")
            rss += kb * kib;
        else if (key == "Pss:")
            pss += kb * kib;
    }
}

} // namespace

class qa_ring_mapping : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ring_mapping);
    CPPUNIT_TEST(test_mirror_normal_pages);
    CPPUNIT_TEST(test_physical_memory_once_and_prefaulted);
    CPPUNIT_TEST(test_options_rejected);
    CPPUNIT_TEST(test_no_leaks);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_mirror_normal_pages()
    {
        const size_t page = system_page_size();
        struct case_t {
            size_t min_bytes, granule, expected;
        };
        const case_t cases[] = {
            { 1, 1, page },
            { page, 1, page },
            { page + 1, 1, 2 * page },
            { 5000, 1, 2 * page },
            { 3 * page + 7, 1, 4 * page },
            { 64 * kib, 1, 64 * kib },
            { 1 * mib, 4096, 1 * mib },
            // 8000-byte packets: sizes are multiples of lcm(4096, 8000) = 512000.
            { 1 * mib, 8000, 3 * 512000 },
            { 5 * mib + 3, 1, 5 * mib + page },
        };
        for (const auto& c : cases) {
            ring_memory ring(
                options(c.min_bytes, hugepage_mode::off, false, -1, c.granule),
                quiet_logger());
            CPPUNIT_ASSERT_EQUAL(c.expected, ring.bytes());
            CPPUNIT_ASSERT_EQUAL(page, ring.page_size());
            CPPUNIT_ASSERT(!ring.hugepages());
            CPPUNIT_ASSERT(!ring.locked());
            CPPUNIT_ASSERT_EQUAL(-1, ring.numa_node());
            CPPUNIT_ASSERT_EQUAL(std::string(), ring.notes());
            CPPUNIT_ASSERT_EQUAL(uintptr_t(0),
                                 reinterpret_cast<uintptr_t>(ring.base()) % page);
            check_mirror(ring);
        }
    }

    // Virtual 2x, physical 1x: both mappings are resident right after construction
    // (prefaulted, no lock involved) and every page is shared by the two of them.
    void test_physical_memory_once_and_prefaulted()
    {
        ring_memory ring(options(1 * mib), quiet_logger());
        size_t rss = 0, pss = 0;
        ring_rss_pss(ring, rss, pss);
        CPPUNIT_ASSERT_EQUAL(2 * ring.bytes(), rss);
        CPPUNIT_ASSERT_MESSAGE(fmt::format("Pss {} for a ring of {}", pss, ring.bytes()),
                               pss + 8 * kib >= ring.bytes() &&
                                   pss <= ring.bytes() + 8 * kib);
    }

    void test_options_rejected()
    {
        auto rejected = [](const ring_options& o, const std::string& part) {
            try {
                ring_memory ring(o, quiet_logger());
            } catch (const std::invalid_argument& e) {
                ASSERT_CONTAINS(std::string(e.what()), part);
                return;
            }
            CPPUNIT_FAIL("expected std::invalid_argument mentioning " + part);
        };
        rejected(options(0), "min_bytes must be at least 1");
        rejected(options(4096, hugepage_mode::off, false, -1, 0), "granule");
        rejected(options(4096, hugepage_mode::off, false, -2), "numa_node");
        rejected(options(SIZE_MAX - 10), "overflows");
        rejected(options(SIZE_MAX / 2), "cannot be mapped twice");
        // A prime granule: lcm with 4 KiB pages is ~4 GB for a 1 MiB ring.
        rejected(options(1 * mib, hugepage_mode::off, false, -1, 1000003),
                 "power of two");
    }

    void test_no_leaks()
    {
        // Every path: hugepage fallback, NUMA, mlock, odd granules, and the throwing
        // required mode (when no hugepages are free).
        const auto logger = quiet_logger();
        auto cycle = [&logger](int i) {
            ring_options o =
                options(64 * kib * (1 + i % 4),
                        i % 2 ? hugepage_mode::automatic : hugepage_mode::off,
                        i % 3 != 0,
                        i % 5 == 0 ? 0 : -1,
                        i % 7 == 0 ? 8000 : 4096);
            if (i % 10 == 9)
                o.hugepages = hugepage_mode::required;
            std::unique_ptr<ring_memory> ring;
            try {
                ring = std::make_unique<ring_memory>(o, logger);
            } catch (const std::system_error&) { // no hugepages
                CPPUNIT_ASSERT(o.hugepages == hugepage_mode::required);
                return;
            } catch (const std::invalid_argument&) { // granule 8000 with hugepages
                CPPUNIT_ASSERT(o.hugepages == hugepage_mode::required);
                return;
            }
            ring->base()[0] = 1;
            CPPUNIT_ASSERT_EQUAL(uint8_t(1), ring->base()[ring->bytes()]);
        };
        for (int i = 0; i < 70; i++) // every variant once, before counting
            cycle(i);
        const size_t maps_before = count_lines(read_text("/proc/self/maps"));
        const size_t bytes_before = mapped_bytes();
        const size_t fds_before = count_fds();
        for (int i = 0; i < 200; i++)
            cycle(i);
        const std::string maps = read_text("/proc/self/maps");
        CPPUNIT_ASSERT_EQUAL(maps_before, count_lines(maps));
        // Leftover PROT_NONE slack would merge with its neighbours: count bytes too.
        CPPUNIT_ASSERT_EQUAL(bytes_before, mapped_bytes());
        CPPUNIT_ASSERT_EQUAL(fds_before, count_fds());
        CPPUNIT_ASSERT_MESSAGE(maps, !contains(maps, "gr-rdma-ring"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ring_mapping);
