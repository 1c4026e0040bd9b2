/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_DISCOVERY_H
#define INCLUDED_RDMA_APPS_DISCOVERY_H

#include "device_identity.h"
#include "util/socket_address.h"
#include "util/udp_socket.h"
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

/*
 * gr-rdma-find's search: the AXIoE READ of the identity block (ID_MAGIC .. SCRATCH)
 * sent to each address and broadcast address asked, and every answer collected. That
 * READ is a request every gr-rdma device already answers and one that changes nothing,
 * so discovery needs no protocol of its own.
 */

namespace gr {
namespace rdma {
namespace app {

struct discovery_target {
    socket_address to;
    bool broadcast = false;
    std::string origin; //!< how the user named it, for messages ("--broadcast eth0")
};

struct found_device {
    socket_address address; //!< where the answer came from: the device's AXIoE address
    device_identity identity;
};

/*!
 * The IPv4 broadcast address of interface \p name_or_ip, or \p name_or_ip itself if it
 * is an IPv4 address; usage_error naming \p flag when the interface does not exist or
 * has none (loopback, point-to-point).
 */
uint32_t broadcast_address(const std::string& flag, const std::string& name_or_ip);

class discovery
{
public:
    //! Resend period for targets that have not answered (and broadcasts, which catch
    //! devices whose first answer was lost): AXIoE's retransmission, without its
    //! 20 ms, since a broadcast may wake many devices.
    static constexpr std::chrono::milliseconds resend_period{ 100 };

    explicit discovery(std::vector<discovery_target> targets);

    /*!
     * Ask every target and collect answers for \p wait; returns early once every
     * target has answered when none is a broadcast. Nothing from the network is
     * trusted: what does not decode as the answer to one of these requests is noted
     * and ignored.
     */
    void run(std::chrono::duration<double> wait);

    //! The gr-rdma devices that answered, in the order of the targets given, the
    //! answers to a broadcast by address; each device once.
    std::vector<found_device> devices() const;
    //! What did not count as a device, one line each: no answer, an AXIoE error, not a
    //! gr-rdma device, not AXIoE at all (printed by -v).
    const std::vector<std::string>& notes() const { return d_notes; }

private:
    struct target_state {
        discovery_target target;
        uint32_t sequence = 0;
        std::array<uint8_t, 16> request{}; // a READ is the header alone
        bool answered = false;             // unicast: any answer, even an error
        bool failed = false;               // the request could not be sent
        unsigned answers = 0;              // broadcast: answers counted
    };
    struct answer {
        found_device device;
        size_t target;
    };

    void send_pending();
    void handle(const datagram& d);
    // The target whose request \p sequence answers, coming from \p peer; -1 if none.
    long match(uint32_t sequence, const socket_address& peer) const;
    bool done() const;
    bool seen(const socket_address& peer);

    std::vector<target_state> d_targets;
    udp_socket d_socket;
    std::vector<uint8_t> d_rx;
    std::vector<answer> d_answers;
    std::vector<socket_address> d_peers; // those that answered anything
    std::vector<std::string> d_notes;
};

} // namespace app
} // namespace rdma
} // namespace gr

#endif
