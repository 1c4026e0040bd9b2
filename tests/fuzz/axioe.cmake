# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# AXIoE request and response decoders (lib/axioe/axioe_packet.cc, which depends on
# nothing else of the core). Seeds: corpus/axioe/, one valid datagram per file.
rdma_add_fuzzer(axioe SOURCES
    fuzz_axioe.cc
    ${PROJECT_SOURCE_DIR}/lib/axioe/axioe_packet.cc
)
