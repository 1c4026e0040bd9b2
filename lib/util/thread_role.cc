/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "thread_role.h"
#include <pthread.h>
#include <time.h>
#include <map>
#include <mutex>

namespace gr {
namespace rdma {

namespace {

double clock_seconds(clockid_t clock)
{
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0)
        return 0;
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

struct role_registry {
    std::mutex mutex;
    std::map<pthread_t, thread_role> live;
    double exited[3] = { 0, 0, 0 };
};

role_registry& registry()
{
    static role_registry r; // intentionally process-wide: CPU time is process-wide
    return r;
}

} // namespace

thread_role_scope::thread_role_scope(thread_role role, const char* name) : d_role(role)
{
    pthread_setname_np(pthread_self(), name); // truncation is harmless; ERANGE ignored
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.live[pthread_self()] = role;
}

thread_role_scope::~thread_role_scope()
{
    const double own = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.live.erase(pthread_self());
    r.exited[static_cast<int>(d_role)] += own;
}

cpu_seconds process_cpu_by_role()
{
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    double by_role[3] = { r.exited[0], r.exited[1], r.exited[2] };
    for (const auto& [thread, role] : r.live) {
        clockid_t clock;
        if (pthread_getcpuclockid(thread, &clock) == 0)
            by_role[static_cast<int>(role)] += clock_seconds(clock);
    }
    cpu_seconds out;
    out.nic = by_role[static_cast<int>(thread_role::nic)];
    out.device = by_role[static_cast<int>(thread_role::device)];
    // Host threads need no registration: they are the rest of the process.
    out.host = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - out.nic - out.device;
    return out;
}

} // namespace rdma
} // namespace gr
