/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_QA_RUNNER_H
#define INCLUDED_RDMA_QA_RUNNER_H

namespace gr {
namespace rdma {

//! Runs the CppUnit suites registered with CPPUNIT_TEST_SUITE_REGISTRATION in the
//! objects linked in, or only the test paths given as arguments (e.g.
//! "qa_roce_golden::test_notes_golden_vector"). Returns the process exit code: 0 all
//! passed, 1 a failure, 2 an unknown test path. Runners that may skip (exit 77) decide
//! that first, then call this.
int run_registered_tests(int argc, char** argv);

} // namespace rdma
} // namespace gr

#endif
