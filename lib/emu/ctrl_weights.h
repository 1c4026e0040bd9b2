/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_CTRL_WEIGHTS_H
#define INCLUDED_RDMA_EMU_CTRL_WEIGHTS_H

#include "ctrl_event_queue.h"
#include <array>
#include <cstdint>

namespace gr {
namespace rdma {
namespace emu {

using ctrl_link_parts = std::array<double, ctrl_max_links>;
using ctrl_link_weights = std::array<uint16_t, ctrl_max_links>;

/*!
 * A stream's link weights (DST_WEIGHT) from the parts it should send on each link:
 * integers that add up to exactly ctrl_weight_total, so that one period of the
 * schedule's pattern (docs/links.md: at most 1024 per epoch) resolves a part in 1024.
 * Largest remainder, ties to the lower link: the rounding never moves more than one
 * weight unit per link and is deterministic. A part below 0 or not finite counts as 0;
 * all parts 0: every weight 0 (the stream sends on no link).
 */
class ctrl_weights
{
public:
    static constexpr unsigned total = 1024;

    static ctrl_link_weights from_parts(const ctrl_link_parts& part);

    /*!
     * The shortest-RTT policy (CTRL_POLICY 2): parts proportional to 1/RTT over the
     * links in \p usable, so the faster path carries more and a slower one still some
     * (a link whose RTT grows under cross traffic sheds load gradually, not all at
     * once). An RTT of 0 is "not measured" (UC: no ACK): such a link counts as the
     * slowest measured one, neither favoured nor starved; none measured: equal parts.
     */
    static ctrl_link_parts by_rtt(const std::array<uint64_t, ctrl_max_links>& rtt_ns,
                                  uint32_t usable);
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
