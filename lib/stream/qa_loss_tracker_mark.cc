/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The loss tracker's placeholder mark (qa_loss_tracker_bench.h): its size per format,
// random per run, the old fixed marks now plain data, and samples that equal the mark,
// delivered only with the NIC's proof that their message landed.

#include "qa_loss_tracker_bench.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::rdma;
using namespace qa_loss_tracker_bench;

class qa_loss_tracker_mark : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_loss_tracker_mark);
    CPPUNIT_TEST(test_mark_is_random_per_run);
    CPPUNIT_TEST(test_old_fixed_marks_are_data_now);
    CPPUNIT_TEST(test_samples_equal_to_the_mark_need_a_proof);
    CPPUNIT_TEST(test_sc8_mark_is_64_bits_and_fits_short_packets);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_sc8_mark_is_64_bits_and_fits_short_packets()
    {
        // sc8 items are 2 bytes: the mark is two 32-bit words (four items), as sc16's;
        // a packet shorter than that holds what fits of the first word, and arming it
        // writes nothing past it.
        placeholder mark(sample_format::sc8);
        CPPUNIT_ASSERT_THROW(mark.set_mark(0x12340000u, 1), std::invalid_argument);
        mark.set_mark(0x89ABCDEFu, 0x01234567u);
        for (size_t items : { size_t(1), size_t(2), size_t(3), size_t(4), size_t(512) }) {
            std::vector<uint8_t> slot(2 * items + 8, 0x5A);
            mark.arm(slot.data(), items);
            CPPUNIT_ASSERT(mark.present(slot.data(), items));
            const size_t bytes = 2 * items;
            const size_t written = bytes >= 8 ? 8 : bytes >= 4 ? 4 : bytes;
            for (size_t b = written; b < slot.size(); b++)
                CPPUNIT_ASSERT_EQUAL(uint8_t(0x5A), slot[b]); // nothing beyond
            // Any sample of the mark's items landing differently clears it.
            for (size_t b = 0; b < written; b++) {
                std::vector<uint8_t> landed = slot;
                landed[b] ^= 0x01;
                CPPUNIT_ASSERT(!mark.present(landed.data(), items));
            }
        }
        uint32_t first;
        std::vector<uint8_t> slot(16, 0);
        mark.arm(slot.data(), 8);
        std::memcpy(&first, slot.data(), 4);
        CPPUNIT_ASSERT_EQUAL(0x89ABCDEFu, first);
        // A fresh random mark never has a first item of zeros (lost samples' value).
        for (int run = 0; run < 1000; run++) {
            mark.renew();
            CPPUNIT_ASSERT((mark.first_word() & 0xFFFF) != 0);
            CPPUNIT_ASSERT(mark.first_word() <= 0xFFFFFFFFu);
        }
    }

    void test_mark_is_random_per_run()
    {
        bench b;
        const uint64_t first = b.tracker.mark().first_word();
        const uint64_t second = b.tracker.mark().second_word();
        CPPUNIT_ASSERT(first != 0 && second != 0 && first <= UINT32_MAX);
        // Every slot holds this run's mark.
        for (uint64_t p = 0; p < N / P; p++) {
            uint32_t w[2];
            std::memcpy(w, b.slot(p), 8);
            CPPUNIT_ASSERT_EQUAL(uint32_t(first), w[0]);
            CPPUNIT_ASSERT_EQUAL(uint32_t(second), w[1]);
        }
        // The next run draws another (2^-64 odds of a repeat).
        b.tracker.reset();
        CPPUNIT_ASSERT(b.tracker.mark().first_word() != first ||
                       b.tracker.mark().second_word() != second);
        // fc32 marks are 128 bits.
        std::vector<uint8_t> memory(2 * N * 8);
        loss_tracker f({ memory.data(), N, P, 0, 0 }, sample_format::fc32);
        CPPUNIT_ASSERT(f.mark().first_word() > UINT32_MAX ||
                       f.mark().second_word() > UINT32_MAX);
    }

    void test_old_fixed_marks_are_data_now()
    {
        // sc16 (-32768, -32768), (+32767, +32767): what a saturated radio sends, and
        // once the fixed mark. Now it is data like any other.
        bench b;
        for (uint64_t p = 0; p < 40; p++) {
            b.device_writes_words(p, 0x80008000u, 0x7FFF7FFFu);
            b.tracker.on_progress((p + 1) * P, (p + 1) * P);
            const uint64_t device = b.tracker.device_item(b.next);
            const uint64_t n = b.tracker.deliverable(b.next, (p + 1) * P);
            b.tracker.commit(b.next, n);
            uint32_t w;
            std::memcpy(&w, b.memory.data() + (device % N) * 4, 4);
            CPPUNIT_ASSERT_EQUAL(0x80008000u, w); // handed out as it came
            b.next += n;
            b.tracker.on_release(b.next, (p + 1) * P);
        }
        CPPUNIT_ASSERT_EQUAL(uint64_t(40 * P), b.tracker.counts().delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), b.tracker.counts().lost());
    }

    void test_samples_equal_to_the_mark_need_a_proof()
    {
        // A signal equal to this run's mark cannot be told from a lost message by the
        // slot alone: without other evidence it is a loss (zeros, reported); with the
        // NIC's proof that the message landed it is delivered as received, and noticed.
        bench b;
        const auto first = static_cast<uint32_t>(b.tracker.mark().first_word());
        const auto second = static_cast<uint32_t>(b.tracker.mark().second_word());
        b.device_writes_words(0, first, second); // no proof: lost
        b.device_writes_words(1, first, second); // proven below
        b.device_writes(2);
        b.tracker.prove_landed(1, 2);
        b.tracker.on_progress(3 * P, 3 * P);
        // What is handed out, before the consumer lets go of it.
        CPPUNIT_ASSERT_EQUAL(uint64_t(3 * P), b.tracker.deliverable(0, 3 * P));
        b.tracker.commit(0, 3 * P);
        uint32_t w[2];
        std::memcpy(w, b.slot(1), 8);
        CPPUNIT_ASSERT_EQUAL(first, w[0]); // message 1 is what the device sent
        CPPUNIT_ASSERT_EQUAL(second, w[1]);
        std::memcpy(w, b.slot(0), 8);
        CPPUNIT_ASSERT_EQUAL(0u, w[0]); // message 0 was zero-filled
        CPPUNIT_ASSERT_EQUAL(0u, w[1]);
        rx_event e;
        while (b.tracker.poll_event(e))
            b.events.push_back(e);
        const auto& c = b.tracker.counts();
        CPPUNIT_ASSERT_EQUAL(uint64_t(P), c.lost_gap);
        CPPUNIT_ASSERT_EQUAL(uint64_t(2 * P), c.delivered);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), b.tracker.imitations());
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(1),
            b.count_events(rx_event::kind::notice, rx_event::reason::mark_imitated));
        for (const auto& e : b.events)
            if (e.type == rx_event::kind::notice)
                CPPUNIT_ASSERT_EQUAL(uint64_t(P), e.item);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_loss_tracker_mark);
