/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host's side of several links before any QP: what links=, weights= and nic_addr=
// ask for (and how they are refused), and which link each final or lost message is
// counted for (docs/links.md, "Host side").

#include "link_accounting.h"
#include "link_args.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <stdexcept>

using namespace gr::rdma;
using weights_t = std::array<uint16_t, regs::link_schedule::max_destinations>;

namespace {
constexpr uint64_t ipm = 256; // items per message

link_plan plan(const std::string& text)
{
    return link_plan::from_args(device_args::parse(text));
}

bool refused(const std::string& text)
{
    try {
        plan(text);
    } catch (const std::invalid_argument&) {
        return true;
    }
    return false;
}
} // namespace

class qa_link_accounting : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_link_accounting);
    CPPUNIT_TEST(test_without_links_one_destination_as_today);
    CPPUNIT_TEST(test_links_weights_and_one_nic_per_link);
    CPPUNIT_TEST(test_inconsistent_link_args_are_refused);
    CPPUNIT_TEST(test_final_messages_count_for_their_links_by_weight);
    CPPUNIT_TEST(test_loss_goes_to_the_link_of_each_message);
    CPPUNIT_TEST(test_an_epoch_moves_the_counting);
    CPPUNIT_TEST(test_burst_end_and_forgotten_epochs);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_without_links_one_destination_as_today()
    {
        const link_plan p = plan("type=emu,nic_addr=127.0.0.1");
        CPPUNIT_ASSERT_EQUAL(1u, p.links);
        CPPUNIT_ASSERT(!p.several());
        CPPUNIT_ASSERT(p.weights.empty());
        CPPUNIT_ASSERT(p.nic_addresses.empty()); // nic_config's, as before
    }

    void test_links_weights_and_one_nic_per_link()
    {
        const link_plan p = plan("links=2,weights=3:1,nic_addr=127.0.0.1+127.0.0.2");
        CPPUNIT_ASSERT_EQUAL(2u, p.links);
        CPPUNIT_ASSERT(p.several());
        CPPUNIT_ASSERT(p.weights == std::vector<uint16_t>({ 3, 1 }));
        CPPUNIT_ASSERT(p.nic_addresses ==
                       std::vector<uint32_t>({ 0x7F000001, 0x7F000002 }));
        // One NIC for both links: nic_config's address, nothing per link.
        const link_plan one = plan("links=2,nic_addr=127.0.0.1");
        CPPUNIT_ASSERT(one.nic_addresses.empty());
        CPPUNIT_ASSERT(one.weights.empty()); // the links' LINK_WEIGHT
    }

    void test_inconsistent_link_args_are_refused()
    {
        CPPUNIT_ASSERT(refused("links=0"));
        CPPUNIT_ASSERT(refused("links=9"));
        CPPUNIT_ASSERT(refused("weights=3:1"));         // two weights, one link
        CPPUNIT_ASSERT(refused("links=3,weights=3:1")); // two weights, three links
        CPPUNIT_ASSERT(refused("links=2,weights=0:0")); // nothing takes messages
        CPPUNIT_ASSERT(refused("links=2,weights=1000:25"));
        CPPUNIT_ASSERT(refused("links=2,weights=70000:1"));
        CPPUNIT_ASSERT(refused("links=2,nic_addr=127.0.0.1+127.0.0.2+127.0.0.3"));
        CPPUNIT_ASSERT(refused("links=2,nic_addr=127.0.0.1+nowhere"));
        CPPUNIT_ASSERT(refused("nic_addr=127.0.0.1+127.0.0.2")); // two NICs, one link
        CPPUNIT_ASSERT(!refused("links=2,weights=1024:0"));
        // Why '+': a comma ends the pair, so "A,B" is not one device arg.
        CPPUNIT_ASSERT_THROW(device_args::parse("links=2,nic_addr=127.0.0.1,127.0.0.2"),
                             std::invalid_argument);
    }

    void test_final_messages_count_for_their_links_by_weight()
    {
        // 3:1 is 0 0 1 0 (docs/register-map.md); destination 0 on link 1, 1 on link 0.
        regs::link_schedule s;
        s.begin_epoch(0, weights_t{ 3, 1 }, 16);
        link_accounting a;
        a.reset(s, { 1, 0 }, ipm);
        a.on_final(3); // 0 0 1
        CPPUNIT_ASSERT_EQUAL(uint64_t(2), a.counts(1).messages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), a.counts(0).messages);
        a.on_final(2); // behind: nothing again
        a.on_final(4000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(3000), a.counts(1).messages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(1000), a.counts(0).messages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), a.final_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.unattributed_messages());
    }

    void test_loss_goes_to_the_link_of_each_message()
    {
        regs::link_schedule s;
        s.begin_epoch(0, weights_t{ 3, 1 }, 16);
        link_accounting a;
        a.reset(s, { 0, 1 }, ipm);
        a.on_lost(2 * ipm, ipm); // message 2: destination 1
        CPPUNIT_ASSERT_EQUAL(ipm, a.counts(1).lost_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.counts(0).lost_samples);
        // Half of message 5 (0), all of 6 (1), 7 (0), a quarter of 8 (0).
        a.on_lost(5 * ipm + ipm / 2, ipm / 2 + 2 * ipm + ipm / 4);
        CPPUNIT_ASSERT_EQUAL(2 * ipm, a.counts(1).lost_samples);
        CPPUNIT_ASSERT_EQUAL(ipm / 2 + ipm + ipm / 4, a.counts(0).lost_samples);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), a.unattributed_samples());
    }

    void test_an_epoch_moves_the_counting()
    {
        // 1:1, then link 1 out from message 16 on: its share is link 0's.
        regs::link_schedule s;
        s.begin_epoch(0, weights_t{ 1, 1 }, 16);
        s.begin_epoch(16, weights_t{ 1, 0 }, 16);
        link_accounting a;
        a.reset(s, { 0, 1 }, ipm);
        a.on_final(48);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8 + 32), a.counts(0).messages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(8), a.counts(1).messages);
        a.on_lost(13 * ipm, 6 * ipm); // 13, 15 on link 1; 14, 16, 17, 18 on link 0
        CPPUNIT_ASSERT_EQUAL(2 * ipm, a.counts(1).lost_samples);
        CPPUNIT_ASSERT_EQUAL(4 * ipm, a.counts(0).lost_samples);
    }

    void test_burst_end_and_forgotten_epochs()
    {
        regs::link_schedule s;
        s.begin_epoch(0, weights_t{ 1, 1 }, 16);
        link_accounting a;
        a.reset(s, { 0, 1 }, ipm, 10 * ipm + 7); // 11 messages, the last of 7 items
        a.on_final(1000);
        CPPUNIT_ASSERT_EQUAL(uint64_t(11), a.final_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(6), a.counts(0).messages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), a.counts(1).messages);
        // Five epochs: the first is forgotten, its messages belong to no known link,
        // and are counted so (the totals still add up).
        for (uint64_t e = 1; e <= regs::link_schedule::max_epochs; e++)
            s.begin_epoch(16 * e, weights_t{ 1, 1 }, 16);
        a.reset(s, { 0, 1 }, ipm);
        a.on_final(32);
        a.on_lost(ipm, 2 * ipm); // messages 1 and 2: epoch 0
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), a.unattributed_messages());
        CPPUNIT_ASSERT_EQUAL(uint64_t(32),
                             a.counts(0).messages + a.counts(1).messages +
                                 a.unattributed_messages());
        CPPUNIT_ASSERT_EQUAL(2 * ipm, a.unattributed_samples());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_link_accounting);
