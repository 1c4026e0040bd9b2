/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RING_QA_RING_HELPERS_H
#define INCLUDED_RDMA_RING_QA_RING_HELPERS_H

// Test helpers shared by the qa_ring suites (mapping, sizing, placement): ring options,
// a quiet logger, /proc readers, and the mirror property check.

#include "ring_memory.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstddef>
#include <string>

namespace qa_ring {

using namespace gr::rdma;

constexpr size_t kib = 1024;
constexpr size_t mib = kib * kib;

bool contains(const std::string& text, const std::string& part);

#define ASSERT_CONTAINS(text, part)                                                  \
    CPPUNIT_ASSERT_MESSAGE(std::string("expected \"") + (part) + "\" in: " + (text), \
                           qa_ring::contains((text), (part)))

logger_ptr quiet_logger();

ring_options options(size_t min_bytes,
                     hugepage_mode hugepages = hugepage_mode::off,
                     bool lock = false,
                     int numa_node = -1,
                     size_t granule = 1);

std::string read_text(const std::string& path);

//! Bytes of address space mapped, without [heap] and [stack], which grow on their own.
size_t mapped_bytes();

/*!
 * The mirror property: every byte of the first copy is the byte at the same offset of
 * the second copy, in both directions, and a slice that starts near the end of the first
 * copy is contiguous and continues at the start of the ring.
 */
void check_mirror(const ring_memory& ring);

} // namespace qa_ring

#endif
