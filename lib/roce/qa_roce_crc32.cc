/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// roce::crc32 (ISA-L) against zlib's crc32_z, the reference the ICRC was first built
// on: every length around the folding's block sizes, every alignment, and continued
// from a CRC, as the ICRC chains it (headers, BTH copy, payload).

#include "crc32.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <zlib.h>
#include <random>
#include <string>
#include <vector>

namespace roce = gr::rdma::roce;

class qa_roce_crc32 : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_roce_crc32);
    CPPUNIT_TEST(test_known_value);
    CPPUNIT_TEST(test_equals_zlib_at_every_length_and_alignment);
    CPPUNIT_TEST(test_chains_as_zlib);
    CPPUNIT_TEST_SUITE_END();

    static std::vector<uint8_t> random_bytes(size_t n, unsigned seed)
    {
        std::mt19937 gen(seed);
        std::vector<uint8_t> v(n);
        for (auto& b : v)
            b = static_cast<uint8_t>(gen());
        return v;
    }

public:
    void test_known_value()
    {
        // The CRC-32 check value of "123456789" (the catalogue's CRC-32/ISO-HDLC).
        const std::string s = "123456789";
        CPPUNIT_ASSERT_EQUAL(0xCBF43926u,
                             roce::crc32(0u, reinterpret_cast<const uint8_t*>(s.data()), 9));
        CPPUNIT_ASSERT_EQUAL(0u, roce::crc32(0u, nullptr, 0));
    }

    void test_equals_zlib_at_every_length_and_alignment()
    {
        // Past 4 KiB + headers (a packet), so every tail of every folding width shows.
        const auto data = random_bytes(4200 + 64, 1);
        for (size_t len = 0; len <= 4200; len++) {
            for (size_t offset : { 0, 1, 3, 7, 8, 13, 31, 32, 63 }) {
                if (len > 1100 && offset % 8 != 0 && len % 61 != 0)
                    continue; // long lengths: every alignment on a sample of them
                const uint8_t* p = data.data() + offset;
                const uint32_t want = static_cast<uint32_t>(crc32_z(0xDEBB20E3u, p, len));
                const uint32_t got = roce::crc32(0xDEBB20E3u, p, len);
                if (got != want)
                    CPPUNIT_FAIL("length " + std::to_string(len) + ", offset " +
                                 std::to_string(offset) + ": ISA-L and zlib differ");
            }
        }
    }

    void test_chains_as_zlib()
    {
        const auto data = random_bytes(70000, 2);
        for (size_t cut : { size_t(0), size_t(12), size_t(28), size_t(4096), size_t(65536) }) {
            const uint32_t whole = roce::crc32(0u, data.data(), data.size());
            const uint32_t chained = roce::crc32(
                roce::crc32(0u, data.data(), cut), data.data() + cut, data.size() - cut);
            CPPUNIT_ASSERT_EQUAL(whole, chained);
            CPPUNIT_ASSERT_EQUAL(static_cast<uint32_t>(crc32_z(0, data.data(), data.size())),
                                 whole);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_roce_crc32);
