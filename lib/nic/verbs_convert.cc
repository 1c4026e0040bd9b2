/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "verbs_convert.h"
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

namespace gr {
namespace rdma {
namespace nic {

unsigned mtu_bytes(int ibv_mtu_value)
{
    switch (ibv_mtu_value) {
    case IBV_MTU_256:
        return 256;
    case IBV_MTU_512:
        return 512;
    case IBV_MTU_1024:
        return 1024;
    case IBV_MTU_2048:
        return 2048;
    case IBV_MTU_4096:
        return 4096;
    }
    return 0;
}

std::optional<ibv_mtu> mtu_from_bytes(unsigned bytes)
{
    switch (bytes) {
    case 256:
        return IBV_MTU_256;
    case 512:
        return IBV_MTU_512;
    case 1024:
        return IBV_MTU_1024;
    case 2048:
        return IBV_MTU_2048;
    case 4096:
        return IBV_MTU_4096;
    }
    return std::nullopt;
}

wc_status translate_status(ibv_wc_status status)
{
    switch (status) {
    case IBV_WC_SUCCESS:
        return wc_status::success;
    case IBV_WC_WR_FLUSH_ERR:
        return wc_status::flushed;
    case IBV_WC_BAD_RESP_ERR:
    case IBV_WC_REM_INV_REQ_ERR:
    case IBV_WC_REM_ACCESS_ERR:
    case IBV_WC_REM_OP_ERR:
    case IBV_WC_RETRY_EXC_ERR:
    case IBV_WC_RNR_RETRY_EXC_ERR:
    case IBV_WC_REM_INV_RD_REQ_ERR:
    case IBV_WC_REM_ABORT_ERR:
    case IBV_WC_RESP_TIMEOUT_ERR:
        return wc_status::remote_error;
    default:
        return wc_status::local_error;
    }
}

const char* status_counter_name(int status)
{
    // Indexed by ibv_wc_status; the names are the enum's, lower case, as counters.
    static const char* const names[known_wc_statuses] = {
        nullptr,                 // IBV_WC_SUCCESS
        "wc_loc_len_err",        // IBV_WC_LOC_LEN_ERR
        "wc_loc_qp_op_err",      // IBV_WC_LOC_QP_OP_ERR
        "wc_loc_eec_op_err",     // IBV_WC_LOC_EEC_OP_ERR
        "wc_loc_prot_err",       // IBV_WC_LOC_PROT_ERR
        "wc_wr_flush_err",       // IBV_WC_WR_FLUSH_ERR
        "wc_mw_bind_err",        // IBV_WC_MW_BIND_ERR
        "wc_bad_resp_err",       // IBV_WC_BAD_RESP_ERR
        "wc_loc_access_err",     // IBV_WC_LOC_ACCESS_ERR
        "wc_rem_inv_req_err",    // IBV_WC_REM_INV_REQ_ERR
        "wc_rem_access_err",     // IBV_WC_REM_ACCESS_ERR
        "wc_rem_op_err",         // IBV_WC_REM_OP_ERR
        "wc_retry_exc_err",      // IBV_WC_RETRY_EXC_ERR
        "wc_rnr_retry_exc_err",  // IBV_WC_RNR_RETRY_EXC_ERR
        "wc_loc_rdd_viol_err",   // IBV_WC_LOC_RDD_VIOL_ERR
        "wc_rem_inv_rd_req_err", // IBV_WC_REM_INV_RD_REQ_ERR
        "wc_rem_abort_err",      // IBV_WC_REM_ABORT_ERR
        "wc_inv_eecn_err",       // IBV_WC_INV_EECN_ERR
        "wc_inv_eec_state_err",  // IBV_WC_INV_EEC_STATE_ERR
        "wc_fatal_err",          // IBV_WC_FATAL_ERR
        "wc_resp_timeout_err",   // IBV_WC_RESP_TIMEOUT_ERR
        "wc_general_err",        // IBV_WC_GENERAL_ERR
        "wc_tm_err",             // IBV_WC_TM_ERR
        "wc_tm_rndv_incomplete", // IBV_WC_TM_RNDV_INCOMPLETE
    };
    if (status < 0 || status >= known_wc_statuses)
        return nullptr;
    return names[status];
}

int access_to_ibv(unsigned access)
{
    constexpr unsigned known =
        access_local_write | access_remote_write | access_remote_read;
    if (access & ~known)
        throw std::invalid_argument(
            fmt::format("unknown access flags {:#x}", access & ~known));
    int flags = 0;
    if (access & access_local_write)
        flags |= IBV_ACCESS_LOCAL_WRITE;
    if (access & access_remote_write)
        flags |= IBV_ACCESS_REMOTE_WRITE;
    if (access & access_remote_read)
        flags |= IBV_ACCESS_REMOTE_READ;
    return flags;
}

qp_state qp_state_from_ibv(ibv_qp_state state)
{
    switch (state) {
    case IBV_QPS_RESET:
        return qp_state::reset;
    case IBV_QPS_INIT:
        return qp_state::init;
    case IBV_QPS_RTR:
        return qp_state::rtr;
    case IBV_QPS_RTS:
    case IBV_QPS_SQD: // draining the send queue: still a connected, receiving QP
        return qp_state::rts;
    default: // IBV_QPS_SQE, IBV_QPS_ERR, IBV_QPS_UNKNOWN
        return qp_state::error;
    }
}

ibv_qp_type qp_type_to_ibv(qp_type type)
{
    return type == qp_type::rc ? IBV_QPT_RC : IBV_QPT_UC;
}

} // namespace nic
} // namespace rdma
} // namespace gr
