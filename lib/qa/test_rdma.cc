/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// main() of every qa_* executable that never skips (qa_runner.h).

#include "qa_runner.h"

int main(int argc, char** argv) { return gr::rdma::run_registered_tests(argc, argv); }
