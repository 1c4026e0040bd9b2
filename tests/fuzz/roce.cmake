# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# RoCEv2 codec (lib/roce): parse() faces every datagram the soft NIC receives.
rdma_add_fuzzer(roce
    SOURCES fuzz_roce.cc ${PROJECT_SOURCE_DIR}/lib/roce/roce_packet.cc
    LINK ZLIB::ZLIB)
