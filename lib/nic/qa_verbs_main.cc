/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Runner of qa_verbs, the tests that need a real RDMA device (rxe or a RoCE NIC).
//
// It decides once, before any test runs, whether there is a device to test on. If
// there is none, it prints "SKIPPED: <test>: no RDMA device (<why>)" for every test and
// exits 77, which ctest reports as skipped (SKIP_RETURN_CODE): a skip is never a pass.
// Otherwise it runs them like the other qa_* runners (test paths as arguments).
//
// The device: GR_RDMA_TEST_IF=<netdev> or GR_RDMA_TEST_ADDR=<IPv4>, else the first
// ACTIVE port with a RoCE v2 IPv4 GID. `qa_verbs --list` prints the test names.

#include "../qa/qa_runner.h"
#include "../util/socket_address.h"
#include "qa_verbs_hw.h"
#include "verbs_sysfs.h"
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

gr::rdma::nic::verbs_device_config g_device;

//! Empty when there is a device to test on (and g_device names it); else why not.
std::string find_test_device()
{
    using namespace gr::rdma::nic;
    const rdma_sysfs sysfs;
    if (const char* ifname = std::getenv("GR_RDMA_TEST_IF")) {
        g_device.interface = ifname;
        return {};
    }
    if (const char* addr = std::getenv("GR_RDMA_TEST_ADDR")) {
        g_device.ip = gr::rdma::socket_address::parse(addr).ip();
        return {};
    }
    if (sysfs.devices().empty())
        return "nothing in /sys/class/infiniband; gr-rdma-doctor tells how to add rxe";
    for (const auto& loc : sysfs.roce_v2_ipv4_gids()) {
        if (loc.port_active) {
            g_device.ip = loc.ipv4;
            return {};
        }
    }
    return "no ACTIVE port with a RoCE v2 IPv4 GID; gr-rdma-doctor tells what is missing";
}

void leaf_names(CppUnit::Test* test, std::vector<std::string>& out)
{
    if (test->getChildTestCount() == 0) {
        out.push_back(test->getName());
        return;
    }
    for (int i = 0; i < test->getChildTestCount(); i++)
        leaf_names(test->getChildTestAt(i), out);
}

} // namespace

const gr::rdma::nic::verbs_device_config& qa_verbs::test_device() { return g_device; }

int main(int argc, char** argv)
{
    std::vector<std::string> names;
    {
        const std::unique_ptr<CppUnit::Test> all(
            CppUnit::TestFactoryRegistry::getRegistry().makeTest());
        leaf_names(all.get(), names);
    }

    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const auto& name : names)
            std::cout << name << "\n";
        return 0;
    }
    std::string why;
    try {
        why = find_test_device();
    } catch (const std::exception& e) { // a malformed GR_RDMA_TEST_ADDR
        std::cerr << "qa_verbs: " << e.what() << "\n";
        return 2;
    }
    if (!why.empty()) {
        for (const auto& name : names)
            std::cout << "SKIPPED: " << name << ": no RDMA device (" << why << ")\n";
        std::cout << "qa_verbs: all " << names.size() << " hardware tests skipped\n";
        return 77;
    }
    std::cout << "qa_verbs: testing on "
              << (g_device.interface.empty() ? gr::rdma::nic::ipv4_string(g_device.ip)
                                             : g_device.interface)
              << "\n";

    return gr::rdma::run_registered_tests(argc, argv);
}
