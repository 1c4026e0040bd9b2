/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_NIC_VERBS_CONVERT_H
#define INCLUDED_RDMA_NIC_VERBS_CONVERT_H

#include "nic.h"
#include <infiniband/verbs.h>
#include <optional>

namespace gr {
namespace rdma {
namespace nic {

// Translations between the NIC interface (nic.h) and libibverbs' enums. Pure functions:
// tested without a device.

//! Bytes of an ibv_mtu (256..4096); 0 for a value outside the enum.
unsigned mtu_bytes(int ibv_mtu_value);
//! The ibv_mtu for 256, 512, 1024, 2048 or 4096 bytes; nullopt otherwise.
std::optional<ibv_mtu> mtu_from_bytes(unsigned bytes);

//! success, flushed (IBV_WC_WR_FLUSH_ERR), remote_error (the responder or the path
//! failed: REM_*, retries exhausted, bad response) or local_error (everything else).
wc_status translate_status(ibv_wc_status status);
//! "wc_rem_access_err" for IBV_WC_REM_ACCESS_ERR: the counter name of an error status;
//! nullptr for IBV_WC_SUCCESS and unknown values.
const char* status_counter_name(int status);
//! Number of ibv_wc_status values this build knows (IBV_WC_SUCCESS .. last).
constexpr int known_wc_statuses = IBV_WC_TM_RNDV_INCOMPLETE + 1;

//! IBV_ACCESS_* flags for nic::access flags; throws std::invalid_argument for bits the
//! interface does not define.
int access_to_ibv(unsigned access);

qp_state qp_state_from_ibv(ibv_qp_state state);
ibv_qp_type qp_type_to_ibv(qp_type type);

//! "RESET", "INIT", ...: defined with the soft NIC (soft_queue_pair.cc); declared again
//! here so that the verbs backend words its errors the same way.
const char* to_string(qp_state state);

} // namespace nic
} // namespace rdma
} // namespace gr

#endif
