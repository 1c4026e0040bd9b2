/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Selecting the NIC by device args (nic_registry.h): nic=soft as before, nic=verbs by
// nic_addr or nic_if, the stand-in only with its device, and the errors of
// contradicting args and of a host without a usable RDMA device. Runs anywhere: no
// address here has a RoCE v2 GID.

#include "nic_registry.h"
#include <cppunit/extensions/HelperMacros.h>
#include <stdexcept>
#include <string>

using namespace gr::rdma;

namespace {

// As a stream of a remote device opens its NIC.
std::unique_ptr<gr::rdma::nic::device> open_nic(const std::string& args,
                                               uint32_t default_ip,
                                               const std::string& device_kind = "remote")
{
    return gr::rdma::open_nic(
        nic_config::from_args(device_args::parse(args), "soft"), device_kind, default_ip);
}

constexpr uint32_t loopback_ip = 0x7F000001;
constexpr uint32_t test_net_2 = 0xC6336407; // 198.51.100.7: never a local address

std::string runtime_error_of(const std::string& args, uint32_t default_ip)
{
    try {
        open_nic(args, default_ip);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    CPPUNIT_FAIL("open_nic(\"" + args + "\") did not throw std::runtime_error");
    return {};
}

void assert_contains(const std::string& text, const std::string& part)
{
    CPPUNIT_ASSERT_MESSAGE("\"" + part + "\" not in: " + text,
                           text.find(part) != std::string::npos);
}

} // namespace

class qa_verbs_factory : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_factory);
    CPPUNIT_TEST(test_soft_is_the_default);
    CPPUNIT_TEST(test_contradicting_args);
    CPPUNIT_TEST(test_verbs_without_a_device_explains);
    CPPUNIT_TEST(test_standin_goes_with_its_device_only);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_soft_is_the_default()
    {
        auto dev = open_nic("", loopback_ip);
        CPPUNIT_ASSERT_EQUAL(std::string("soft_nic@127.0.0.1:"),
                             dev->name().substr(0, 19));
        dev = open_nic("nic=soft,nic_addr=127.0.0.1,nic_port=0", 0);
        CPPUNIT_ASSERT_EQUAL(loopback_ip, dev->roce_address().ip());
    }

    void test_contradicting_args()
    {
        CPPUNIT_ASSERT_THROW(open_nic("nic=verbs,nic_addr=127.0.0.1,"
                                                         "nic_if=lo",
                                      loopback_ip),
                             std::invalid_argument);
        CPPUNIT_ASSERT_THROW(
            open_nic("nic=verbs,nic_port=4791", loopback_ip),
            std::invalid_argument);
        CPPUNIT_ASSERT_THROW(
            open_nic("nic=soft,nic_if=lo", loopback_ip),
            std::invalid_argument);
        CPPUNIT_ASSERT_THROW(open_nic("nic=dpdk", loopback_ip),
                             std::invalid_argument);
    }

    void test_verbs_without_a_device_explains()
    {
        // By address (given, or the caller's default) and by interface: each error says
        // what was searched and names the doctor.
        std::string e = runtime_error_of("nic=verbs,nic_addr=198.51.100.7", loopback_ip);
        assert_contains(e, "198.51.100.7");
        assert_contains(e, "gr-rdma-doctor");
        e = runtime_error_of("nic=verbs", test_net_2);
        assert_contains(e, "198.51.100.7");
        assert_contains(e, "gr-rdma-doctor");
        e = runtime_error_of("nic=verbs,nic_if=qa_no_such_if", loopback_ip);
        assert_contains(e, "qa_no_such_if");
        assert_contains(e, "gr-rdma-doctor");
    }

    void test_standin_goes_with_its_device_only()
    {
        // Every registered kind is offered, the stand-in among them (lib/standin).
        CPPUNIT_ASSERT(find_nic_kind("soft") && find_nic_kind("verbs") &&
                       find_nic_kind("null"));
        CPPUNIT_ASSERT_EQUAL(std::string("null_nic@"),
                             open_nic("nic=null", 0, "null")->name().substr(0, 9));
        try {
            open_nic("nic=null", loopback_ip, "emu");
            CPPUNIT_FAIL("nic=null opened for type=emu");
        } catch (const std::invalid_argument& e) {
            assert_contains(e.what(), "type=null");
        }
        CPPUNIT_ASSERT_THROW(open_nic("nic=null,nic_addr=127.0.0.1", 0, "null"),
                             std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_factory);
