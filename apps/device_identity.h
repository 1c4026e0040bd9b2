/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_DEVICE_IDENTITY_H
#define INCLUDED_RDMA_APPS_DEVICE_IDENTITY_H

#include "regs/register_map.h"
#include <array>
#include <cstdint>
#include <string>
#include <vector>

/*
 * The identity block (docs/register-map.md, "Identity") as gr-rdma-find and
 * gr-rdma-probe read it: one READ of ID_MAGIC .. SCRATCH, a request every device
 * answers, so that discovery needs no protocol of its own.
 */

namespace gr {
namespace rdma {
namespace app {

//! Words in the identity read: ID_MAGIC (0x000) through SCRATCH (0x02C).
constexpr size_t identity_words = regs::scratch / 4 + 1;

//! The register map reserves room for this many links and RX streams (0x100 each in
//! 0x1000-0x1FFF and 0x2000-0x2FFF): a device that claims more is not believed.
constexpr uint32_t max_links = (regs::rx_base - regs::link_base) / regs::link_stride;
constexpr uint32_t max_rx_streams = (regs::tx_base - regs::rx_base) / regs::rx_stride;

struct device_identity {
    uint32_t magic = 0;
    uint32_t version = 0;
    uint32_t capabilities = 0;
    uint32_t num_links = 0;
    uint32_t num_rx_streams = 0;
    uint32_t num_tx_streams = 0;
    uint32_t max_payload = 0;
    uint32_t formats = 0;
    uint64_t serial = 0;
    uint32_t max_burst_words = 0;

    bool is_gr_rdma() const { return magic == regs::magic_value; }
    //! The host's major version: the layout of every block beyond the identity.
    bool same_major() const { return (version >> 16) == (regs::map_version >> 16); }
    bool has(uint32_t cap) const { return (capabilities & cap) == cap; }
    //! "emulator" when it has the emulator extension, else "device".
    const char* type() const;
};

//! Decode the identity_words words read at ID_MAGIC.
device_identity decode_identity(const std::array<uint32_t, identity_words>& words);

//! "1.1" from ID_VERSION.
std::string map_version_string(uint32_t version);
//! The capability bits by their names in docs/register-map.md ("RX_UC", ...); bits
//! this host does not know as "bit9" and so on.
std::vector<std::string> capability_names(uint32_t capabilities);
//! ID_FORMATS by name ("sc16", "fc32"); unknown bits as "bit5".
std::vector<std::string> format_names(uint32_t formats);
//! A word as four characters if they are printable ASCII ("GRDM"), else "".
std::string word_as_text(uint32_t word);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
