/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hardware suite: registering a double-mapped ring (lib/ring) with one copy or with
// both, the evidence behind the choice in docs/verbs.md: what each pins, and what a
// WRITE at the end of the ring and one across the wrap do.

#include "../ring/ring_memory.h"
#include "qa_verbs_hw.h"
#include <cstring>
#include <fstream>
#include <iostream>

using namespace qa_verbs;
using std::chrono::milliseconds;

namespace {

constexpr unsigned rw = access_local_write | access_remote_write;

//! VmPin of this process (pages pinned by memory registration), KiB; -1 if unknown.
long vm_pin_kib()
{
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmPin:") {
            long kib;
            in >> kib;
            return kib;
        }
        in.ignore(4096, '\n');
    }
    return -1;
}

std::unique_ptr<ring_memory> make_ring()
{
    ring_options o;
    o.min_bytes = 256 * 1024;
    o.granule = 4096;
    o.hugepages = hugepage_mode::automatic;
    o.lock = true;
    return std::make_unique<ring_memory>(o);
}

} // namespace

class qa_verbs_ring : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_ring);
    CPPUNIT_TEST(test_register_one_copy);
    CPPUNIT_TEST(test_register_both_copies);
    CPPUNIT_TEST(test_register_both_ways_at_once);
    CPPUNIT_TEST_SUITE_END();

    //! Register the ring with \p copies copies and check what the NIC lets a peer do.
    void check(int copies)
    {
        loopback lb;
        lb.connect(qp_type::rc); // RC: a refused WRITE comes back as an error
        const auto ring = make_ring();
        uint8_t* base = ring->base();
        const size_t n = ring->bytes();
        const long pinned_before = vm_pin_kib();
        const auto mr = lb.pd->register_memory(base, copies * n, rw);
        const long pinned = vm_pin_kib() - pinned_before;
        std::cout << "\n  [" << copies << " cop" << (copies == 1 ? "y" : "ies")
                  << "] ring " << n << " bytes ("
                  << (ring->hugepages() ? "2 MiB" : "4 KiB") << " pages), MR "
                  << mr->length() << " bytes, VmPin +" << pinned << " KiB";
        // Registration pins every page it covers through each virtual address: both
        // copies pin the same physical pages twice.
        if (pinned_before >= 0)
            CPPUNIT_ASSERT_EQUAL(long(copies * n / 1024), pinned);

        // The last payload of copy 0: every message of the stream lands like this.
        lb.write(*mr, reinterpret_cast<uintptr_t>(base + n - 4096), 4096, 1, 1);
        CPPUNIT_ASSERT(lb.sender_completion().status == wc_status::success);
        auto wc = next_completion(*lb.recv_cq, milliseconds(5000));
        CPPUNIT_ASSERT(wc && wc->status == wc_status::success && wc->imm_data == 1);
        CPPUNIT_ASSERT(std::memcmp(base + n - 4096, lb.src.data(), 4096) == 0);
        CPPUNIT_ASSERT(std::memcmp(base + 2 * n - 4096, lb.src.data(), 4096) ==
                       0); // alias

        // A message across the wrap (never sent by a correct device: ring bytes are a
        // multiple of the payload). One copy: the NIC refuses it as out of bounds.
        // Both copies: it lands, and its tail appears at the start through the alias.
        std::memset(base, 0x11, 4096);
        lb.write(*mr, reinterpret_cast<uintptr_t>(base + n - 2048), 4096, 2, 2);
        const work_completion s = lb.sender_completion();
        if (copies == 1) {
            CPPUNIT_ASSERT(s.status == wc_status::remote_error);
            CPPUNIT_ASSERT(std::memcmp(base + n - 4096, lb.src.data(), 4096) == 0);
            for (size_t i = 0; i < 4096; i++)
                CPPUNIT_ASSERT_EQUAL(uint8_t(0x11), base[i]);
            std::cout << ", WRITE across the wrap refused";
        } else {
            CPPUNIT_ASSERT(s.status == wc_status::success);
            wc = next_completion(*lb.recv_cq, milliseconds(5000));
            CPPUNIT_ASSERT(wc && wc->status == wc_status::success && wc->imm_data == 2);
            CPPUNIT_ASSERT(std::memcmp(base + n - 2048, lb.src.data(), 2048) == 0);
            CPPUNIT_ASSERT(std::memcmp(base, lb.src.data() + 2048, 2048) == 0);
            std::cout << ", WRITE across the wrap accepted";
        }
        std::cout << "\n";
    }

public:
    void test_register_one_copy() { check(1); }
    void test_register_both_copies() { check(2); }

    void test_register_both_ways_at_once()
    {
        // The same pages under two MRs (pinned three times): legal, and each MR has
        // its own keys and bounds.
        loopback lb;
        lb.connect(qp_type::uc);
        const auto ring = make_ring();
        const size_t n = ring->bytes();
        const auto one = lb.pd->register_memory(ring->base(), n, rw);
        const auto two = lb.pd->register_memory(ring->base(), 2 * n, rw);
        CPPUNIT_ASSERT(one->rkey() != two->rkey());
        lb.write(*two, reinterpret_cast<uintptr_t>(ring->base() + n), 1024, 3, 1);
        lb.sender_completion();
        const auto wc = next_completion(*lb.recv_cq, milliseconds(5000));
        CPPUNIT_ASSERT(wc && wc->imm_data == 3);
        CPPUNIT_ASSERT(std::memcmp(ring->base(), lb.src.data(), 1024) == 0); // alias
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_ring);
