# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# RoCEv2 codec (lib/roce): parse() faces every datagram the soft NIC receives, and
# for_each_segment() (lib/util/udp_socket.h) every coalesced receive.
rdma_add_fuzzer(roce
    SOURCES fuzz_roce.cc ${PROJECT_SOURCE_DIR}/lib/roce/roce_packet.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/crc32.cc
    ${PROJECT_SOURCE_DIR}/lib/util/socket_address.cc
    ${PROJECT_SOURCE_DIR}/lib/util/parse_number.cc
    LINK PkgConfig::ISAL)
