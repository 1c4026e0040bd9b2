/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// share=h/H (docs/links.md, "Several hosts") against an emulator of this process
// reached as a remote device: what a host of one share refuses, with the fix named.
// The two-process runs are python/rdma/qa_shares.py and the rxe guest's
// rxe_shares_test.

#include "../device/device_controller.h"
#include "../emu/emulator.h"
#include <gnuradio/rdma/rx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <stdexcept>
#include <string>

using namespace gr::rdma;

namespace {

std::string refusal_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

} // namespace

class qa_stream_shares : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_stream_shares);
    CPPUNIT_TEST(test_what_a_share_refuses);
    CPPUNIT_TEST(test_a_running_share_keeps_its_rate_and_the_fault_log);
    CPPUNIT_TEST_SUITE_END();

    //! Three links, so that links= is refused for what a share allows, not for them.
    static emu::emulator_config three_links()
    {
        emu::emulator_config c;
        for (int n = 1; n < 3; n++)
            c.more_links.push_back(socket_address::parse("127.0.0.1:0"));
        return c;
    }
    emu::emulator dev{ three_links() };

    std::string args(const std::string& more) const
    {
        return "type=remote,addr=" + dev.control_address().to_string() +
               ",signal=ramp,latency=0.1,hugepages=off," + more;
    }

public:
    void test_what_a_share_refuses()
    {
        const struct {
            const char* more;
            const char* names;
        } cases[] = {
            { "share=0/2,transport=rc", "drop transport=rc" },
            { "share=1/2,on_device_loss=wait", "drop on_device_loss=wait" },
            { "share=1/2,rate_limit=1e6", "rate_limit= goes to share 0's host" },
            { "share=2/2", "0 <= h < H <= 8" },
            // Three hosts have two destinations each of the device's eight.
            { "share=1/3,links=3", "give links=2 or fewer" },
            { "share=1/2,links=2,emu_link_down=1@0.1",
              "emu_link_* go to share 0's host" },
        };
        for (const auto& c : cases) {
            const std::string what =
                refusal_of([&] { rx_stream s(args(c.more), "sc16", 1e6, 0); });
            CPPUNIT_ASSERT_MESSAGE(std::string(c.more) + ": " + what,
                                   what.find(c.names) != std::string::npos);
        }
    }

    void test_a_running_share_keeps_its_rate_and_the_fault_log()
    {
        // Share 1 held and programmed by another client (nobody listens there: its
        // packets are lost on the loopback), so that share 0's host may START.
        device_controller other(dev.control_address());
        rx_stream lead(args("share=0/2,share_wait=5"), "sc16", 1e6, 0);
        other.client().write32(regs::rx_reg(0, regs::rx::shares), 2);
        other.claim_share(0, 1, 0x5A5A, 5000, false);
        const unsigned d = regs::destinations_per_share(2); // share 1's first: 4
        auto& c = other.client();
        c.write32(regs::rx_dest_reg(0, d, regs::dst::ipv4), 0x7F000001);
        c.write32(regs::rx_dest_reg(0, d, regs::dst::udp_port), 9); // discard
        c.write64(regs::rx_dest_reg(0, d, regs::dst::ring_bytes_lo), 1u << 20);
        c.write32(regs::rx_dest_reg(0, d, regs::dst::qpn), 0x11);
        lead.start();
        CPPUNIT_ASSERT(lead.running());
        const std::string rate = refusal_of([&] { lead.change_rate(2e6, 0, 0); });
        CPPUNIT_ASSERT_MESSAGE(rate,
                               rate.find("(share=) keeps its rate") != std::string::npos);
        const std::string log = refusal_of([&] { lead.read_injected_faults(); });
        CPPUNIT_ASSERT_MESSAGE(log, log.find("one share (share=)") != std::string::npos);
        lead.stop();
        other.release_share(0, 1);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_stream_shares);
