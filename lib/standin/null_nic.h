/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_STANDIN_NULL_NIC_H
#define INCLUDED_RDMA_STANDIN_NULL_NIC_H

#include "../nic/nic.h"
#include <cstdint>
#include <memory>

namespace gr {
namespace rdma {
namespace nic {
class soft_tables;
} // namespace nic

namespace standin {

/*!
 * One WRITE message as the null device (standin::null_device) hands it to a null NIC:
 * where it starts, how long it is, its packets' size (the path MTU), and whether it
 * carries immediate data.
 */
struct null_message {
    uint64_t va = 0;
    uint32_t bytes = 0;
    uint32_t packet_bytes = 0;
    uint32_t mark_bytes = 0; //!< bytes written at the start of each packet (<= 16)
    bool immediate = false;
    uint32_t imm = 0;
};

/*!
 * The null NIC's side that the null device talks to, found by the NIC's RoCE
 * address. Executes messages as a UC responder would, but writes only the first
 * mark_bytes of every packet (zeros over the placeholder positions: what tells the
 * host a packet landed) and no payload: the benchmarks' "writer that only advances the
 * write position" (docs/performance.md, zero-copy ceiling).
 */
class null_port
{
public:
    explicit null_port(std::shared_ptr<nic::soft_tables> tables)
        : d_tables(std::move(tables))
    {
    }

    /*!
     * Execute \p count messages for local QP \p qpn into the MR of \p rkey under the
     * table lock: the QP must exist, be a UC QP in RTR or RTS granting remote write;
     * the MR must be in the QP's PD, grant remote write and hold each whole message; a
     * message WITH IMMEDIATE takes a receive WR and completes (written_ns = when its
     * marks were written), or without one is dropped entirely. Each rejection counts
     * under the soft NIC's counter of the same name. Returns the messages executed.
     */
    size_t
    execute(uint32_t qpn, uint32_t rkey, const null_message* messages, size_t count);

private:
    const std::shared_ptr<nic::soft_tables> d_tables;
};

/*!
 * nic=null: a NIC with no network port, for the zero-copy ceiling benchmark only
 * (device args type=null; docs/device-args.md). It has the soft NIC's verbs objects
 * (protection domain, memory regions, UC/RC queue pairs, completion queues: the same
 * code, the same checks), no socket and no thread. Its only writer is a null device in
 * the same process, which finds it with find(roce_address()).
 */
class null_nic : public nic::device
{
public:
    null_nic();
    ~null_nic() override;
    null_nic(const null_nic&) = delete;
    null_nic& operator=(const null_nic&) = delete;

    std::string name() const override;
    //! 127.0.0.1 and a port number unique in this process; nothing is bound to it.
    socket_address roce_address() const override { return d_address; }
    int numa_node() const override { return -1; }
    unsigned max_path_mtu() const override { return 4096; }
    std::unique_ptr<nic::protection_domain> alloc_pd() override;
    std::unique_ptr<nic::completion_queue> create_cq(int entries) override;
    nic::counters read_counters() const override;

    //! The port of the null NIC at \p address in this process; null if there is none.
    static std::shared_ptr<null_port> find(const socket_address& address);

private:
    const std::shared_ptr<nic::soft_tables> d_tables;
    const socket_address d_address;
    const std::shared_ptr<null_port> d_port;
};

} // namespace standin
} // namespace rdma
} // namespace gr

#endif
