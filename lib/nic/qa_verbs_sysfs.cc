/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device discovery of the verbs backend against fake sysfs trees: GID text and
// IPv4-mapped GIDs, ports, finding the RoCE v2 GID of an address or interface, NUMA,
// hw_counters, and the errors (what was searched, the fix, gr-rdma-doctor).

#include "qa_verbs_fake_host.h"
#include "verbs_device.h"
#include "verbs_sysfs.h"
#include <cppunit/extensions/HelperMacros.h>
#include <stdexcept>
#include <string>

using namespace gr::rdma;
using namespace gr::rdma::nic;
using qa_verbs::fake_host;

namespace {

constexpr uint32_t ip_192_0_2_1 = 0xC0000201;

//! The message of the std::runtime_error \p f throws; fails if it throws none.
template <typename F>
std::string error_of(F f)
{
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    CPPUNIT_FAIL("expected a std::runtime_error");
    return {};
}

void assert_contains(const std::string& text, const std::string& part)
{
    CPPUNIT_ASSERT_MESSAGE("\"" + part + "\" not in: " + text,
                           text.find(part) != std::string::npos);
}

} // namespace

class qa_verbs_sysfs : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_sysfs);
    CPPUNIT_TEST(test_gid_ipv4_conversion);
    CPPUNIT_TEST(test_gid_text);
    CPPUNIT_TEST(test_ports_and_gid_table);
    CPPUNIT_TEST(test_find_by_ip);
    CPPUNIT_TEST(test_find_by_ip_prefers_active_port);
    CPPUNIT_TEST(test_find_by_ip_errors);
    CPPUNIT_TEST(test_find_by_interface);
    CPPUNIT_TEST(test_numa_node);
    CPPUNIT_TEST(test_hw_counters);
    CPPUNIT_TEST(test_uverbs_class);
    CPPUNIT_TEST(test_device_errors_name_the_doctor);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_gid_ipv4_conversion()
    {
        const gid_bytes g = gid_from_ipv4(ip_192_0_2_1);
        const gid_bytes expected = { 0, 0, 0,    0,    0,   0, 0, 0,
                                     0, 0, 0xFF, 0xFF, 192, 0, 2, 1 };
        CPPUNIT_ASSERT(g == expected);
        CPPUNIT_ASSERT_EQUAL(ip_192_0_2_1, ipv4_from_gid(g).value());
        CPPUNIT_ASSERT_EQUAL(0xFFFFFFFFu,
                             ipv4_from_gid(gid_from_ipv4(0xFFFFFFFF)).value());
        // Not IPv4-mapped: link-local, ::a.b.c.d (compatible), a broken prefix.
        gid_bytes ll{};
        ll[0] = 0xFE;
        ll[1] = 0x80;
        CPPUNIT_ASSERT(!ipv4_from_gid(ll));
        gid_bytes compat = expected;
        compat[10] = compat[11] = 0;
        CPPUNIT_ASSERT(!ipv4_from_gid(compat));
        gid_bytes broken = expected;
        broken[3] = 1;
        CPPUNIT_ASSERT(!ipv4_from_gid(broken));
        CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.1"), ipv4_string(ip_192_0_2_1));
    }

    void test_gid_text()
    {
        const std::string text = "0000:0000:0000:0000:0000:ffff:c000:0201";
        CPPUNIT_ASSERT(parse_gid(text).value() == gid_from_ipv4(ip_192_0_2_1));
        CPPUNIT_ASSERT_EQUAL(text, format_gid(gid_from_ipv4(ip_192_0_2_1)));
        const std::string ll = "fe80:0000:0000:0000:b8a1:4aff:fe2e:9c01";
        CPPUNIT_ASSERT_EQUAL(ll, format_gid(parse_gid(ll).value()));
        CPPUNIT_ASSERT(parse_gid("FE80:0000:0000:0000:B8A1:4AFF:FE2E:9C01").value() ==
                       parse_gid(ll).value());
        CPPUNIT_ASSERT(!parse_gid(""));
        CPPUNIT_ASSERT(!parse_gid("::ffff:192.0.2.1"));
        CPPUNIT_ASSERT(!parse_gid(text.substr(1)));
        CPPUNIT_ASSERT(!parse_gid(text + "0"));
        CPPUNIT_ASSERT(!parse_gid("0000:0000:0000:0000:0000:ffff:c000;0201"));
        CPPUNIT_ASSERT(!parse_gid("0000:0000:0000:0000:0000:ffff:c000:02g1"));
    }

    void test_ports_and_gid_table()
    {
        fake_host h;
        h.add_rxe();
        const rdma_sysfs sys(h.sys());
        CPPUNIT_ASSERT(sys.devices() == std::vector<std::string>{ "rxe0" });
        CPPUNIT_ASSERT(sys.ports("rxe0") == std::vector<unsigned>{ 1 });
        CPPUNIT_ASSERT(sys.ports("nope").empty());
        const port_info p = sys.port("rxe0", 1);
        CPPUNIT_ASSERT_EQUAL(std::string("ACTIVE"), p.state);
        CPPUNIT_ASSERT(p.active());
        CPPUNIT_ASSERT_EQUAL(std::string("LinkUp"), p.phys_state);
        CPPUNIT_ASSERT_EQUAL(std::string("Ethernet"), p.link_layer);
        CPPUNIT_ASSERT_EQUAL(std::string("veth0"), p.netdev());
        CPPUNIT_ASSERT_EQUAL(size_t(4), p.gids.size()); // the zero GID is left out
        CPPUNIT_ASSERT_EQUAL(1u, p.gids[1].index);
        CPPUNIT_ASSERT(p.gids[1].roce_v2());
        CPPUNIT_ASSERT_EQUAL(ip_192_0_2_1, p.gids[1].ipv4().value());
        CPPUNIT_ASSERT(!p.gids[2].roce_v2()); // same address, RoCE v1
        CPPUNIT_ASSERT(p.gids[3].roce_v2() && !p.gids[3].ipv4());
        const auto all = sys.roce_v2_ipv4_gids();
        CPPUNIT_ASSERT_EQUAL(size_t(1), all.size());
        CPPUNIT_ASSERT_EQUAL(1u, all[0].gid_index);
    }

    void test_find_by_ip()
    {
        fake_host h;
        h.add_rxe();
        h.add_rxe("rxe1", "veth2", "c000:0209"); // 192.0.2.9
        const rdma_sysfs sys(h.sys());
        const auto loc = find_roce_gid_by_ip(sys, ip_192_0_2_1);
        CPPUNIT_ASSERT_EQUAL(std::string("rxe0"), loc.device);
        CPPUNIT_ASSERT_EQUAL(1u, loc.port);
        CPPUNIT_ASSERT_EQUAL(1u, loc.gid_index);
        CPPUNIT_ASSERT_EQUAL(ip_192_0_2_1, loc.ipv4);
        CPPUNIT_ASSERT_EQUAL(std::string("veth0"), loc.netdev);
        CPPUNIT_ASSERT(loc.port_active);
        CPPUNIT_ASSERT_EQUAL(std::string("rxe1"),
                             find_roce_gid_by_ip(sys, 0xC0000209).device);
    }

    void test_find_by_ip_prefers_active_port()
    {
        fake_host h;
        h.add_rxe("rxe0", "veth0");
        h.add_port("rxe0", 1, "1: DOWN");
        h.add_rxe("rxe1", "veth0");
        const auto loc = find_roce_gid_by_ip(rdma_sysfs(h.sys()), ip_192_0_2_1);
        CPPUNIT_ASSERT_EQUAL(std::string("rxe1"), loc.device);
        // With only the DOWN port, that one is found (the device warns when opened).
        fake_host h2;
        h2.add_rxe();
        h2.add_port("rxe0", 1, "1: DOWN");
        const auto down = find_roce_gid_by_ip(rdma_sysfs(h2.sys()), ip_192_0_2_1);
        CPPUNIT_ASSERT(!down.port_active);
    }

    void test_find_by_ip_errors()
    {
        fake_host none;
        std::string e = error_of(
            [&] { find_roce_gid_by_ip(rdma_sysfs(none.sys()), ip_192_0_2_1, "eth0"); });
        assert_contains(e, "no RDMA device has a RoCE v2 GID for 192.0.2.1");
        assert_contains(e, "/class/infiniband");
        assert_contains(
            e, "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev eth0");
        assert_contains(e, "gr-rdma-doctor");

        fake_host h;
        h.add_rxe();
        e = error_of(
            [&] { find_roce_gid_by_ip(rdma_sysfs(h.sys()), 0xC6336407, "eth1"); });
        assert_contains(e, "198.51.100.7");
        assert_contains(e, "searched rxe0 port 1 [veth0] ACTIVE: 192.0.2.1");
        assert_contains(e, "rdma link add rxe1 type rxe netdev eth1"); // rxe0 is taken
        assert_contains(e, "gr-rdma-doctor");
        e = error_of([&] { find_roce_gid_by_ip(rdma_sysfs(h.sys()), 0xC6336407); });
        assert_contains(e, "netdev <interface with 198.51.100.7>");

        // Loopback (type=emu's default link): no GID can ever hold it; say why.
        e = error_of([&] { find_roce_gid_by_ip(rdma_sysfs(h.sys()), 0x7F000001, "lo"); });
        assert_contains(e, "127.0.0.1 is a loopback address");
        assert_contains(e, "gr-rdma-doctor");

        // The address exists, but only as a RoCE v1 GID.
        fake_host v1;
        v1.add_port("mlx5_0", 1);
        v1.add_gid("mlx5_0",
                   1,
                   0,
                   "0000:0000:0000:0000:0000:ffff:c000:0201",
                   "IB/RoCE v1",
                   "eth0");
        e = error_of([&] { find_roce_gid_by_ip(rdma_sysfs(v1.sys()), ip_192_0_2_1); });
        assert_contains(e, "only as a \"IB/RoCE v1\" GID");
        assert_contains(e, "gr-rdma-doctor");
    }

    void test_find_by_interface()
    {
        fake_host h;
        h.add_rxe();
        const rdma_sysfs sys(h.sys());
        const auto loc = find_roce_gid_by_interface(sys, "veth0");
        CPPUNIT_ASSERT_EQUAL(std::string("rxe0"), loc.device);
        CPPUNIT_ASSERT_EQUAL(1u, loc.gid_index);
        CPPUNIT_ASSERT_EQUAL(ip_192_0_2_1, loc.ipv4);

        std::string e = error_of([&] { find_roce_gid_by_interface(sys, "eth9"); });
        assert_contains(e, "no RDMA device is bound to eth9");
        assert_contains(e, "rdma link add rxe1 type rxe netdev eth9");
        assert_contains(e, "gr-rdma-doctor");

        fake_host noip; // bound, but the interface has no IPv4 address
        noip.add_port("rxe0", 1);
        noip.add_gid(
            "rxe0", 1, 0, "fe80:0000:0000:0000:b8a1:4aff:fe2e:9c01", "RoCE v2", "eth0");
        e = error_of([&] { find_roce_gid_by_interface(rdma_sysfs(noip.sys()), "eth0"); });
        assert_contains(e, "bound to eth0 but has no RoCE v2 GID with an IPv4 address");
        assert_contains(e, "ip addr add");

        fake_host empty;
        e = error_of(
            [&] { find_roce_gid_by_interface(rdma_sysfs(empty.sys()), "eth0"); });
        assert_contains(e, "no RDMA device in");
        assert_contains(
            e, "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev eth0");
    }

    void test_numa_node()
    {
        fake_host h;
        h.add_rxe();
        const rdma_sysfs sys(h.sys());
        CPPUNIT_ASSERT_EQUAL(-1, sys.numa_node("rxe0", "veth0")); // rxe on veth: nothing
        h.write("sys/class/net/veth0/device/numa_node", "0");
        CPPUNIT_ASSERT_EQUAL(0, sys.numa_node("rxe0", "veth0"));
        h.write("sys/class/infiniband/rxe0/device/numa_node", "-1"); // no NUMA: next
        CPPUNIT_ASSERT_EQUAL(0, sys.numa_node("rxe0", "veth0"));
        h.write("sys/class/infiniband/rxe0/device/numa_node", "1");
        CPPUNIT_ASSERT_EQUAL(1, sys.numa_node("rxe0", "veth0"));
        CPPUNIT_ASSERT_EQUAL(-1, sys.numa_node("other", ""));
    }

    void test_hw_counters()
    {
        fake_host h;
        h.add_rxe();
        const rdma_sysfs sys(h.sys());
        CPPUNIT_ASSERT(sys.hw_counters("rxe0", 1).empty());
        h.write("sys/class/infiniband/rxe0/hw_counters/rcvd_pkts", "5"); // device-wide
        CPPUNIT_ASSERT_EQUAL(uint64_t(5), sys.hw_counters("rxe0", 1).at("rcvd_pkts"));
        const std::string dir = h.port_dir("rxe0", 1) + "/hw_counters/";
        h.write(dir + "rcvd_pkts", "12");
        h.write(dir + "out_of_seq_request", "18446744073709551615");
        h.write(dir + "lifespan", "10");
        h.write(dir + "broken", "x");
        const counters c = sys.hw_counters("rxe0", 1); // the port's win
        CPPUNIT_ASSERT_EQUAL(size_t(2), c.size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(12), c.at("rcvd_pkts"));
        CPPUNIT_ASSERT_EQUAL(UINT64_MAX, c.at("out_of_seq_request"));
        CPPUNIT_ASSERT(sys.hw_counters_lifespan("rxe0", 1) == std::chrono::milliseconds(10));
        CPPUNIT_ASSERT(sys.hw_counters_lifespan("other", 1) == std::chrono::milliseconds(0));
    }

    void test_uverbs_class()
    {
        fake_host h;
        CPPUNIT_ASSERT(!rdma_sysfs(h.sys()).has_uverbs());
        h.mkdir("sys/class/infiniband_verbs/uverbs0");
        CPPUNIT_ASSERT(rdma_sysfs(h.sys()).has_uverbs());
    }

    void test_device_errors_name_the_doctor()
    {
        // Nothing in sysfs: discovery fails before libibverbs is asked.
        fake_host none;
        verbs_device_config config;
        config.ip = ip_192_0_2_1;
        config.sysfs_root = none.sys();
        std::string e = error_of([&] { verbs_device dev(config); });
        assert_contains(e, "no RDMA device");
        assert_contains(e, "gr-rdma-doctor");

        // sysfs names a device libibverbs cannot have: its error must explain too
        // (without RDMA: it lists nothing; with rxe: it does not list this one).
        fake_host h;
        h.add_rxe("qa_fake0");
        config.sysfs_root = h.sys();
        e = error_of([&] { verbs_device dev(config); });
        assert_contains(e, "qa_fake0");
        assert_contains(e, "gr-rdma-doctor");

        config.interface = "qa_no_such_if";
        e = error_of([&] { verbs_device dev(config); });
        assert_contains(e, "qa_no_such_if");
        config.interface.clear();
        config.ip = 0;
        CPPUNIT_ASSERT_THROW(verbs_device dev(config), std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_sysfs);
