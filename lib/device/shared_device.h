/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_DEVICE_SHARED_DEVICE_H
#define INCLUDED_RDMA_DEVICE_SHARED_DEVICE_H

#include "../util/device_args.h"
#include "consumer_pacing.h"
#include "device_controller.h"
#include "device_kind.h"
#include "metadata_intake.h"
#include "radio_control.h"
#include "rate_controller.h"
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace gr {
namespace rdma {

/*!
 * An SDR as this process sees it, opened once per identity and shared by every block
 * and stream that names it (UHD caches its devices the same way): the backend that
 * plays it in this process, if any (the emulator, the stand-in), the AXIoE controller
 * and what the device says about itself. Streams are made from it, one per RX stream
 * index at a time.
 *
 * Identity: a remote device is its control address (type=remote,addr=...); a device in
 * this process is its kind and its own args (type=emu,wire=inproc is another emulator
 * than type=emu). name= tells two apart on purpose: two emulators, or two views of one
 * remote device as two hosts would have. Every other device arg configures the
 * streams, not the device.
 */
class shared_device
{
public:
    //! The device these args name: the one already open in this process, else a new
    //! one. Throws std::invalid_argument for bad args, std::runtime_error when the
    //! device does not answer like a gr-rdma device.
    static std::shared_ptr<shared_device> open(const device_args& args);
    //! The device args every device reads (type, addr, name, timeout, retries).
    static const arg_table& keys();
    //! Each registered kind's own keys (device_kind::keys), those of loaded modules.
    static std::vector<const arg_table*> kind_keys();

    ~shared_device();
    shared_device(const shared_device&) = delete;
    shared_device& operator=(const shared_device&) = delete;

    const device_kind& kind() const { return *d_kind; }
    const std::string& identity() const { return d_identity; }
    const socket_address& address() const { return d_controller->address(); }
    device_controller& controller() { return *d_controller; }
    //! Its radio: RF channels, time, timed commands (docs/radio.md).
    radio_control& radio() { return *d_radio; }
    //! Its controller's policy and period (docs/links.md, SCR).
    rate_controller& rates() { return *d_rates; }
    const device_info& info() const { return d_info; }
    //! Link 0: its address (where RoCEv2 comes from), MTU, MAC.
    const link_state& link() const { return d_link; }
    //! Whether the device runs in this process (type=emu, type=null).
    bool in_process() const { return static_cast<bool>(d_backend); }
    //! RX (TX with \p tx) stream \p stream's pacing by its host (the test mode
    //! emu_pace=consumer), when the device is an emulator in this process; else null.
    std::shared_ptr<consumer_pacing> pacing(bool tx, unsigned stream) const
    {
        return pacing_registry::find(address(), tx, stream);
    }

    //! The device's metadata channel, shared by its streams: made by the first stream
    //! that asks, receiving on \p bind_to (the address of its NIC); later streams
    //! share it wherever their NIC is (the device has one destination).
    std::shared_ptr<metadata_intake> metadata_intake_for(const socket_address& bind_to);

    //! RX stream s of the device, used by one stream object of this process for as long
    //! as the claim lives.
    class rx_claim
    {
    public:
        rx_claim(std::shared_ptr<shared_device> dev, unsigned stream);
        ~rx_claim();
        rx_claim(const rx_claim&) = delete;
        rx_claim& operator=(const rx_claim&) = delete;
        unsigned stream() const { return d_stream; }
        shared_device& dev() const { return *d_device; }
        const std::shared_ptr<shared_device>& shared() const { return d_device; }

    private:
        const std::shared_ptr<shared_device> d_device;
        const unsigned d_stream;
    };
    //! Claim RX stream \p stream; throws std::invalid_argument naming the fix when the
    //! device has no such stream or another stream object of this process has it.
    static std::unique_ptr<rx_claim> claim_rx(const std::shared_ptr<shared_device>& dev,
                                              unsigned stream);
    //! Throws std::invalid_argument naming the fix when \p dev has no RX stream \p
    //! stream.
    static void check_rx_stream(const shared_device& dev, unsigned stream);

    //! TX stream t of the device, used by one tx_stream of this process for as long as
    //! the claim lives.
    class tx_claim
    {
    public:
        tx_claim(std::shared_ptr<shared_device> dev, unsigned stream);
        ~tx_claim();
        tx_claim(const tx_claim&) = delete;
        tx_claim& operator=(const tx_claim&) = delete;

    private:
        const std::shared_ptr<shared_device> d_device;
        const unsigned d_stream;
    };
    //! Claim TX stream \p stream; throws std::invalid_argument naming the fix when the
    //! device has no such stream or another tx_stream of this process has it.
    static std::unique_ptr<tx_claim> claim_tx(const std::shared_ptr<shared_device>& dev,
                                              unsigned stream);
    //! Throws std::invalid_argument naming the fix when \p dev cannot transmit on TX
    //! stream \p stream (no CAP_TX, or fewer TX streams).
    static void check_tx_stream(const shared_device& dev, unsigned stream);

private:
    shared_device(const device_kind& kind,
                  std::string identity,
                  std::unique_ptr<device_backend> backend,
                  const socket_address& control,
                  const axioe::client_options& options);

    const device_kind* d_kind;
    const std::string d_identity;
    // Declared in creation order: the backend (the device itself) outlives its
    // controller.
    std::unique_ptr<device_backend> d_backend;
    std::unique_ptr<device_controller> d_controller;
    std::unique_ptr<radio_control> d_radio;
    std::unique_ptr<rate_controller> d_rates;
    device_info d_info;
    link_state d_link;

    std::mutex d_mutex;
    std::set<unsigned> d_claimed_rx;             // guarded by d_mutex
    std::set<unsigned> d_claimed_tx;             // guarded by d_mutex
    std::shared_ptr<metadata_intake> d_metadata; // guarded by d_mutex
};

} // namespace rdma
} // namespace gr

#endif
