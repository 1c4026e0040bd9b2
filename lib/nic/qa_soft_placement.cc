/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soft NIC writes a packet's first bytes (where the host's placeholder sits) after
// the rest: a host that finds the placeholder gone finds the whole packet, even when
// the NIC thread was preempted halfway through the copy (issue 30: the host handed out
// a packet of which 256 bytes had landed). The order is made visible by a tail that
// cannot be written: the copy faults there, and the head must still be as it was.

#include "soft_responder.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sys/mman.h>
#include <unistd.h>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <vector>

using namespace gr::rdma::nic;

namespace {

sigjmp_buf g_fault;

void on_fault(int) { siglongjmp(g_fault, 1); }

// Whether place_payload() faulted (somewhere in what it writes).
bool placing_faults(uint8_t* dest, const std::vector<uint8_t>& payload)
{
    struct sigaction act = {}, old = {};
    act.sa_handler = on_fault;
    sigemptyset(&act.sa_mask);
    sigaction(SIGSEGV, &act, &old);
    bool faulted = true;
    if (sigsetjmp(g_fault, 1) == 0) {
        soft_responder::place_payload(dest, payload.data(), payload.size());
        faulted = false;
    }
    sigaction(SIGSEGV, &old, nullptr);
    return faulted;
}

} // namespace

class qa_soft_placement : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_soft_placement);
    CPPUNIT_TEST(test_the_head_of_a_packet_is_placed_last);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_the_head_of_a_packet_is_placed_last()
    {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        void* mem = mmap(nullptr,
                         2 * page,
                         PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS,
                         -1,
                         0);
        CPPUNIT_ASSERT(mem != MAP_FAILED);
        auto* base = static_cast<uint8_t*>(mem);
        const size_t head = soft_responder::placeholder_bytes;
        // The packet's first 64 bytes in page 0, the rest in page 1 (a plain memcpy of
        // 4 KiB here writes forward from there: its first bytes before the fault).
        uint8_t* dest = base + page - 64;
        std::memset(dest, 0xAA, head);                  // the placeholder
        const std::vector<uint8_t> payload(4096, 0x55); // a packet of a 4096 path MTU
        // The rest cannot be written: the copy faults before the head is touched.
        CPPUNIT_ASSERT_EQUAL(0, mprotect(base + page, page, PROT_READ));
        CPPUNIT_ASSERT(placing_faults(dest, payload));
        for (size_t i = 0; i < head; i++)
            CPPUNIT_ASSERT_EQUAL(uint8_t(0xAA), dest[i]);
        // Writable, the whole payload lands; one shorter than the head lands too.
        CPPUNIT_ASSERT_EQUAL(0, mprotect(base + page, page, PROT_READ | PROT_WRITE));
        CPPUNIT_ASSERT(!placing_faults(dest, payload));
        CPPUNIT_ASSERT_EQUAL(0, std::memcmp(dest, payload.data(), payload.size()));
        const std::vector<uint8_t> tiny(6, 0x11);
        CPPUNIT_ASSERT(!placing_faults(base, tiny));
        CPPUNIT_ASSERT_EQUAL(0, std::memcmp(base, tiny.data(), tiny.size()));
        munmap(mem, 2 * page);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_soft_placement);
