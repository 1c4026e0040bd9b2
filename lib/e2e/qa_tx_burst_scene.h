/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_E2E_QA_TX_BURST_SCENE_H
#define INCLUDED_RDMA_E2E_QA_TX_BURST_SCENE_H

// The bench of the queued TX burst tests (qa_tx_bursts.cc, qa_tx_records.cc).

#include "../device/device_controller.h"
#include "../emu/emulator.h"
#include "../meta/metadata_packet.h"
#include "../util/udp_socket.h"
#include "qa_tx_host.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {
namespace qa {

/*!
 * An emulator, the stand-in host, a controller that pushes the bursts, and a UDP
 * socket the device's metadata channel sends its records to.
 */
struct tx_burst_scene {
    explicit tx_burst_scene(const tx_run_setup& s, const emu::emulator_config& c = {})
        : setup(s),
          dev(c),
          axi(dev.control_address()),
          ctl(dev.control_address()),
          records_socket(socket_address::parse("127.0.0.1:0")),
          host(dev.link_address(), s.payload, s.slots, s.format)
    {
        ctl.identify();
        records_socket.request_receive_buffer(8u << 20);
        const socket_address to = records_socket.local_address();
        const uint32_t md[4] = {
            to.ip(), to.port(), 0, regs::metadata::control_bits::enable
        };
        axi.write_atomic(regs::metadata_reg(regs::metadata::dest_ipv4), md, 4);
        program(axi, host, s);
    }

    uint64_t start()
    {
        if (!host_started)
            host.start();
        host_started = true;
        axi.write32(tx(regs::tx::command), regs::command::start);
        return axi.read64(tx(regs::tx::start_time_lo));
    }

    //! Push, waiting while the queue is full.
    void push(bool start_entry, uint64_t item, uint64_t time_ns = 0)
    {
        for (;;) {
            try {
                if (start_entry)
                    ctl.push_tx_start(0, item, time_ns);
                else
                    ctl.push_tx_end(0, item);
                return;
            } catch (const tx_burst_refused& e) {
                CPPUNIT_ASSERT_EQUAL_MESSAGE(e.what(), regs::tbq::error::full, e.code());
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
    }

    void stop() { axi.write32(tx(regs::tx::command), regs::command::stop); }

    //! The TX records received so far, in order; none may have been lost.
    std::vector<meta::record> records()
    {
        std::vector<uint8_t> buf(2048);
        for (;;) {
            datagram d;
            d.data = buf.data();
            d.capacity = buf.size();
            if (!records_socket.receive(d, std::chrono::milliseconds(50)))
                break;
            meta::record r;
            CPPUNIT_ASSERT(meta::parse(buf.data(), d.length, r) ==
                           meta::parse_status::ok);
            CPPUNIT_ASSERT_EQUAL(uint32_t(received.size()), r.sequence); // no hole
            received.push_back(r);
        }
        CPPUNIT_ASSERT_EQUAL(
            uint64_t(0),
            axi.read64(regs::metadata_reg(regs::metadata::packets_dropped_lo)));
        for (const meta::record& r : received) // only the TX stream sends here
            CPPUNIT_ASSERT_EQUAL(meta::tx_stream_byte(0), r.stream);
        return received;
    }

    //! The identities of the run, at STOP.
    regs::tx_counters check_identities()
    {
        const regs::tx_counters c = read_counters(axi);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c),
                                     host.committed(),
                                     c.samples_played + c.late_zero_samples +
                                         c.dropped_samples + c.samples_not_played);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(c),
                                     dev.tx(0).ticks(),
                                     c.samples_played + c.late_zero_samples +
                                         c.underflow_samples + c.idle_ticks);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), c.check_mismatches);
        CPPUNIT_ASSERT_EQUAL(c.samples_played, c.check_samples);
        return c;
    }

    tx_run_setup setup;
    emu::emulator dev;
    axioe::client axi;
    device_controller ctl;
    udp_socket records_socket;
    tx_host host;
    std::vector<meta::record> received;
    bool host_started = false;
};

} // namespace qa
} // namespace rdma
} // namespace gr

#endif
