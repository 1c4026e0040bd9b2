/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "ring_memory.h"
#include "ring_sizing.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <dirent.h>
#include <linux/capability.h>
#include <linux/mempolicy.h>
#include <spdlog/fmt/fmt.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <system_error>
#include <type_traits>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace gr::rdma;

// Address stability is part of the contract: the ring is registered with the NIC.
static_assert(!std::is_copy_constructible_v<ring_memory>);
static_assert(!std::is_move_constructible_v<ring_memory>);
static_assert(!std::is_copy_assignable_v<ring_memory>);
static_assert(!std::is_move_assignable_v<ring_memory>);

namespace {

constexpr size_t kib = 1024;
constexpr size_t mib = kib * kib;
const std::string pool_dir = "/sys/kernel/mm/hugepages/hugepages-2048kB";

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

#define ASSERT_CONTAINS(text, part)                                                  \
    CPPUNIT_ASSERT_MESSAGE(std::string("expected \"") + (part) + "\" in: " + (text), \
                           contains((text), (part)))

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

logger_ptr quiet_logger()
{
    return std::make_shared<spdlog::logger>(
        "qa_ring_quiet", std::make_shared<spdlog::sinks::null_sink_st>());
}

ring_options options(size_t min_bytes,
                     hugepage_mode hugepages = hugepage_mode::off,
                     bool lock = false,
                     int numa_node = -1,
                     size_t granule = 1)
{
    ring_options o;
    o.min_bytes = min_bytes;
    o.granule = granule;
    o.hugepages = hugepages;
    o.numa_node = numa_node;
    o.lock = lock;
    return o;
}

std::string read_text(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

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

size_t count_lines(const std::string& text)
{
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

//! Bytes of address space mapped, without [heap] and [stack], which grow on their own.
size_t mapped_bytes()
{
    std::istringstream maps(read_text("/proc/self/maps"));
    std::string line;
    size_t total = 0;
    while (std::getline(maps, line)) {
        if (contains(line, "[heap]") || contains(line, "[stack]"))
            continue;
        const size_t dash = line.find('-');
        const size_t space = line.find(' ');
        total += std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16) -
                 std::stoull(line.substr(0, dash), nullptr, 16);
    }
    return total;
}

size_t count_fds()
{
    size_t n = 0;
    DIR* dir = ::opendir("/proc/self/fd");
    CPPUNIT_ASSERT(dir);
    while (::readdir(dir))
        n++;
    ::closedir(dir);
    return n;
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

/*!
 * The mirror property: every byte of the first copy is the byte at the same offset of
 * the second copy, in both directions, and a slice that starts near the end of the first
 * copy is contiguous and continues at the start of the ring.
 */
void check_mirror(const ring_memory& ring)
{
    uint8_t* const base = ring.base();
    const size_t n = ring.bytes();
    const std::string where = fmt::format(" (ring of {} bytes)", n);
    std::mt19937 rng(static_cast<unsigned>(n));
    auto random_bytes = [&rng](size_t len) {
        std::vector<uint8_t> v(len);
        for (auto& b : v)
            b = static_cast<uint8_t>(rng());
        return v;
    };

    // The whole ring, both directions.
    auto whole = random_bytes(n);
    std::memcpy(base, whole.data(), n);
    CPPUNIT_ASSERT_MESSAGE("first copy -> second" + where,
                           std::memcmp(base + n, whole.data(), n) == 0);
    whole = random_bytes(n);
    std::memcpy(base + n, whole.data(), n);
    CPPUNIT_ASSERT_MESSAGE("second copy -> first" + where,
                           std::memcmp(base, whole.data(), n) == 0);

    const size_t len = std::min<size_t>(1000, n);
    for (const size_t offset : { size_t(0), n / 2, n - 100 }) {
        const std::string at = fmt::format(" at offset {}", offset) + where;
        // One contiguous write; at n - 100 it runs off the end of the first copy and
        // must land at the start of the ring.
        auto pattern = random_bytes(len);
        std::memcpy(base + offset, pattern.data(), len);
        size_t wrong = 0;
        for (size_t i = 0; i < len; i++) {
            const size_t k = (offset + i) % n;
            wrong += base[k] != pattern[i];
            wrong += base[n + k] != pattern[i];
        }
        CPPUNIT_ASSERT_EQUAL_MESSAGE("contiguous write" + at, size_t(0), wrong);

        // Written item by item modulo the ring, through each copy; one contiguous read.
        for (size_t copy = 0; copy < 2; copy++) {
            pattern = random_bytes(len);
            for (size_t i = 0; i < len; i++)
                base[copy * n + (offset + i) % n] = pattern[i];
            CPPUNIT_ASSERT_MESSAGE(
                fmt::format("contiguous read after writing copy {}", copy) + at,
                std::memcmp(base + offset, pattern.data(), len) == 0);
        }
    }
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

//! Rss and Pss, in bytes, of the ring's two mappings (/proc/self/smaps).
void ring_rss_pss(const ring_memory& ring, size_t& rss, size_t& pss)
{
    const uintptr_t lo = reinterpret_cast<uintptr_t>(ring.base());
    const uintptr_t hi = lo + 2 * ring.bytes();
    std::istringstream smaps(read_text("/proc/self/smaps"));
    std::string line;
    bool inside = false;
    rss = pss = 0;
    while (std::getline(smaps, line)) {
        const size_t dash = line.find('-');
        if (dash != std::string::npos && dash > 0 &&
            line.find_first_not_of("0123456789abcdef") == dash) {
            const uintptr_t start = std::stoull(line.substr(0, dash), nullptr, 16);
            inside = start >= lo && start < hi;
            continue;
        }
        if (!inside)
            continue;
        std::istringstream fields(line);
        std::string key;
        size_t kb = 0;
        fields >> key >> kb;
        if (key == "Rss:")
            rss += kb * kib;
        else if (key == "Pss:")
            pss += kb * kib;
    }
}

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

class qa_ring_memory : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_ring_memory);
    CPPUNIT_TEST(test_mirror_normal_pages);
    CPPUNIT_TEST(test_physical_memory_once_and_prefaulted);
    CPPUNIT_TEST(test_sizing_examples);
    CPPUNIT_TEST(test_sizing_properties);
    CPPUNIT_TEST(test_sizing_rejections);
    CPPUNIT_TEST(test_options_rejected);
    CPPUNIT_TEST(test_granule_not_power_of_two);
    CPPUNIT_TEST(test_hugepage_fallback);
    CPPUNIT_TEST(test_hugepages_off_is_silent);
    CPPUNIT_TEST(test_hugepages_reserved);
    CPPUNIT_TEST(test_mlock_fallback);
    CPPUNIT_TEST(test_locked_when_permitted);
    CPPUNIT_TEST(test_numa_bind);
    CPPUNIT_TEST(test_numa_missing_node);
    CPPUNIT_TEST(test_no_leaks);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_mirror_normal_pages()
    {
        const size_t page = system_page_size();
        struct case_t {
            size_t min_bytes, granule, expected;
        };
        const case_t cases[] = {
            { 1, 1, page },
            { page, 1, page },
            { page + 1, 1, 2 * page },
            { 5000, 1, 2 * page },
            { 3 * page + 7, 1, 4 * page },
            { 64 * kib, 1, 64 * kib },
            { 1 * mib, 4096, 1 * mib },
            // 8000-byte packets: sizes are multiples of lcm(4096, 8000) = 512000.
            { 1 * mib, 8000, 3 * 512000 },
            { 5 * mib + 3, 1, 5 * mib + page },
        };
        for (const auto& c : cases) {
            ring_memory ring(
                options(c.min_bytes, hugepage_mode::off, false, -1, c.granule),
                quiet_logger());
            CPPUNIT_ASSERT_EQUAL(c.expected, ring.bytes());
            CPPUNIT_ASSERT_EQUAL(page, ring.page_size());
            CPPUNIT_ASSERT(!ring.hugepages());
            CPPUNIT_ASSERT(!ring.locked());
            CPPUNIT_ASSERT_EQUAL(-1, ring.numa_node());
            CPPUNIT_ASSERT_EQUAL(std::string(), ring.notes());
            CPPUNIT_ASSERT_EQUAL(uintptr_t(0),
                                 reinterpret_cast<uintptr_t>(ring.base()) % page);
            check_mirror(ring);
        }
    }

    // Virtual 2x, physical 1x: both mappings are resident right after construction
    // (prefaulted, no lock involved) and every page is shared by the two of them.
    void test_physical_memory_once_and_prefaulted()
    {
        ring_memory ring(options(1 * mib), quiet_logger());
        size_t rss = 0, pss = 0;
        ring_rss_pss(ring, rss, pss);
        CPPUNIT_ASSERT_EQUAL(2 * ring.bytes(), rss);
        CPPUNIT_ASSERT_MESSAGE(fmt::format("Pss {} for a ring of {}", pss, ring.bytes()),
                               pss + 8 * kib >= ring.bytes() &&
                                   pss <= ring.bytes() + 8 * kib);
    }

    void test_sizing_examples()
    {
        // 20 MS/s of sc16 (4 bytes), 100 ms: 8,000,000 bytes -> 1954 pages of 4 KiB.
        CPPUNIT_ASSERT_EQUAL(size_t(8003584), ring_bytes_for(20e6, 4, 0.1, 4096, 4096));
        // The same with 2 MiB hugepages: 4 hugepages.
        CPPUNIT_ASSERT_EQUAL(size_t(8388608),
                             ring_bytes_for(20e6, 4, 0.1, 4096, 2 * mib));
        // fc32 (8 bytes), 1024-item packets of 8192 bytes: 16e6 -> 1954 granules.
        CPPUNIT_ASSERT_EQUAL(size_t(16007168), ring_bytes_for(20e6, 8, 0.1, 8192, 4096));
        // fc32 in 8000-byte packets: multiples of lcm(4096, 8000) = 512000 -> 32 of them.
        CPPUNIT_ASSERT_EQUAL(size_t(16384000), ring_bytes_for(20e6, 8, 0.1, 8000, 4096));
        // At least one granule, however short the budget.
        CPPUNIT_ASSERT_EQUAL(size_t(8192), ring_bytes_for(1000, 4, 1e-6, 8192, 4096));
        // Floating-point noise does not add a page: 409600 * 1.1 is 450560.00000000006
        // in binary, i.e. exactly 440 pages of sc16, not 441.
        CPPUNIT_ASSERT_EQUAL(size_t(440 * 4096),
                             ring_bytes_for(409600, 4, 1.1, 4096, 4096));
        // Just below GNU Radio's 2^31-item limit.
        CPPUNIT_ASSERT_EQUAL(size_t(2147000320), ring_bytes_for(1e9, 1, 2.147, 1, 4096));
    }

    void test_sizing_properties()
    {
        std::mt19937_64 rng(20260101);
        std::uniform_real_distribution<double> log_rate(3, 9.5), log_latency(-5, 0.5);
        const size_t items[] = { 1, 2, 4, 8, 16 };
        size_t checked = 0, rejected = 0;
        for (int i = 0; i < 20000; i++) {
            const size_t item = items[rng() % 5];
            const size_t granule =
                item * (rng() % 2 ? size_t(1) << (rng() % 14) : 1 + rng() % 3000);
            const size_t page = rng() % 2 ? size_t(4096) : 2 * mib;
            const double rate = std::pow(10.0, log_rate(rng));
            const double latency = std::pow(10.0, log_latency(rng));
            const size_t unit = std::lcm(page, granule);
            const double wanted = rate * latency * item; // bytes
            const double floor_bytes = std::max(wanted, double(granule));
            const std::string what =
                fmt::format("rate {} item {} latency {} granule {} page {}",
                            rate,
                            item,
                            latency,
                            granule,
                            page);
            size_t bytes = 0;
            try {
                bytes = ring_bytes_for(rate, item, latency, granule, page);
            } catch (const std::invalid_argument& e) {
                // Only legitimate when the rounded ring reaches 2^31 items.
                const double rounded = std::ceil(floor_bytes * (1 - 1e-9) / unit) * unit;
                CPPUNIT_ASSERT_MESSAGE(what + ": " + e.what(),
                                       rounded / item > double(INT32_MAX));
                ASSERT_CONTAINS(std::string(e.what()), "lower the latency budget");
                rejected++;
                continue;
            }
            CPPUNIT_ASSERT_MESSAGE(what, bytes % page == 0);
            CPPUNIT_ASSERT_MESSAGE(what, bytes % granule == 0);
            CPPUNIT_ASSERT_MESSAGE(what, bytes % item == 0);
            CPPUNIT_ASSERT_MESSAGE(what, bytes / item <= size_t(INT32_MAX));
            CPPUNIT_ASSERT_MESSAGE(what, double(bytes) >= floor_bytes * (1 - 1e-9));
            CPPUNIT_ASSERT_MESSAGE(what, double(bytes) < floor_bytes + item + unit);
            checked++;
        }
        CPPUNIT_ASSERT(checked > 15000);
        CPPUNIT_ASSERT(rejected > 0); // the generator reaches the limit too
    }

    void test_sizing_rejections()
    {
        auto message = [](auto&& call) -> std::string {
            try {
                call();
            } catch (const std::invalid_argument& e) {
                return e.what();
            }
            CPPUNIT_FAIL("expected std::invalid_argument");
            return {};
        };
        const double nan = std::nan("");
        const double inf = INFINITY;
        for (const double rate : { 0.0, -1.0, nan, inf })
            ASSERT_CONTAINS(message([&] { ring_bytes_for(rate, 4, 0.1, 4096, 4096); }),
                            "sample rate must be positive");
        for (const double latency : { 0.0, -0.1, nan, inf })
            ASSERT_CONTAINS(message([&] { ring_bytes_for(1e6, 4, latency, 4096, 4096); }),
                            "latency budget must be positive");
        ASSERT_CONTAINS(message([] { ring_bytes_for(1e6, 0, 0.1, 4096, 4096); }),
                        "item size must be at least 1 byte");
        ASSERT_CONTAINS(
            message([] { ring_bytes_for(1e6, 4, 0.1, 6, 4096); }),
            "granule (6 bytes) must be a nonzero multiple of the item size (4");
        ASSERT_CONTAINS(message([] { ring_bytes_for(1e6, 4, 0.1, 0, 4096); }),
                        "granule (0 bytes)");
        ASSERT_CONTAINS(message([] { ring_bytes_for(1e6, 4, 0.1, 4096, 0); }),
                        "page size");
        // 1 GS/s for 2.2 s is 2.2e9 items: over 2^31. The largest budget that fits is
        // (2^31 - 1) rounded down to 4096 items, over the rate.
        const std::string too_long =
            message([] { ring_bytes_for(1e9, 4, 2.2, 4096, 4096); });
        ASSERT_CONTAINS(too_long, "fewer than 2^31 items");
        ASSERT_CONTAINS(too_long, "lower the latency budget to at most 2.14748 s");
        // Rounding alone may cross the limit: 2^31 - 1 items round up to 2^31.
        const std::string rounded =
            message([] { ring_bytes_for(double(INT32_MAX), 1, 1.0, 1, 4096); });
        ASSERT_CONTAINS(rounded, "lower the latency budget");
    }

    void test_options_rejected()
    {
        auto rejected = [](const ring_options& o, const std::string& part) {
            try {
                ring_memory ring(o, quiet_logger());
            } catch (const std::invalid_argument& e) {
                ASSERT_CONTAINS(std::string(e.what()), part);
                return;
            }
            CPPUNIT_FAIL("expected std::invalid_argument mentioning " + part);
        };
        rejected(options(0), "min_bytes must be at least 1");
        rejected(options(4096, hugepage_mode::off, false, -1, 0), "granule");
        rejected(options(4096, hugepage_mode::off, false, -2), "numa_node");
        rejected(options(SIZE_MAX - 10), "overflows");
        rejected(options(SIZE_MAX / 2), "cannot be mapped twice");
        // A prime granule: lcm with 4 KiB pages is ~4 GB for a 1 MiB ring.
        rejected(options(1 * mib, hugepage_mode::off, false, -1, 1000003),
                 "power of two");
    }

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
            const long before = available_hugepages();
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
                CPPUNIT_ASSERT_EQUAL(before - 2, available_hugepages());
                check_mirror(ring);
            }
            CPPUNIT_ASSERT_EQUAL(before, available_hugepages());
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

    void test_no_leaks()
    {
        // Every path: hugepage fallback, NUMA, mlock, odd granules, and the throwing
        // required mode (when no hugepages are free).
        const auto logger = quiet_logger();
        auto cycle = [&logger](int i) {
            ring_options o =
                options(64 * kib * (1 + i % 4),
                        i % 2 ? hugepage_mode::automatic : hugepage_mode::off,
                        i % 3 != 0,
                        i % 5 == 0 ? 0 : -1,
                        i % 7 == 0 ? 8000 : 4096);
            if (i % 10 == 9)
                o.hugepages = hugepage_mode::required;
            std::unique_ptr<ring_memory> ring;
            try {
                ring = std::make_unique<ring_memory>(o, logger);
            } catch (const std::system_error&) { // no hugepages
                CPPUNIT_ASSERT(o.hugepages == hugepage_mode::required);
                return;
            } catch (const std::invalid_argument&) { // granule 8000 with hugepages
                CPPUNIT_ASSERT(o.hugepages == hugepage_mode::required);
                return;
            }
            ring->base()[0] = 1;
            CPPUNIT_ASSERT_EQUAL(uint8_t(1), ring->base()[ring->bytes()]);
        };
        for (int i = 0; i < 70; i++) // every variant once, before counting
            cycle(i);
        const size_t maps_before = count_lines(read_text("/proc/self/maps"));
        const size_t bytes_before = mapped_bytes();
        const size_t fds_before = count_fds();
        for (int i = 0; i < 200; i++)
            cycle(i);
        const std::string maps = read_text("/proc/self/maps");
        CPPUNIT_ASSERT_EQUAL(maps_before, count_lines(maps));
        // Leftover PROT_NONE slack would merge with its neighbours: count bytes too.
        CPPUNIT_ASSERT_EQUAL(bytes_before, mapped_bytes());
        CPPUNIT_ASSERT_EQUAL(fds_before, count_fds());
        CPPUNIT_ASSERT_MESSAGE(maps, !contains(maps, "gr-rdma-ring"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_ring_memory);
