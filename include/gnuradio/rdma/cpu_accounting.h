/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_CPU_ACCOUNTING_H
#define INCLUDED_RDMA_CPU_ACCOUNTING_H

#include <gnuradio/rdma/transport_api.h>

namespace gr {
namespace rdma {

//! Who a thread works for, so that CPU time can be charged to the right party.
enum class thread_role {
    host,   //!< the application: GNU Radio scheduler threads, Python, anything unnamed
    nic,    //!< the userspace NIC (work a RoCE NIC does in hardware)
    device, //!< the embedded SDR emulator (work the SDR's FPGA does)
};

//! CPU seconds spent by this process so far, split by role.
struct cpu_seconds {
    double host = 0;
    double nic = 0;
    double device = 0;
    double total() const { return host + nic + device; }
};

/*!
 * CPU time of the whole process since it started, including threads that have
 * already exited. NIC and device threads are the ones the transport starts (they
 * register their role); the remainder is charged to the host. Take two readings
 * and subtract them to measure an interval.
 */
RDMA_TRANSPORT_API cpu_seconds process_cpu_by_role();

inline cpu_seconds operator-(const cpu_seconds& a, const cpu_seconds& b)
{
    return { a.host - b.host, a.nic - b.nic, a.device - b.device };
}

} // namespace rdma
} // namespace gr

#endif /* INCLUDED_RDMA_CPU_ACCOUNTING_H */
