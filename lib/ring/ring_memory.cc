/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../util/errors.h"
#include "../util/file_descriptor.h"
#include "ring_memory.h"
#include <linux/mempolicy.h>
#include <spdlog/fmt/fmt.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <system_error>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21U << 26)
#endif

namespace gr {
namespace rdma {

namespace {

// Above this, a size quantum (lcm of page and granule) is only acceptable if the ring
// is big anyway; see size_problem().
constexpr size_t absurd_unit_bytes = size_t(64) << 20;

const char* const hugepage_pool_dir = "/sys/kernel/mm/hugepages/hugepages-2048kB";

//! Owns a range of address space and unmaps it unless released.
class address_range
{
public:
    address_range() = default;
    address_range(uint8_t* addr, size_t len) : d_addr(addr), d_len(len) {}
    address_range(address_range&& o) noexcept
        : d_addr(std::exchange(o.d_addr, nullptr)), d_len(std::exchange(o.d_len, 0))
    {
    }
    address_range& operator=(address_range&& o) noexcept
    {
        if (this != &o) {
            reset();
            d_addr = std::exchange(o.d_addr, nullptr);
            d_len = std::exchange(o.d_len, 0);
        }
        return *this;
    }
    address_range(const address_range&) = delete;
    address_range& operator=(const address_range&) = delete;
    ~address_range() { reset(); }

    uint8_t* get() const { return d_addr; }
    size_t size() const { return d_len; }
    explicit operator bool() const { return d_addr != nullptr; }
    uint8_t* release()
    {
        d_len = 0;
        return std::exchange(d_addr, nullptr);
    }
    void reset()
    {
        if (d_addr)
            ::munmap(d_addr, d_len);
        d_addr = nullptr;
        d_len = 0;
    }

private:
    uint8_t* d_addr = nullptr;
    size_t d_len = 0;
};

//! A hugepage attempt failed in a way that normal pages may not (no pool, pool empty).
struct hugepage_unavailable : std::runtime_error {
    hugepage_unavailable(const std::string& step, int err)
        : std::runtime_error(step), err(err)
    {
    }
    int err;
};

//! A mapped ring, not yet locked; bind_err is mbind's errno (0: bound or not asked).
struct placed_ring {
    address_range range;
    size_t page = 0;
    bool hugepages = false;
    int bind_err = 0;
};

std::string format_bytes(size_t n)
{
    constexpr size_t kib = 1024, mib = kib << 10, gib = mib << 10;
    if (n >= gib)
        return n % gib ? fmt::format("{:.1f} GiB", double(n) / gib)
                       : fmt::format("{} GiB", n / gib);
    if (n >= mib)
        return n % mib ? fmt::format("{:.1f} MiB", double(n) / mib)
                       : fmt::format("{} MiB", n / mib);
    if (n >= kib && n % kib == 0)
        return fmt::format("{} KiB", n / kib);
    return fmt::format("{} bytes", n);
}

std::string read_line(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

//! One counter of a 2 MiB pool from sysfs (global, or of \p node); -1 if unreadable.
long pool_counter(const char* name, int node = -1)
{
    const std::string dir =
        node < 0
            ? std::string(hugepage_pool_dir)
            : fmt::format("/sys/devices/system/node/node{}/hugepages/hugepages-2048kB",
                          node);
    const std::string text = read_line(dir + "/" + name);
    try {
        return text.empty() ? -1 : std::stol(text);
    } catch (const std::exception&) {
        return -1;
    }
}

bool node_exists(int node)
{
    return ::access(fmt::format("/sys/devices/system/node/node{}", node).c_str(), F_OK) ==
           0;
}

//! Why hugepages failed, what the pool holds, and the command that fixes it.
std::string hugepage_explanation(const hugepage_unavailable& e, size_t bytes, int node)
{
    const size_t needed = bytes / ring_hugepage_bytes; // both copies share these pages
    const std::string failure = fmt::format("{}: {}", e.what(), std::strerror(e.err));
    const long total = pool_counter("nr_hugepages");
    const long free = pool_counter("free_hugepages");
    const long rsvd = pool_counter("resv_hugepages");
    if (total < 0 || free < 0 || rsvd < 0)
        return fmt::format(
            "no 2 MiB hugepages for a {} ring ({}): the kernel has no 2 MiB "
            "hugepage pool ({} is missing); fix: a kernel with "
            "CONFIG_HUGETLBFS, then sysctl -w vm.nr_hugepages={}",
            format_bytes(bytes),
            failure,
            hugepage_pool_dir,
            needed);

    const long available = free - rsvd;
    // Grow the pool by what is missing; if it looked sufficient (cgroup limit, another
    // process was faster), suggest room for one more ring.
    const long missing = static_cast<long>(needed) - available;
    const long target = total + (missing > 0 ? missing : static_cast<long>(needed));
    const std::string command =
        default_hugepage_size() == ring_hugepage_bytes
            ? fmt::format("sysctl -w vm.nr_hugepages={}", target)
            : fmt::format("echo {} > {}/nr_hugepages (vm.nr_hugepages sizes the {} pool)",
                          target,
                          hugepage_pool_dir,
                          format_bytes(default_hugepage_size()));
    const char* const lead = missing <= 0     ? "2 MiB hugepages could not be mapped"
                             : available <= 0 ? "no 2 MiB hugepages reserved"
                                              : "not enough 2 MiB hugepages reserved";
    std::string text =
        fmt::format("{} for a {} ring ({}): it needs {}, the pool has HugePages_Free={} "
                    "HugePages_Rsvd={} HugePages_Total={}; fix: {}",
                    lead,
                    format_bytes(bytes),
                    failure,
                    needed,
                    free,
                    rsvd,
                    total,
                    command);
    const long node_total = node >= 0 ? pool_counter("nr_hugepages", node) : -1;
    const long node_free = node >= 0 ? pool_counter("free_hugepages", node) : -1;
    if (node_total >= 0 && node_free >= 0) {
        const long node_missing = static_cast<long>(needed) - node_free;
        text += fmt::format(
            " (or only on NUMA node {}: echo {} > "
            "/sys/devices/system/node/node{}/hugepages/"
            "hugepages-2048kB/nr_hugepages)",
            node,
            node_total + (node_missing > 0 ? node_missing : static_cast<long>(needed)),
            node);
    }
    return text + "; persist it in /etc/sysctl.d/ or with hugepages= on the kernel "
                  "command line";
}

std::string memlock_explanation(int err, size_t needed, bool hugepages)
{
    rlimit limit{};
    ::getrlimit(RLIMIT_MEMLOCK, &limit);
    const std::string current =
        limit.rlim_cur == RLIM_INFINITY
            ? std::string("unlimited")
            : fmt::format("{} bytes ({})", limit.rlim_cur, format_bytes(limit.rlim_cur));
    return fmt::format(
        "mlock of the ring failed ({}): RLIMIT_MEMLOCK is {} but the ring needs {} bytes "
        "({}) locked, both mappings count; fix: ulimit -l unlimited, or '* - memlock "
        "unlimited' in /etc/security/limits.conf (LimitMEMLOCK=infinity for a systemd "
        "service), or grant the process CAP_IPC_LOCK; {}",
        std::strerror(err),
        current,
        needed,
        format_bytes(needed),
        hugepages ? "hugetlb pages are never swapped out, so the ring stays resident"
                  : "meanwhile the ring may be swapped out under memory pressure");
}

void validate(const ring_options& options)
{
    if (options.min_bytes == 0)
        throw std::invalid_argument("ring_options.min_bytes must be at least 1 byte (see "
                                    "ring_bytes_for() for a size from rate and latency)");
    if (options.granule == 0)
        throw std::invalid_argument(
            "ring_options.granule must be at least 1 (1 means no constraint)");
    if (options.numa_node < -1)
        throw std::invalid_argument(
            fmt::format("ring_options.numa_node must be -1 (no placement) or a node "
                        "number, got {}",
                        options.numa_node));
    switch (options.hugepages) {
    case hugepage_mode::automatic:
    case hugepage_mode::required:
    case hugepage_mode::off:
        break;
    default:
        throw std::invalid_argument("ring_options.hugepages is not a hugepage_mode");
    }
}

/*!
 * Ring size for \p page in \p bytes; returns why that page size is unsuitable (empty if
 * fine). A granule like 8000 with 2 MiB pages would make every ring a multiple of
 * 250 MiB; that is reported rather than silently allocated.
 */
std::string size_problem(const ring_options& options, size_t page, size_t& bytes)
{
    const auto unsuitable = [&](const std::string& unit) {
        return fmt::format("granule {} with {} pages makes ring sizes multiples of "
                           "lcm = {}, more than 4x the {} requested: the granule must "
                           "be a power of two or divide the page size",
                           options.granule,
                           format_bytes(page),
                           unit,
                           format_bytes(options.min_bytes));
    };
    size_t unit = 0;
    try {
        unit = ring_granularity(page, options.granule);
    } catch (const std::invalid_argument&) {
        return unsuitable("more than 2^64 bytes");
    }
    size_t four_times = 0;
    if (unit > absurd_unit_bytes &&
        (__builtin_mul_overflow(options.min_bytes, 4, &four_times) || unit > four_times))
        return unsuitable(fmt::format("{} bytes", unit));
    bytes = round_up_bytes(options.min_bytes, unit);
    if (bytes > (std::numeric_limits<size_t>::max() - page) / 2)
        throw std::invalid_argument(fmt::format(
            "ring_options.min_bytes: a ring of {} bytes cannot be mapped twice", bytes));
    return {};
}

/*!
 * A memfd of \p bytes mapped twice, back to back, at a \p page aligned address; nothing
 * else stays reserved. For hugetlb, failures that mean "no hugepages" throw
 * hugepage_unavailable so the caller can fall back.
 */
address_range map_twice(size_t bytes, size_t page, bool hugetlb)
{
    const auto fail = [hugetlb](const char* step) {
        const int err = errno;
        if (hugetlb && (err == ENOMEM || err == EINVAL || err == ENOSPC))
            throw hugepage_unavailable(step, err);
        throw_errno(std::string("ring_memory: ") + step, err);
    };

    const unsigned flags = MFD_CLOEXEC | (hugetlb ? MFD_HUGETLB | MFD_HUGE_2MB : 0U);
    file_descriptor fd(::memfd_create("gr-rdma-ring", flags));
    if (!fd) {
        if (hugetlb)
            throw hugepage_unavailable("memfd_create(MFD_HUGETLB | MFD_HUGE_2MB)", errno);
        throw_errno("ring_memory: memfd_create");
    }
    if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
        fail("ftruncate");

    // A hugetlb mapping takes its pages from the pool when it is made, so a short pool
    // fails the mmap. Find that out with a mapping the kernel places itself: a failing
    // MAP_FIXED mmap may already have unmapped the reservation below, and another
    // thread's stack or malloc arena can land in that hole before we give the range
    // back, which would then unmap it under that thread. The pages stay reserved for
    // the file (a shared mapping), so the fixed mappings below cannot run short.
    address_range trial;
    if (hugetlb) {
        void* const p =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
        if (p == MAP_FAILED)
            fail("mmap");
        trial = address_range(static_cast<uint8_t*>(p), bytes);
    }

    // Reserve both copies plus alignment slack first, so nothing else can be mapped
    // between the copies while they are placed with MAP_FIXED.
    const size_t reserved = 2 * bytes + page;
    void* hole = ::mmap(
        nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (hole == MAP_FAILED)
        throw_errno(fmt::format("ring_memory: reserving {} of address space",
                                format_bytes(reserved)));
    address_range reservation(static_cast<uint8_t*>(hole), reserved);

    const uintptr_t start = reinterpret_cast<uintptr_t>(hole);
    uint8_t* const base = reinterpret_cast<uint8_t*>((start + page - 1) / page * page);
    for (size_t copy = 0; copy < 2; copy++) {
        uint8_t* const at = base + copy * bytes;
        if (::mmap(
                at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd.get(), 0) ==
            MAP_FAILED) {
            const int err = errno;
            // The range of the failed copy may no longer be ours (see above): give back
            // only what certainly is, and leave that range's address space reserved.
            reservation.release();
            ::munmap(hole, static_cast<size_t>(at - static_cast<uint8_t*>(hole)));
            uint8_t* const after = at + bytes;
            ::munmap(after,
                     static_cast<size_t>(static_cast<uint8_t*>(hole) + reserved - after));
            errno = err;
            fail("mmap");
        }
    }

    // Give the alignment slack back. The fd can go: the mappings keep the memory.
    const size_t head = static_cast<size_t>(base - reservation.get());
    const size_t tail = reserved - head - 2 * bytes;
    reservation.release();
    address_range ring(base, 2 * bytes);
    if (head)
        ::munmap(hole, head);
    if (tail)
        ::munmap(base + 2 * bytes, tail);
    return ring;
}

/*!
 * Sets the NUMA policy of both copies; returns errno, 0 on success. MPOL_PREFERRED, not
 * MPOL_BIND: if the node is short of memory (or of hugepages, which are reserved
 * globally) the pages go elsewhere instead of the process being OOM-killed or getting
 * SIGBUS at first touch. Placement is verified afterwards and reported.
 */
int bind_to_node(uint8_t* base, size_t bytes, int node)
{
    constexpr size_t bits = sizeof(unsigned long) * 8;
    std::vector<unsigned long> mask(static_cast<size_t>(node) / bits + 1, 0);
    mask[node / bits] |= 1UL << (node % bits);
    for (size_t copy = 0; copy < 2; copy++) {
        // maxnode is one more than the bits passed: the kernel drops the last one.
        if (::syscall(SYS_mbind,
                      base + copy * bytes,
                      bytes,
                      MPOL_PREFERRED,
                      mask.data(),
                      mask.size() * bits + 1,
                      0) != 0)
            return errno;
    }
    return 0;
}

/*!
 * Fault every page in, through both copies, so the first samples do not page-fault.
 * The first copy goes first: for hugetlb only its policy governs allocation.
 * Returns errno, 0 on success.
 */
int populate(uint8_t* base, size_t bytes, size_t page)
{
    for (size_t copy = 0; copy < 2; copy++) {
        uint8_t* const start = base + copy * bytes;
        if (::madvise(start, bytes, MADV_POPULATE_WRITE) == 0)
            continue;
        if (errno != EINVAL)
            return errno;
        // Kernel older than 5.14: touch each page. The memory is new and zero, so
        // writing zero changes nothing.
        volatile uint8_t* const p = start;
        for (size_t offset = 0; offset < bytes; offset += page)
            p[offset] = 0;
    }
    return 0;
}

//! Counts the pages of [base, base + bytes) on \p node, and those whose node is known.
void count_pages_on_node(
    uint8_t* base, size_t bytes, size_t page, int node, size_t& on_node, size_t& known)
{
    constexpr size_t batch = 512;
    void* pages[batch];
    int status[batch];
    on_node = known = 0;
    for (size_t first = 0; first < bytes / page; first += batch) {
        const size_t n = std::min(batch, bytes / page - first);
        for (size_t i = 0; i < n; i++)
            pages[i] = base + (first + i) * page;
        // With nodes == nullptr, move_pages only reports where each page is.
        if (::syscall(SYS_move_pages, 0, n, pages, nullptr, status, 0) != 0)
            return;
        for (size_t i = 0; i < n; i++) {
            if (status[i] >= 0) {
                known++;
                on_node += status[i] == node;
            }
        }
    }
}

placed_ring place(size_t bytes, size_t page, bool hugetlb, int node)
{
    placed_ring ring;
    ring.range = map_twice(bytes, page, hugetlb);
    ring.page = page;
    ring.hugepages = hugetlb;
    if (node >= 0)
        ring.bind_err = bind_to_node(ring.range.get(), bytes, node);
    if (const int err = populate(ring.range.get(), bytes, page)) {
        if (hugetlb)
            throw hugepage_unavailable("populating the pages", err);
        throw_errno("ring_memory: populating the pages", err);
    }
    return ring;
}

} // namespace

ring_memory::ring_memory(const ring_options& options, logger_ptr log)
    : d_logger(log ? std::move(log) : make_logger("ring_memory"))
{
    validate(options);

    int node = options.numa_node;
    if (node >= 0 && !node_exists(node)) {
        note(fmt::format("NUMA node {} does not exist (online nodes: {}); the ring is "
                         "placed by the default policy",
                         node,
                         read_line("/sys/devices/system/node/online")));
        node = -1;
    }

    placed_ring ring;
    if (options.hugepages != hugepage_mode::off) {
        size_t bytes = 0;
        const std::string problem = size_problem(options, ring_hugepage_bytes, bytes);
        if (!problem.empty()) {
            if (options.hugepages == hugepage_mode::required)
                throw std::invalid_argument("ring_memory: " + problem);
            note(problem + "; using normal pages");
        } else {
            try {
                ring = place(bytes, ring_hugepage_bytes, true, node);
            } catch (const hugepage_unavailable& e) {
                const std::string why = hugepage_explanation(e, bytes, node);
                if (options.hugepages == hugepage_mode::required)
                    throw std::system_error(
                        e.err, std::generic_category(), "ring_memory: " + why);
                note(why + "; using normal pages meanwhile");
            }
        }
    }
    if (!ring.range) {
        size_t bytes = 0;
        const std::string problem = size_problem(options, system_page_size(), bytes);
        if (!problem.empty())
            throw std::invalid_argument("ring_memory: " + problem);
        ring = place(bytes, system_page_size(), false, node);
    }
    const size_t bytes = ring.range.size() / 2;

    if (node >= 0 && ring.bind_err != 0) {
        note(fmt::format("mbind to NUMA node {} failed ({}); the ring is placed by the "
                         "default policy",
                         node,
                         std::strerror(ring.bind_err)));
    } else if (node >= 0) {
        size_t on_node = 0, known = 0;
        count_pages_on_node(ring.range.get(), bytes, ring.page, node, on_node, known);
        if (known == 0) {
            d_logger->debug("NUMA node {} requested; placement cannot be verified here "
                            "(move_pages)",
                            node);
            d_numa_node = node;
        } else if (on_node == known) {
            d_numa_node = node;
        } else {
            note(fmt::format("only {} of {} pages of the ring are on NUMA node {}: the "
                             "node is short of free {}",
                             on_node,
                             known,
                             node,
                             ring.hugepages
                                 ? "2 MiB hugepages (raise /sys/devices/system/"
                                   "node/nodeN/hugepages/hugepages-2048kB/"
                                   "nr_hugepages)"
                                 : "memory"));
        }
    }

    if (options.lock) {
        if (::mlock(ring.range.get(), ring.range.size()) == 0)
            d_locked = true;
        else
            note(memlock_explanation(errno, ring.range.size(), ring.hugepages));
    }

    d_bytes = bytes;
    d_page_size = ring.page;
    d_hugepages = ring.hugepages;
    d_base = ring.range.release();
    d_logger->debug("ring of {} mapped twice at {}: {} pages, {}, NUMA node {}",
                    format_bytes(d_bytes),
                    static_cast<void*>(d_base),
                    format_bytes(d_page_size),
                    d_locked ? "locked" : "not locked",
                    d_numa_node);
}

ring_memory::~ring_memory()
{
    if (d_base)
        ::munmap(d_base, 2 * d_bytes);
}

void ring_memory::note(const std::string& text)
{
    d_logger->warn("{}", text);
    if (!d_notes.empty())
        d_notes += '\n';
    d_notes += text;
}

} // namespace rdma
} // namespace gr
