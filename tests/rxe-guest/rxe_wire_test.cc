/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// rxe_wire_test: does real rxe accept the emulator's raw wire? A minimal receiver
// written straight against libibverbs (no gr-rdma NIC code) takes one ring's worth of
// RoCEv2 UC WRITEs from gr-rdma-emu --wire raw and checks the data, the immediate
// completions and rxe's packet counter. It isolates the wire from the verbs backend:
// when rxe_rx_test fails and this passes, look at lib/nic/verbs_*.
//
// Runs in the rxe guest (root namespace, rxe0 on veth0); the emulator daemon listens on
// 192.0.2.2:50100 in namespace dev.

#include "axioe/axioe_client.h"
#include "guest_check.h"
#include "regs/register_map.h"
#include <gnuradio/rdma/ramp.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <unistd.h>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <vector>

using namespace gr::rdma;

namespace {

constexpr uint32_t payload = 1024; // bytes per WRITE message = path MTU on veth
constexpr uint32_t ring_messages =
    64; // one ring, no wrap: the data is checked at the end
constexpr uint32_t notify = 16;
constexpr uint32_t rate = 1000000; // sc16 samples/s: gentle on TCG
constexpr int receives = 64;

struct verbs_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <typename T, int (*destroy)(T*)>
struct verbs_deleter {
    void operator()(T* p) const
    {
        if (p)
            destroy(p);
    }
};
template <typename T, int (*destroy)(T*)>
using verbs_ptr = std::unique_ptr<T, verbs_deleter<T, destroy>>;

template <typename T>
T* must(T* p, const char* what)
{
    if (!p)
        throw verbs_error(std::string(what) + " failed: " + std::strerror(errno));
    return p;
}

void must(int rc, const char* what)
{
    if (rc != 0)
        throw verbs_error(std::string(what) +
                          " failed: " + std::strerror(rc > 0 ? rc : errno));
}

ibv_gid ipv4_mapped_gid(const char* ip)
{
    ibv_gid gid{};
    gid.raw[10] = 0xFF;
    gid.raw[11] = 0xFF;
    inet_pton(AF_INET, ip, gid.raw + 12);
    return gid;
}

// The RoCEv2 GID index of \p ip on port 1 (rxe lists a RoCE v1 and a v2 entry per
// address).
int find_gid_index(ibv_context* ctx, const char* ip)
{
    const ibv_gid want = ipv4_mapped_gid(ip);
    ibv_port_attr port{};
    must(ibv_query_port(ctx, 1, &port), "ibv_query_port");
    for (int i = 0; i < port.gid_tbl_len; i++) {
        ibv_gid_entry entry{};
        if (ibv_query_gid_ex(ctx, 1, i, &entry, 0) != 0)
            continue;
        if (entry.gid_type == IBV_GID_TYPE_ROCE_V2 &&
            std::memcmp(&entry.gid, &want, sizeof(want)) == 0)
            return i;
    }
    throw verbs_error(std::string("no RoCEv2 GID for ") + ip + " on port 1");
}

} // namespace

int main()
{
    rxe_guest::checker check("rxe_wire_test");
    try {
        int num = 0;
        std::unique_ptr<ibv_device*, void (*)(ibv_device**)> list(
            ibv_get_device_list(&num), ibv_free_device_list);
        ibv_device* dev = nullptr;
        for (int i = 0; list && i < num; i++)
            if (std::strcmp(ibv_get_device_name(list.get()[i]), rxe_guest::rxe_device) ==
                0)
                dev = list.get()[i];
        if (!check.expect(dev != nullptr, "libibverbs lists rxe0 (rxe provider loaded)"))
            return check.status();
        verbs_ptr<ibv_context, ibv_close_device> ctx(
            must(ibv_open_device(dev), "ibv_open_device"));
        const int gid_index = find_gid_index(ctx.get(), rxe_guest::host_ip);
        check.note("RoCEv2 GID index of 192.0.2.1: " + std::to_string(gid_index));

        const size_t ring_bytes = size_t(ring_messages) * payload;
        void* ring = mmap(nullptr,
                          ring_bytes,
                          PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS,
                          -1,
                          0);
        if (ring == MAP_FAILED)
            throw verbs_error("mmap ring");
        std::memset(ring, 0xA5, ring_bytes);

        verbs_ptr<ibv_pd, ibv_dealloc_pd> pd(
            must(ibv_alloc_pd(ctx.get()), "ibv_alloc_pd"));
        verbs_ptr<ibv_mr, ibv_dereg_mr> mr(
            must(ibv_reg_mr(pd.get(),
                            ring,
                            ring_bytes,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
                 "ibv_reg_mr"));
        verbs_ptr<ibv_cq, ibv_destroy_cq> cq(
            must(ibv_create_cq(ctx.get(), 2 * receives, nullptr, nullptr, 0),
                 "ibv_create_cq"));
        ibv_qp_init_attr qpa{};
        qpa.send_cq = cq.get();
        qpa.recv_cq = cq.get();
        qpa.qp_type = IBV_QPT_UC;
        qpa.cap.max_send_wr = 1;
        qpa.cap.max_recv_wr = receives;
        qpa.cap.max_send_sge = 1;
        qpa.cap.max_recv_sge = 1;
        verbs_ptr<ibv_qp, ibv_destroy_qp> qp(
            must(ibv_create_qp(pd.get(), &qpa), "ibv_create_qp"));

        ibv_qp_attr attr{};
        attr.qp_state = IBV_QPS_INIT;
        attr.pkey_index = 0;
        attr.port_num = 1;
        attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
        must(ibv_modify_qp(qp.get(),
                           &attr,
                           IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                               IBV_QP_ACCESS_FLAGS),
             "modify QP to INIT");
        // WRITE WITH IMMEDIATE consumes a receive WR: zero-length ones suffice.
        for (int i = 0; i < receives; i++) {
            ibv_recv_wr wr{}, *bad = nullptr;
            wr.wr_id = i;
            must(ibv_post_recv(qp.get(), &wr, &bad), "ibv_post_recv");
        }

        axioe::client axi(socket_address::parse(rxe_guest::device_control));
        auto rx = [](uint32_t r) { return regs::rx_reg(0, r); };
        const uint32_t device_qpn = axi.read32(rx(regs::rx::source_qpn));
        const uint32_t roce_port = axi.read32(regs::link_reg(0, regs::link::roce_port));
        check.expect_eq(roce_port, 4791u, "the raw wire takes RoCEv2 on port 4791");

        std::random_device rd;
        const uint32_t psn = rd() & 0xFFFFFF;
        attr = {};
        attr.qp_state = IBV_QPS_RTR;
        attr.path_mtu = IBV_MTU_1024;
        attr.dest_qp_num = device_qpn;
        attr.rq_psn = psn;
        attr.ah_attr.is_global = 1;
        attr.ah_attr.grh.dgid = ipv4_mapped_gid(rxe_guest::device_ip);
        attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
        attr.ah_attr.grh.hop_limit = 64;
        attr.ah_attr.port_num = 1;
        // RTR resolves the device's MAC by ARP (the kernel in namespace dev answers).
        must(ibv_modify_qp(qp.get(),
                           &attr,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                               IBV_QP_RQ_PSN),
             "modify QP to RTR");

        const uint64_t rcvd_before =
            rxe_guest::rxe_counters_settled({ "rcvd_pkts" }, check, "before: ")["rcvd_pkts"];
        axi.write32(rx(regs::rx::dest_ipv4), ntohl(inet_addr(rxe_guest::host_ip)));
        axi.write32(rx(regs::rx::dest_udp_port), 4791);
        axi.write32(rx(regs::rx::dest_qpn), qp->qp_num);
        axi.write32(rx(regs::rx::start_psn), psn);
        axi.write32(rx(regs::rx::rkey), mr->rkey);
        axi.write64(rx(regs::rx::va_lo), reinterpret_cast<uintptr_t>(ring));
        axi.write64(rx(regs::rx::ring_bytes_lo), ring_bytes);
        axi.write32(rx(regs::rx::payload_bytes), payload);
        axi.write32(rx(regs::rx::path_mtu), payload);
        axi.write32(rx(regs::rx::notify_interval), notify);
        axi.write32(rx(regs::rx::rate_num), rate);
        axi.write32(rx(regs::rx::rate_den), 1);
        axi.write32(rx(regs::rx::format), regs::format::sc16);
        axi.write32(rx(regs::rx::transport), 0);
        axi.write64(rx(regs::rx::start_time_lo), 0);
        axi.write64(rx(regs::rx::num_samples_lo), uint64_t(ring_messages) * payload / 4);
        axi.write32(regs::emu_reg(0, regs::emu::signal), regs::signal::ramp);
        axi.write32(rx(regs::rx::command), regs::command::start);

        // Completions: one per notify interval, immediate = message index (network
        // order).
        std::vector<uint32_t> imms;
        unsigned bad_completions = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (imms.size() < ring_messages / notify &&
               std::chrono::steady_clock::now() < deadline) {
            ibv_wc wc[8];
            const int n = ibv_poll_cq(cq.get(), 8, wc);
            for (int i = 0; i < n; i++) {
                if (wc[i].status != IBV_WC_SUCCESS ||
                    wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
                    check.note(std::string("completion: ") +
                               ibv_wc_status_str(wc[i].status));
                    bad_completions++;
                    continue;
                }
                imms.push_back(ntohl(wc[i].imm_data));
            }
            if (n == 0)
                usleep(1000);
        }
        check.expect_eq(
            bad_completions, 0u, "completions other than RECV_RDMA_WITH_IMM success");
        check.expect(rxe_guest::wait_device_done(axi), "the emulator finished the burst");
        const uint64_t sent = axi.read64(rx(regs::rx::packets_sent_lo));
        const uint64_t imm_sent = axi.read64(rx(regs::rx::imm_sent_lo));
        axi.write32(rx(regs::rx::command), regs::command::stop);
        const uint64_t rcvd =
            rxe_guest::rxe_counters_settled({ "rcvd_pkts" }, check, "after: ")["rcvd_pkts"] -
            rcvd_before;

        check.expect_eq(
            imms.size(), size_t(imm_sent), "immediate completions == device.imm_sent");
        bool in_sequence = imms.size() == ring_messages / notify;
        for (size_t i = 0; i < imms.size(); i++)
            in_sequence = in_sequence && imms[i] == (i + 1) * notify - 1;
        check.expect(in_sequence, "immediates arrive as message indices 15, 31, 47, 63");
        check.expect_eq(sent, uint64_t(ring_messages), "device.packets_sent");
        check.expect_eq(rcvd, sent, "rxe rcvd_pkts delta == device.packets_sent");
        ramp_errors errors;
        check_ramp(sample_format::sc16, 0, ring, ring_bytes / 4, errors);
        check.expect_eq(errors.mismatches, uint64_t(0), "ring holds the ramp bit-exact");
        if (errors.mismatches)
            check.note("first mismatch at item " + std::to_string(errors.first_mismatch));
        qp.reset();
        mr.reset();
        munmap(ring, ring_bytes);
    } catch (const std::exception& e) {
        check.expect(false, std::string("exception: ") + e.what());
    }
    return check.status();
}
