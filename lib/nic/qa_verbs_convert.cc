/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The verbs backend's translations between nic.h and libibverbs' enums.

#include "verbs_convert.h"
#include <cppunit/extensions/HelperMacros.h>
#include <set>
#include <stdexcept>
#include <string>

using namespace gr::rdma::nic;

class qa_verbs_convert : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_convert);
    CPPUNIT_TEST(test_mtu);
    CPPUNIT_TEST(test_status_translation);
    CPPUNIT_TEST(test_status_counter_names);
    CPPUNIT_TEST(test_access_flags);
    CPPUNIT_TEST(test_qp_state_and_type);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_mtu()
    {
        const unsigned bytes[] = { 256, 512, 1024, 2048, 4096 };
        const ibv_mtu values[] = {
            IBV_MTU_256, IBV_MTU_512, IBV_MTU_1024, IBV_MTU_2048, IBV_MTU_4096
        };
        for (int i = 0; i < 5; i++) {
            CPPUNIT_ASSERT_EQUAL(bytes[i], mtu_bytes(values[i]));
            CPPUNIT_ASSERT_EQUAL(values[i], mtu_from_bytes(bytes[i]).value());
            CPPUNIT_ASSERT(valid_path_mtu(bytes[i]));
        }
        CPPUNIT_ASSERT_EQUAL(0u, mtu_bytes(0));
        CPPUNIT_ASSERT_EQUAL(0u, mtu_bytes(6));
        CPPUNIT_ASSERT_EQUAL(0u, mtu_bytes(-1));
        for (unsigned b : { 0u, 128u, 1500u, 4095u, 8192u, 9000u })
            CPPUNIT_ASSERT(!mtu_from_bytes(b));
    }

    void test_status_translation()
    {
        CPPUNIT_ASSERT(translate_status(IBV_WC_SUCCESS) == wc_status::success);
        CPPUNIT_ASSERT(translate_status(IBV_WC_WR_FLUSH_ERR) == wc_status::flushed);
        for (auto s : { IBV_WC_REM_ACCESS_ERR,
                        IBV_WC_REM_INV_REQ_ERR,
                        IBV_WC_REM_OP_ERR,
                        IBV_WC_RETRY_EXC_ERR,
                        IBV_WC_RNR_RETRY_EXC_ERR,
                        IBV_WC_BAD_RESP_ERR,
                        IBV_WC_REM_ABORT_ERR,
                        IBV_WC_REM_INV_RD_REQ_ERR,
                        IBV_WC_RESP_TIMEOUT_ERR })
            CPPUNIT_ASSERT_MESSAGE(ibv_wc_status_str(s),
                                   translate_status(s) == wc_status::remote_error);
        for (auto s : { IBV_WC_LOC_LEN_ERR,
                        IBV_WC_LOC_QP_OP_ERR,
                        IBV_WC_LOC_PROT_ERR,
                        IBV_WC_LOC_ACCESS_ERR,
                        IBV_WC_MW_BIND_ERR,
                        IBV_WC_FATAL_ERR,
                        IBV_WC_GENERAL_ERR })
            CPPUNIT_ASSERT_MESSAGE(ibv_wc_status_str(s),
                                   translate_status(s) == wc_status::local_error);
        // A status newer than this build still maps to an error, never to success.
        CPPUNIT_ASSERT(translate_status(static_cast<ibv_wc_status>(200)) ==
                       wc_status::local_error);
    }

    void test_status_counter_names()
    {
        CPPUNIT_ASSERT(status_counter_name(IBV_WC_SUCCESS) == nullptr);
        CPPUNIT_ASSERT(status_counter_name(-1) == nullptr);
        CPPUNIT_ASSERT(status_counter_name(known_wc_statuses) == nullptr);
        std::set<std::string> names;
        for (int s = 1; s < known_wc_statuses; s++) {
            const char* name = status_counter_name(s);
            CPPUNIT_ASSERT(name != nullptr);
            CPPUNIT_ASSERT_EQUAL(std::string("wc_"), std::string(name).substr(0, 3));
            names.insert(name);
        }
        CPPUNIT_ASSERT_EQUAL(size_t(known_wc_statuses - 1), names.size());
        CPPUNIT_ASSERT_EQUAL(std::string("wc_rem_access_err"),
                             std::string(status_counter_name(IBV_WC_REM_ACCESS_ERR)));
        CPPUNIT_ASSERT_EQUAL(std::string("wc_wr_flush_err"),
                             std::string(status_counter_name(IBV_WC_WR_FLUSH_ERR)));
        CPPUNIT_ASSERT_EQUAL(std::string("wc_general_err"),
                             std::string(status_counter_name(IBV_WC_GENERAL_ERR)));
    }

    void test_access_flags()
    {
        CPPUNIT_ASSERT_EQUAL(0, access_to_ibv(0));
        CPPUNIT_ASSERT_EQUAL(int(IBV_ACCESS_LOCAL_WRITE),
                             access_to_ibv(access_local_write));
        CPPUNIT_ASSERT_EQUAL(int(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
                             access_to_ibv(access_local_write | access_remote_write));
        CPPUNIT_ASSERT_EQUAL(int(IBV_ACCESS_REMOTE_READ),
                             access_to_ibv(access_remote_read));
        // Exactly what was asked: no remote write sneaks in with local write.
        CPPUNIT_ASSERT(!(access_to_ibv(access_local_write | access_remote_read) &
                         IBV_ACCESS_REMOTE_WRITE));
        CPPUNIT_ASSERT_THROW(access_to_ibv(1u << 3), std::invalid_argument);
    }

    void test_qp_state_and_type()
    {
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_RESET) == qp_state::reset);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_INIT) == qp_state::init);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_RTR) == qp_state::rtr);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_RTS) == qp_state::rts);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_SQD) == qp_state::rts);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_SQE) == qp_state::error);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_ERR) == qp_state::error);
        CPPUNIT_ASSERT(qp_state_from_ibv(IBV_QPS_UNKNOWN) == qp_state::error);
        CPPUNIT_ASSERT_EQUAL(IBV_QPT_UC, qp_type_to_ibv(qp_type::uc));
        CPPUNIT_ASSERT_EQUAL(IBV_QPT_RC, qp_type_to_ibv(qp_type::rc));
        CPPUNIT_ASSERT_EQUAL(std::string("RTR"), std::string(to_string(qp_state::rtr)));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_convert);
