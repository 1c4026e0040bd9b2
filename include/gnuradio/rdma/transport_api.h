/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_TRANSPORT_API_H
#define INCLUDED_RDMA_TRANSPORT_API_H

// The transport core includes no GNU Radio header, so it defines its own export macro.
#define RDMA_TRANSPORT_API __attribute__((visibility("default")))

#endif /* INCLUDED_RDMA_TRANSPORT_API_H */
