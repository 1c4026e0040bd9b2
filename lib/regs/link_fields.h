/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_REGS_LINK_FIELDS_H
#define INCLUDED_RDMA_REGS_LINK_FIELDS_H

#include "register_fields.h"
#include <array>
#include <cstdint>

/*
 * Map 1.5's blocks as structs both sides pack with the register table (as
 * register_fields.h does for the older blocks): the link block's additions, a
 * destination, an epoch, an emulated link.
 */

namespace gr {
namespace rdma {
namespace regs {

//! LINK_CONTROL .. LINK_CAPACITY of a link (cap::multi_link).
struct link_control_values {
    uint32_t control = link_control::up;
    uint32_t down_events = 0;
    uint64_t capacity = 0; //!< bytes per second; 0 unknown
};

//! What the host programs into destination d of an RX stream (DST_IPV4 .. DST_WEIGHT).
//! Defaults are the reset values.
struct destination_values {
    socket_address destination; //!< DST_IPV4 and DST_UDP_PORT
    uint32_t qpn = 0;           //!< 0: not used
    uint32_t start_psn = 0;
    uint32_t rkey = 0;
    uint64_t va = 0;
    uint64_t ring_bytes = 0;
    uint32_t link = 0;
    uint32_t weight = 1;
    bool used() const { return qpn != 0; }
};

//! DST_MESSAGES and DST_STATE.
struct destination_counters {
    uint64_t messages = 0;
    uint32_t state = 0; //!< dst::state_bits
};

//! DST_RTT_NS .. DST_ABANDONED of a destination's RC block (cap::rc_links).
struct rc_destination_counters {
    uint32_t rtt_ns = 0;
    uint32_t rtt_samples = 0;
    uint64_t retransmits = 0;
    uint64_t naks = 0;
    uint64_t abandoned = 0;
};

//! One epoch as its entry holds it (EPOCH_FIRST_j .. EPOCH_WEIGHTS_j).
struct epoch_values {
    uint64_t first = 0;                //!< its first local message
    uint32_t number = epoch::none;     //!< all ones: the entry holds none
    uint32_t cause = 0;                //!< epoch::cause_code
    uint32_t link = 0;                 //!< the link the cause names
    std::array<uint16_t, 8> weights{}; //!< per destination; 0: takes nothing

    //! The entry's 8 words from \p w (EPOCH_FIRST_j first).
    static epoch_values from_words(const uint32_t* w)
    {
        epoch_values e;
        e.first = join_words(w[0], w[1]);
        e.number = w[2];
        e.cause = w[3] & 0xFF;
        e.link = (w[3] >> 8) & 0xFF;
        for (unsigned i = 0; i < 4; i++) {
            e.weights[2 * i] = static_cast<uint16_t>(w[4 + i]);
            e.weights[2 * i + 1] = static_cast<uint16_t>(w[4 + i] >> 16);
        }
        return e;
    }
    void to_words(uint32_t* w) const
    {
        w[0] = low_word(first);
        w[1] = high_word(first);
        w[2] = number;
        w[3] = (cause & 0xFF) | ((link & 0xFF) << 8);
        for (unsigned i = 0; i < 4; i++)
            w[4 + i] = weights[2 * i] | (uint32_t(weights[2 * i + 1]) << 16);
    }
};

//! The emulator's emulated link (EMU_LINK_DOWN .. EMU_LINK_QUEUE_US).
struct emu_link_values {
    uint32_t down = 0;
    uint32_t loss_ppm = 0;
    uint32_t delay_us = 0;
    uint32_t reorder_us = 0;
    uint64_t rate = 0; //!< bytes per second; 0 none
    uint32_t seed = 0;
    uint32_t queue_us = 5000;
    bool impaired() const { return down || loss_ppm || delay_us || reorder_us || rate; }
};

//! What the emulated link did since reset (EMU_LINK_FRAMES_DROPPED ..).
struct emu_link_counters {
    uint64_t frames_dropped = 0;
    uint64_t samples_dropped = 0; //!< samples of messages one of whose frames it dropped
    uint64_t frames_delayed = 0;
    uint64_t frames_passed = 0;
};

// clang-format off
inline constexpr field<link_control_values> link_control_field_list[] = {
    detail::member<&link_control_values::control>("LINK_CONTROL"),
    detail::member<&link_control_values::down_events>("LINK_DOWN_EVENTS"),
    detail::member<&link_control_values::capacity>("LINK_CAPACITY"),
};

inline constexpr field<destination_values> destination_field_list[] = {
    { &named("DST_IPV4"),
      [](const destination_values& d) -> uint64_t { return d.destination.ip(); },
      [](destination_values& d, uint64_t v) {
          d.destination = detail::make_address(uint32_t(v), d.destination.port());
      } },
    { &named("DST_UDP_PORT"),
      [](const destination_values& d) -> uint64_t { return d.destination.port(); },
      [](destination_values& d, uint64_t v) {
          d.destination = detail::make_address(d.destination.ip(), uint16_t(v));
      } },
    detail::member<&destination_values::qpn>("DST_QPN"),
    detail::member<&destination_values::start_psn>("DST_START_PSN"),
    detail::member<&destination_values::rkey>("DST_RKEY"),
    detail::member<&destination_values::va>("DST_VA"),
    detail::member<&destination_values::ring_bytes>("DST_RING_BYTES"),
    detail::member<&destination_values::link>("DST_LINK"),
    detail::member<&destination_values::weight>("DST_WEIGHT"),
};

inline constexpr field<destination_counters> destination_counter_field_list[] = {
    detail::member<&destination_counters::messages>("DST_MESSAGES"),
    detail::member<&destination_counters::state>("DST_STATE"),
};

inline constexpr field<rc_destination_counters> rc_destination_counter_field_list[] = {
    detail::member<&rc_destination_counters::rtt_ns>("DST_RTT_NS"),
    detail::member<&rc_destination_counters::rtt_samples>("DST_RTT_SAMPLES"),
    detail::member<&rc_destination_counters::retransmits>("DST_RETRANSMITS"),
    detail::member<&rc_destination_counters::naks>("DST_NAKS"),
    detail::member<&rc_destination_counters::abandoned>("DST_ABANDONED"),
};

inline constexpr field<emu_link_values> emu_link_field_list[] = {
    detail::member<&emu_link_values::down>("EMU_LINK_DOWN"),
    detail::member<&emu_link_values::loss_ppm>("EMU_LINK_LOSS_PPM"),
    detail::member<&emu_link_values::delay_us>("EMU_LINK_DELAY_US"),
    detail::member<&emu_link_values::reorder_us>("EMU_LINK_REORDER_US"),
    detail::member<&emu_link_values::rate>("EMU_LINK_RATE"),
    detail::member<&emu_link_values::seed>("EMU_LINK_SEED"),
    detail::member<&emu_link_values::queue_us>("EMU_LINK_QUEUE_US"),
};

inline constexpr field<emu_link_counters> emu_link_counter_field_list[] = {
    detail::member<&emu_link_counters::frames_dropped>("EMU_LINK_FRAMES_DROPPED"),
    detail::member<&emu_link_counters::samples_dropped>("EMU_LINK_SAMPLES_DROPPED"),
    detail::member<&emu_link_counters::frames_delayed>("EMU_LINK_FRAMES_DELAYED"),
    detail::member<&emu_link_counters::frames_passed>("EMU_LINK_FRAMES_PASSED"),
};
// clang-format on

inline constexpr field_set<link_control_values> link_control_fields{
    link_control_field_list
};
inline constexpr field_set<destination_values> destination_fields{
    destination_field_list
};
inline constexpr field_set<destination_counters> destination_counter_fields{
    destination_counter_field_list
};
inline constexpr field_set<rc_destination_counters> rc_destination_counter_fields{
    rc_destination_counter_field_list
};
inline constexpr field_set<emu_link_values> emu_link_fields{ emu_link_field_list };
inline constexpr field_set<emu_link_counters> emu_link_counter_fields{
    emu_link_counter_field_list
};

} // namespace regs
} // namespace rdma
} // namespace gr

#endif
