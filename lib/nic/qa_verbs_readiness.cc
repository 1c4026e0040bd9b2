/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gr-rdma-doctor's logic on fake hosts: each fact reader, the ring requirement, and
// the assessment with its fixes and its ready/not-ready verdict.

#include "qa_verbs_fake_host.h"
#include "verbs_readiness.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>

using namespace gr::rdma::nic;
using qa_verbs::fake_host;

namespace {

constexpr uint64_t mib = 1 << 20;

void assert_contains(const std::string& text, const std::string& part)
{
    CPPUNIT_ASSERT_MESSAGE("\"" + part + "\" not in: " + text,
                           text.find(part) != std::string::npos);
}

host_roots roots_of(const fake_host& h)
{
    host_roots r;
    r.sys = h.sys();
    r.proc = h.proc();
    r.etc = h.etc();
    r.modules = h.modules();
    r.kernel_release = "6.1.0-test-amd64";
    return r;
}

//! The finding about \p topic at \p level; fails if there is none.
finding find(const readiness_report& r, const std::string& topic, severity level)
{
    for (const auto& f : r.findings)
        if (f.topic == topic && f.level == level)
            return f;
    std::string all;
    for (const auto& f : r.findings)
        all += std::string("\n  ") + to_string(f.level) + " " + f.topic + ": " + f.text;
    CPPUNIT_FAIL("no " + std::string(to_string(level)) + " about " + topic +
                 " in:" + all);
    return {};
}

//! The libibverbs view of a host where it lists \p dev with a 1024-byte active MTU.
libibverbs_view lists(const std::string& dev)
{
    libibverbs_view v;
    v.listed = true;
    v.devices[dev].active_mtu[1] = 1024;
    return v;
}

libibverbs_view lists_nothing()
{
    libibverbs_view v;
    v.error = "ibv_get_device_list: Function not implemented";
    return v;
}

} // namespace

class qa_verbs_readiness : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_verbs_readiness);
    CPPUNIT_TEST(test_hugepages);
    CPPUNIT_TEST(test_cap_ipc_lock);
    CPPUNIT_TEST(test_kernel_module_state);
    CPPUNIT_TEST(test_providers_and_route);
    CPPUNIT_TEST(test_ring_requirement);
    CPPUNIT_TEST(test_host_without_rdma);
    CPPUNIT_TEST(test_kernel_without_rxe);
    CPPUNIT_TEST(test_guest_with_rxe_is_ready);
    CPPUNIT_TEST(test_libibverbs_gaps);
    CPPUNIT_TEST(test_port_problems);
    CPPUNIT_TEST(test_memlock_levels);
    CPPUNIT_TEST_SUITE_END();

    //! A fake host like this development VM: no RDMA, rxe loadable, no hugepages.
    static void plain_host(fake_host& h)
    {
        h.write("proc/meminfo",
                "MemTotal:        8000000 kB\nHugePages_Total:       0\n"
                "HugePages_Free:        0\nHugepagesize:       2048 kB");
        h.write("proc/self/status", "Name:\tdoctor\nCapEff:\t0000000000000000");
        h.write("proc/net/route",
                "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
                "eth0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\n"
                "eth0\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF");
        h.write("etc/libibverbs.d/rxe.driver", "driver rxe");
        h.write("etc/libibverbs.d/mlx5.driver", "driver mlx5");
        h.write("lib/modules/6.1.0-test-amd64/modules.dep",
                "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko: "
                "kernel/drivers/infiniband/core/ib_core.ko\n"
                "kernel/drivers/infiniband/core/ib_uverbs.ko: "
                "kernel/drivers/infiniband/core/ib_core.ko");
    }

public:
    void test_hugepages()
    {
        fake_host h;
        CPPUNIT_ASSERT_EQUAL(-1L, read_hugepages(h.proc()).total);
        plain_host(h);
        h.write("proc/meminfo",
                "HugePages_Total:      16\nHugePages_Free:       12\n"
                "HugePages_Rsvd:        0\nHugepagesize:       2048 kB");
        const hugepage_pool p = read_hugepages(h.proc());
        CPPUNIT_ASSERT_EQUAL(16L, p.total);
        CPPUNIT_ASSERT_EQUAL(12L, p.free);
        CPPUNIT_ASSERT_EQUAL(size_t(2) << 20, p.page_bytes);
    }

    void test_cap_ipc_lock()
    {
        fake_host h;
        CPPUNIT_ASSERT(!has_cap_ipc_lock(h.proc()));
        h.write("proc/self/status", "CapEff:\t000001ffffffffff");
        CPPUNIT_ASSERT(has_cap_ipc_lock(h.proc()));
        h.write("proc/self/status", "CapEff:\t0000000000004000");
        CPPUNIT_ASSERT(has_cap_ipc_lock(h.proc()));
        h.write("proc/self/status", "CapEff:\t0000000000003fff");
        CPPUNIT_ASSERT(!has_cap_ipc_lock(h.proc()));
    }

    void test_kernel_module_state()
    {
        fake_host h;
        const host_roots r = roots_of(h);
        const std::string rel = r.kernel_release;
        CPPUNIT_ASSERT(kernel_module_state(r, rel, "rdma_rxe") == module_state::missing);
        h.write("lib/modules/" + rel + "/modules.dep",
                "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz: kernel/x.ko.xz");
        CPPUNIT_ASSERT(kernel_module_state(r, rel, "rdma_rxe") == module_state::loadable);
        CPPUNIT_ASSERT(kernel_module_state(r, "other", "rdma_rxe") ==
                       module_state::missing);
        CPPUNIT_ASSERT(kernel_module_state(r, rel, "rxe") == module_state::missing);
        h.mkdir("sys/module/rdma_rxe");
        CPPUNIT_ASSERT(kernel_module_state(r, rel, "rdma_rxe") == module_state::loaded);
        h.write("lib/modules/" + rel + "/modules.builtin",
                "kernel/drivers/infiniband/core/ib-uverbs.ko");
        CPPUNIT_ASSERT(kernel_module_state(r, rel, "ib_uverbs") == module_state::builtin);
        CPPUNIT_ASSERT_EQUAL(std::string("built in"),
                             std::string(to_string(module_state::builtin)));
    }

    void test_providers_and_route()
    {
        fake_host h;
        CPPUNIT_ASSERT(verbs_providers(h.etc()).empty());
        CPPUNIT_ASSERT(default_route_interface(h.proc()).empty());
        plain_host(h);
        h.write("etc/libibverbs.d/README", "driver nonsense");
        CPPUNIT_ASSERT(
            (verbs_providers(h.etc()) == std::vector<std::string>{ "mlx5", "rxe" }));
        CPPUNIT_ASSERT_EQUAL(std::string("eth0"), default_route_interface(h.proc()));
    }

    void test_ring_requirement()
    {
        // 20 MS/s fc32, 0.1 s: 16e6 bytes -> 8 hugepages (docs/ring-memory.md).
        const ring_requirement n = ring_requirement_for(20e6, 8, 0.1);
        CPPUNIT_ASSERT_EQUAL(size_t(16 * mib), n.ring_bytes);
        CPPUNIT_ASSERT_EQUAL(size_t(8), n.hugepages);
        CPPUNIT_ASSERT_EQUAL(uint64_t(16 * mib), n.pinned_bytes);
        CPPUNIT_ASSERT_EQUAL(uint64_t(32 * mib), n.locked_bytes);
        CPPUNIT_ASSERT_EQUAL(size_t(2 * mib),
                             ring_requirement_for(1e6, 4, 0.1).ring_bytes);
        CPPUNIT_ASSERT_EQUAL(std::string("16 MiB"), format_size(16 * mib));
        CPPUNIT_ASSERT_EQUAL(std::string("8 KiB"), format_size(8192));
        CPPUNIT_ASSERT_EQUAL(std::string("unlimited"), format_size(unlimited));
    }

    void test_host_without_rdma()
    {
        fake_host h;
        plain_host(h);
        const auto facts = gather_host_facts(roots_of(h),
                                             lists_nothing(),
                                             { 8 * mib, 8 * mib },
                                             ring_requirement_for(20e6, 8, 0.1));
        CPPUNIT_ASSERT(facts.devices.empty());
        CPPUNIT_ASSERT(facts.rxe == module_state::loadable);
        CPPUNIT_ASSERT_EQUAL(std::string("eth0"), facts.default_interface);
        const readiness_report r = assess(facts);
        CPPUNIT_ASSERT(!r.ready());
        CPPUNIT_ASSERT_EQUAL(2, r.problems());
        const finding rdma = find(r, "rdma", severity::problem);
        assert_contains(rdma.text, "no RDMA device");
        CPPUNIT_ASSERT_EQUAL(
            std::string(
                "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev eth0"),
            rdma.fix);
        const finding mem = find(r, "memlock", severity::problem);
        assert_contains(mem.text, "8 MiB");
        assert_contains(mem.text, "pins 16 MiB");
        assert_contains(mem.fix, "memlock unlimited"); // hard 8 MiB: limits.d, not ulimit
        assert_contains(find(r, "hugepages", severity::warning).fix,
                        "sudo sysctl -w vm.nr_hugepages=8");
        find(r, "libibverbs", severity::ok); // no device: its error is expected
    }

    void test_kernel_without_rxe()
    {
        fake_host h;
        plain_host(h);
        h.write("lib/modules/6.1.0-test-amd64/modules.dep", "kernel/fs/ext4/ext4.ko:");
        const readiness_report r =
            assess(gather_host_facts(roots_of(h),
                                     lists_nothing(),
                                     { unlimited, unlimited },
                                     ring_requirement_for(20e6, 8, 0.1)));
        const finding rdma = find(r, "rdma", severity::problem);
        assert_contains(rdma.text, "6.1.0-test-amd64 has no rdma_rxe module");
        assert_contains(rdma.fix, "CONFIG_RDMA_RXE");
        CPPUNIT_ASSERT(r.memlock_ok);
        CPPUNIT_ASSERT(!r.ready());
        // Another installed kernel has it: reboot into that one.
        h.write("lib/modules/6.1.0-other-amd64/modules.dep",
                "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.zst:");
        const auto facts = gather_host_facts(roots_of(h),
                                             lists_nothing(),
                                             { unlimited, unlimited },
                                             ring_requirement_for(20e6, 8, 0.1));
        CPPUNIT_ASSERT(facts.rxe == module_state::missing);
        CPPUNIT_ASSERT(facts.rxe_kernels ==
                       std::vector<std::string>{ "6.1.0-other-amd64" });
        assert_contains(
            find(assess(facts), "rdma", severity::problem).fix,
            "reboot into an installed kernel that has rdma_rxe (6.1.0-other-amd64), "
            "then: sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe "
            "netdev eth0");
    }

    void test_guest_with_rxe_is_ready()
    {
        fake_host h;
        plain_host(h);
        h.add_rxe();
        h.mkdir("sys/class/infiniband_verbs/uverbs0");
        h.mkdir("sys/module/rdma_rxe");
        h.write("proc/self/status", "CapEff:\t000001ffffffffff"); // root
        const auto facts = gather_host_facts(roots_of(h),
                                             lists("rxe0"),
                                             { 8 * mib, 8 * mib },
                                             ring_requirement_for(1e6, 4, 0.1));
        CPPUNIT_ASSERT_EQUAL(size_t(1), facts.ports.size());
        CPPUNIT_ASSERT_EQUAL(1024u, facts.ports[0].active_mtu);
        CPPUNIT_ASSERT_EQUAL(-1, facts.ports[0].numa_node);
        CPPUNIT_ASSERT_EQUAL(size_t(1), facts.ports[0].roce_v2_ipv4.size());
        const readiness_report r = assess(facts);
        CPPUNIT_ASSERT(r.ready());
        CPPUNIT_ASSERT_EQUAL(0, r.problems());
        CPPUNIT_ASSERT_EQUAL(size_t(1), r.usable.size());
        CPPUNIT_ASSERT_EQUAL(std::string("rxe0 port 1 GID 1 (192.0.2.1, veth0)"),
                             r.usable[0]);
        assert_contains(find(r, "rdma", severity::ok).text,
                        "nic=verbs,nic_addr=192.0.2.1");
        assert_contains(find(r, "memlock", severity::ok).text, "CAP_IPC_LOCK");
    }

    void test_libibverbs_gaps()
    {
        fake_host h;
        plain_host(h);
        h.add_rxe();
        const auto need = ring_requirement_for(1e6, 4, 0.1);
        // ib_uverbs not loaded: libibverbs cannot list anything.
        readiness_report r = assess(gather_host_facts(
            roots_of(h), lists_nothing(), { unlimited, unlimited }, need));
        CPPUNIT_ASSERT(!r.ready());
        finding f = find(r, "libibverbs", severity::problem);
        assert_contains(f.text, "ib_uverbs");
        CPPUNIT_ASSERT_EQUAL(std::string("sudo modprobe ib_uverbs"), f.fix);
        // Listed, but without this device: its provider is missing.
        h.mkdir("sys/class/infiniband_verbs/uverbs0");
        r = assess(gather_host_facts(
            roots_of(h), lists("mlx5_0"), { unlimited, unlimited }, need));
        CPPUNIT_ASSERT(!r.ready());
        f = find(r, "libibverbs", severity::problem);
        assert_contains(f.text, "does not list rxe0");
        CPPUNIT_ASSERT_EQUAL(std::string("sudo apt install ibverbs-providers"), f.fix);
        // No provider files at all.
        fake_host bare;
        bare.add_rxe();
        r = assess(gather_host_facts(
            roots_of(bare), lists("rxe0"), { unlimited, unlimited }, need));
        CPPUNIT_ASSERT_EQUAL(std::string("sudo apt install rdma-core ibverbs-providers"),
                             find(r, "libibverbs", severity::problem).fix);
        // Listed but cannot be opened.
        libibverbs_view v = lists("rxe0");
        v.devices["rxe0"].error = "ibv_open_device(rxe0): Permission denied";
        r = assess(gather_host_facts(roots_of(h), v, { unlimited, unlimited }, need));
        CPPUNIT_ASSERT(!r.ready());
        assert_contains(find(r, "libibverbs", severity::problem).text,
                        "Permission denied");
    }

    void test_port_problems()
    {
        fake_host h;
        plain_host(h);
        h.add_rxe();
        h.add_port("rxe0", 1, "1: DOWN");
        const auto need = ring_requirement_for(1e6, 4, 0.1);
        readiness_report r = assess(gather_host_facts(
            roots_of(h), lists("rxe0"), { unlimited, unlimited }, need));
        CPPUNIT_ASSERT(!r.ready());
        finding f = find(r, "rdma", severity::problem);
        assert_contains(f.text, "rxe0 port 1 is DOWN");
        assert_contains(f.fix, "sudo ip link set veth0 up");
        // A second, usable device turns the DOWN port into a warning.
        h.add_rxe("rxe1", "veth2", "c000:0209");
        r = assess(gather_host_facts(
            roots_of(h),
            [] {
                auto v = lists("rxe0");
                v.devices["rxe1"].active_mtu[1] = 1024;
                return v;
            }(),
            { unlimited, unlimited },
            need));
        CPPUNIT_ASSERT(r.ready());
        find(r, "rdma", severity::warning);
        // No IPv4 address on the interface.
        fake_host noip;
        plain_host(noip);
        noip.add_port("rxe0", 1);
        noip.add_gid(
            "rxe0", 1, 0, "fe80:0000:0000:0000:b8a1:4aff:fe2e:9c01", "RoCE v2", "eth0");
        r = assess(gather_host_facts(
            roots_of(noip), lists("rxe0"), { unlimited, unlimited }, need));
        CPPUNIT_ASSERT(!r.ready());
        assert_contains(find(r, "rdma", severity::problem).fix,
                        "sudo ip addr add <a.b.c.d/len> dev eth0");
    }

    void test_memlock_levels()
    {
        fake_host h;
        plain_host(h);
        h.add_rxe();
        h.mkdir("sys/class/infiniband_verbs/uverbs0");
        const auto need = ring_requirement_for(20e6, 8, 0.1); // pins 16, locks 32 MiB
        auto assess_with = [&](uint64_t soft, uint64_t hard) {
            return assess(
                gather_host_facts(roots_of(h), lists("rxe0"), { soft, hard }, need));
        };
        readiness_report r = assess_with(64 * mib, 64 * mib);
        CPPUNIT_ASSERT(r.ready());
        find(r, "memlock", severity::ok);
        r = assess_with(16 * mib, unlimited); // registers, cannot mlock both mappings
        CPPUNIT_ASSERT(r.ready());
        CPPUNIT_ASSERT_EQUAL(std::string("ulimit -l unlimited   # in the shell that runs "
                                         "the flowgraph"),
                             find(r, "memlock", severity::warning).fix);
        r = assess_with(8 * mib, 64 * mib); // the hard limit allows raising it
        CPPUNIT_ASSERT(!r.ready());
        assert_contains(find(r, "memlock", severity::problem).fix, "ulimit -l 65536");
        r = assess_with(8 * mib, 8 * mib);
        assert_contains(find(r, "memlock", severity::problem).fix,
                        "echo '* - memlock unlimited' | sudo tee "
                        "/etc/security/limits.d/gr-rdma.conf");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_verbs_readiness);
