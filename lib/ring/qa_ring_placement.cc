/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Where the ring's memory comes from and how it is held: hugepages (reserved, and
// the fallback to normal pages), mlock under RLIMIT_MEMLOCK, and NUMA binding.

#include "qa_ring_helpers.h"
#include "ring_memory.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <linux/capability.h>
#include <linux/mempolicy.h>
#include <spdlog/fmt/fmt.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace qa_ring;

namespace {

const std::string pool_dir = "/sys/kernel/mm/hugepages/hugepages-2048kB";

void skipped(const std::string& what, const std::string& why)
{
    std::cout << "\nSKIPPED " << what << ": " << why << std::endl;
}

//! A logger whose output the test can read.
struct captured_log {
    std::ostringstream stream;
    logger_ptr logger;
    captured_log()
        : logger(std::make_shared<spdlog::logger>(
              "qa_ring", std::make_shared<spdlog::sinks::ostream_sink_st>(stream)))
    {
        logger->set_level(spdlog::level::debug);
    }
    std::string warnings()
    {
        std::string out, line;
        std::istringstream lines(stream.str());
        while (std::getline(lines, line))
            if (contains(line, "[warning]"))
                out += line + "\n";
        return out;
    }
};

long read_long(const std::string& path)
{
    const std::string text = read_text(path);
    return text.empty() ? -1 : std::stol(text);
}

//! 2 MiB hugepages free for a new mapping (free minus reserved); -1 without the pool.
long available_hugepages()
{
    const long free = read_long(pool_dir + "/free_hugepages");
    const long rsvd = read_long(pool_dir + "/resv_hugepages");
    return free < 0 || rsvd < 0 ? -1 : free - rsvd;
}

//! Hugepage bytes mapped by this process (/proc/self/smaps, Shared_ and
//! Private_Hugetlb of every mapping): unlike the pool's free count, no other process
//! moves it (the suite runs in parallel, and a stream with hugepages=auto elsewhere
//! may take a page of the pool this test reserved).
long hugetlb_bytes()
{
    std::istringstream smaps(read_text("/proc/self/smaps"));
    std::string key;
    long total = 0;
    while (smaps >> key) {
        if (key == "Shared_Hugetlb:" || key == "Private_Hugetlb:") {
            long kb = 0;
            smaps >> kb;
            total += kb * 1024;
        }
    }
    return total;
}

//! "VmLck" of this process in bytes.
size_t locked_bytes()
{
    std::istringstream status(read_text("/proc/self/status"));
    std::string key;
    while (status >> key) {
        if (key == "VmLck:") {
            size_t kb = 0;
            status >> kb;
            return kb * kib;
        }
    }
    return 0;
}

//! Outcome of run_in_child().
struct child_result {
    bool skipped = false;
    std::string failure; //!< empty: passed
};

struct skip_child : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/*!
 * Runs \p body in a forked child: for tests that change process-wide state (rlimits,
 * capabilities), and so that a crash cannot skip the parent's cleanup. CppUnit asserts
 * work inside; the failure text comes back through a pipe.
 */
child_result run_in_child(const std::function<void()>& body)
{
    int fds[2];
    CPPUNIT_ASSERT(::pipe(fds) == 0);
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = ::fork();
    CPPUNIT_ASSERT(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        std::string message;
        int code = 0;
        try {
            body();
        } catch (const skip_child& e) {
            message = e.what();
            code = 77;
        } catch (const CppUnit::Exception& e) {
            message = fmt::format("{} (line {})", e.what(), e.sourceLine().lineNumber());
            code = 1;
        } catch (const std::exception& e) {
            message = std::string("exception: ") + e.what();
            code = 1;
        }
        if (!message.empty() && ::write(fds[1], message.data(), message.size()) < 0)
            code = 2;
        ::_exit(code);
    }
    ::close(fds[1]);
    std::string message;
    char chunk[512];
    ssize_t got;
    while ((got = ::read(fds[0], chunk, sizeof(chunk))) > 0)
        message.append(chunk, static_cast<size_t>(got));
    ::close(fds[0]);
    int status = 0;
    CPPUNIT_ASSERT(::waitpid(pid, &status, 0) == pid);
    child_result result;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        result.skipped = true;
        result.failure = message;
    } else if (!WIFEXITED(status)) {
        result.failure = fmt::format("child killed by signal {}", WTERMSIG(status));
    } else if (WEXITSTATUS(status) != 0) {
        result.failure = message.empty()
                             ? fmt::format("child exited with {}", WEXITSTATUS(status))
                             : message;
    }
    return result;
}

//! Removes CAP_IPC_LOCK from this process, so RLIMIT_MEMLOCK applies even to root.
bool drop_cap_ipc_lock()
{
    __user_cap_header_struct header{ _LINUX_CAPABILITY_VERSION_3, 0 };
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    const uint32_t bit = 1U << (CAP_IPC_LOCK % 32);
    auto& word = data[CAP_IPC_LOCK / 32];
    word.effective &= ~bit;
    word.permitted &= ~bit;
    word.inheritable &= ~bit;
    if (::syscall(SYS_capset, &header, data) != 0)
        return false;
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    return (data[CAP_IPC_LOCK / 32].effective & bit) == 0;
}

/*!
 * Grows the 2 MiB hugepage pool by some pages for the lifetime of the object and puts
 * the previous size back afterwards, also when the test fails.
 */
class hugepage_reservation
{
public:
    explicit hugepage_reservation(long extra)
        : d_path(pool_dir + "/nr_hugepages"), d_previous(read_long(d_path))
    {
        if (d_previous < 0)
            return;
        write(d_previous + extra);
        d_granted = read_long(d_path) - d_previous;
    }
    ~hugepage_reservation()
    {
        if (d_previous >= 0 && d_granted != 0)
            write(d_previous);
    }
    hugepage_reservation(const hugepage_reservation&) = delete;
    hugepage_reservation& operator=(const hugepage_reservation&) = delete;

    long previous() const { return d_previous; }
    long granted() const { return d_granted; }

private:
    void write(long pages)
    {
        std::ofstream out(d_path);
        out << pages << std::endl;
    }

    std::string d_path;
    long d_previous;
    long d_granted = 0;
};

int mempolicy_mode(const void* addr, unsigned long& first_mask_word)
{
    int mode = -1;
    unsigned long mask[16] = {};
    if (::syscall(SYS_get_mempolicy,
                  &mode,
                  mask,
                  sizeof(mask) * 8,
                  const_cast<void*>(addr),
                  MPOL_F_ADDR) != 0)
        return -1;
    first_mask_word = mask[0];
    return mode;
}

int node_of_page(const void* addr)
{
    int node = -1;
    if (::syscall(SYS_get_mempolicy,
                  &node,
                  nullptr,
                  0,
                  const_cast<void*>(addr),
                  MPOL_F_ADDR | MPOL_F_NODE) != 0)
        return -2;
    return node;
}

} // namespace

class qa_ring_placement : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ring_placement);
    CPPUNIT_TEST(test_granule_not_power_of_two);
    CPPUNIT_TEST(test_hugepage_fallback);
    CPPUNIT_TEST(test_hugepages_off_is_silent);
    CPPUNIT_TEST(test_hugepages_reserved);
    CPPUNIT_TEST(test_mlock_fallback);
    CPPUNIT_TEST(test_locked_when_permitted);
    CPPUNIT_TEST(test_numa_bind);
    CPPUNIT_TEST(test_numa_missing_node);
    CPPUNIT_TEST_SUITE_END();

public:
    // 8000-byte packets fit 4 KiB pages (lcm 512000) but would make every hugepage ring
    // a multiple of 250 MiB: automatic uses normal pages and says why, required refuses.
    void test_granule_not_power_of_two()
    {
        captured_log log;
        ring_memory ring(options(1 * mib, hugepage_mode::automatic, false, -1, 8000),
                         log.logger);
        CPPUNIT_ASSERT(!ring.hugepages());
        CPPUNIT_ASSERT_EQUAL(size_t(3 * 512000), ring.bytes());
        ASSERT_CONTAINS(ring.notes(), "power of two");
        ASSERT_CONTAINS(log.warnings(), "power of two");
        check_mirror(ring);
        CPPUNIT_ASSERT_THROW(
            ring_memory(options(1 * mib, hugepage_mode::required, false, -1, 8000),
                        quiet_logger()),
            std::invalid_argument);
    }

    void test_hugepage_fallback()
    {
        // Ask for more 2 MiB pages than the pool has free, so the fallback happens on
        // any machine (here the pool is normally empty).
        const long available = available_hugepages();
        const size_t min_bytes =
            available > 0 ? size_t(available + 1) * 2 * mib : 1 * mib;
        if (min_bytes > 256 * mib) {
            skipped("hugepage fallback test",
                    fmt::format("{} hugepages of 2 MiB are free; forcing the fallback "
                                "would need a {} MiB ring",
                                available,
                                min_bytes / mib));
            return;
        }
        const std::string fix = default_hugepage_size() == 2 * mib
                                    ? "vm.nr_hugepages"
                                    : "hugepages-2048kB/nr_hugepages";

        captured_log log;
        ring_memory ring(options(min_bytes, hugepage_mode::automatic), log.logger);
        CPPUNIT_ASSERT(!ring.hugepages());
        CPPUNIT_ASSERT_EQUAL(system_page_size(), ring.page_size());
        CPPUNIT_ASSERT_EQUAL(min_bytes, ring.bytes());
        ASSERT_CONTAINS(ring.notes(), fix);
        ASSERT_CONTAINS(ring.notes(), "HugePages_Free=");
        ASSERT_CONTAINS(log.warnings(), fix);
        check_mirror(ring);

        try {
            ring_memory strict(options(min_bytes, hugepage_mode::required),
                               quiet_logger());
            CPPUNIT_FAIL("hugepage_mode::required without hugepages must throw");
        } catch (const std::system_error& e) {
            ASSERT_CONTAINS(std::string(e.what()), fix);
            ASSERT_CONTAINS(std::string(e.what()), "HugePages_Free=");
        }
    }

    void test_hugepages_off_is_silent()
    {
        captured_log log;
        ring_memory ring(options(1 * mib, hugepage_mode::off), log.logger);
        CPPUNIT_ASSERT(!ring.hugepages());
        CPPUNIT_ASSERT_EQUAL(std::string(), ring.notes());
        CPPUNIT_ASSERT_EQUAL(std::string(), log.warnings());
    }

    void test_hugepages_reserved()
    {
        if (::geteuid() != 0) {
            skipped("hugepage reservation test",
                    "needs root (writes " + pool_dir + "/nr_hugepages)");
            return;
        }
        if (available_hugepages() < 0) {
            skipped("hugepage reservation test", "the kernel has no 2 MiB hugepage pool");
            return;
        }
        // The parent holds the reservation; the ring lives in a child, so even a crash
        // cannot keep the pool from being restored.
        hugepage_reservation reservation(3);
        if (reservation.granted() < 3) {
            skipped(
                "hugepage reservation test",
                fmt::format("the kernel granted {} of 3 hugepages (fragmented memory?)",
                            reservation.granted()));
            return;
        }
        const child_result result = run_in_child([] {
            ring_memory warm_up(options(4096), quiet_logger());
            const long before = hugetlb_bytes();
            const size_t mapped_before = mapped_bytes();
            {
                captured_log log;
                // 3 MiB -> two hugepages, shared by both copies.
                ring_memory ring(options(3 * mib, hugepage_mode::required, true, 0),
                                 log.logger);
                CPPUNIT_ASSERT(ring.hugepages());
                CPPUNIT_ASSERT_EQUAL(2 * mib, ring.page_size());
                CPPUNIT_ASSERT_EQUAL(4 * mib, ring.bytes());
                CPPUNIT_ASSERT_EQUAL(
                    uintptr_t(0), reinterpret_cast<uintptr_t>(ring.base()) % (2 * mib));
                CPPUNIT_ASSERT(ring.locked());
                CPPUNIT_ASSERT_EQUAL(0, ring.numa_node());
                CPPUNIT_ASSERT_EQUAL(std::string(), ring.notes());
                check_mirror(ring); // touches every page of both copies
                // Two hugepages, each mapped by both copies of the ring.
                CPPUNIT_ASSERT_EQUAL(before + 2 * long(4 * mib), hugetlb_bytes());
            }
            CPPUNIT_ASSERT_EQUAL(before, hugetlb_bytes());
            CPPUNIT_ASSERT_EQUAL(mapped_before, mapped_bytes()); // 2 MiB alignment slack
            ring_memory automatic(options(1 * mib, hugepage_mode::automatic),
                                  quiet_logger());
            CPPUNIT_ASSERT(automatic.hugepages());
            CPPUNIT_ASSERT_EQUAL(2 * mib, automatic.bytes());
            check_mirror(automatic);
        });
        CPPUNIT_ASSERT_MESSAGE(result.failure, !result.skipped && result.failure.empty());
    }

    void test_mlock_fallback()
    {
        const child_result result = run_in_child([] {
            const rlimit small{ 64 * kib, 64 * kib };
            CPPUNIT_ASSERT(::setrlimit(RLIMIT_MEMLOCK, &small) == 0);
            // Root (or a CAP_IPC_LOCK holder) ignores the limit; drop the capability.
            if (!drop_cap_ipc_lock())
                throw skip_child("could not drop CAP_IPC_LOCK: " +
                                 std::string(std::strerror(errno)));
            captured_log log;
            ring_memory ring(options(1 * mib, hugepage_mode::off, true), log.logger);
            CPPUNIT_ASSERT(!ring.locked());
            const std::string notes = ring.notes();
            ASSERT_CONTAINS(notes, "RLIMIT_MEMLOCK is 65536 bytes (64 KiB)");
            ASSERT_CONTAINS(notes, "needs 2097152 bytes");
            ASSERT_CONTAINS(notes, "ulimit -l unlimited");
            ASSERT_CONTAINS(notes, "* - memlock unlimited");
            ASSERT_CONTAINS(notes, "/etc/security/limits.conf");
            ASSERT_CONTAINS(notes, "CAP_IPC_LOCK");
            ASSERT_CONTAINS(log.warnings(), "RLIMIT_MEMLOCK");
            CPPUNIT_ASSERT_EQUAL(size_t(0), locked_bytes());
            check_mirror(ring);
        });
        if (result.skipped) {
            skipped("mlock fallback test", result.failure);
            CPPUNIT_FAIL("mlock fallback not tested: " + result.failure);
        }
        CPPUNIT_ASSERT_MESSAGE(result.failure, result.failure.empty());
    }

    void test_locked_when_permitted()
    {
        rlimit limit{};
        CPPUNIT_ASSERT(::getrlimit(RLIMIT_MEMLOCK, &limit) == 0);
        const size_t bytes = 64 * kib;
        const size_t already = locked_bytes();
        if (::geteuid() != 0 && limit.rlim_cur != RLIM_INFINITY &&
            limit.rlim_cur < already + 2 * bytes) {
            skipped("locked ring test",
                    fmt::format("RLIMIT_MEMLOCK {} leaves no room for {} bytes",
                                limit.rlim_cur,
                                2 * bytes));
            return;
        }
        captured_log log;
        ring_memory ring(options(bytes, hugepage_mode::off, true), log.logger);
        CPPUNIT_ASSERT_MESSAGE(ring.notes(), ring.locked());
        CPPUNIT_ASSERT_EQUAL(std::string(), ring.notes());
        CPPUNIT_ASSERT_EQUAL(already + 2 * bytes, locked_bytes());
    }

    void test_numa_bind()
    {
        if (::access("/sys/devices/system/node/node0", F_OK) != 0) {
            skipped("NUMA binding test",
                    "no /sys/devices/system/node/node0 (kernel "
                    "without NUMA)");
            return;
        }
        captured_log log;
        ring_memory ring(options(1 * mib, hugepage_mode::off, false, 0), log.logger);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(ring.notes(), 0, ring.numa_node());
        CPPUNIT_ASSERT_EQUAL(std::string(), ring.notes());
        const size_t n = ring.bytes();
        for (const size_t offset : { size_t(0), n / 2, n - 1, n, n + n / 2 + 4096 }) {
            const uint8_t* addr = ring.base() + offset;
            unsigned long mask = 0;
            const int mode = mempolicy_mode(addr, mask);
            CPPUNIT_ASSERT_MESSAGE(fmt::format("policy {} at offset {}", mode, offset),
                                   mode == MPOL_PREFERRED || mode == MPOL_BIND);
            CPPUNIT_ASSERT_EQUAL(1UL, mask);
            CPPUNIT_ASSERT_EQUAL(0, node_of_page(addr));
        }
        // The control: without a node there is no policy, so the check above can fail.
        ring_memory plain(options(1 * mib), quiet_logger());
        unsigned long mask = 0;
        CPPUNIT_ASSERT_EQUAL(int(MPOL_DEFAULT), mempolicy_mode(plain.base(), mask));
        CPPUNIT_ASSERT_EQUAL(-1, plain.numa_node());
    }

    void test_numa_missing_node()
    {
        captured_log log;
        ring_memory ring(options(1 * mib, hugepage_mode::off, false, 999), log.logger);
        CPPUNIT_ASSERT_EQUAL(-1, ring.numa_node());
        ASSERT_CONTAINS(ring.notes(), "NUMA node 999 does not exist");
        ASSERT_CONTAINS(log.warnings(), "NUMA node 999");
        unsigned long mask = 0;
        CPPUNIT_ASSERT_EQUAL(int(MPOL_DEFAULT), mempolicy_mode(ring.base(), mask));
        check_mirror(ring);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ring_placement);
