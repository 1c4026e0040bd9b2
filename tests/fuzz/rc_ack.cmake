# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The device's RC receive path (lib/emu/ack_receiver.cc, retransmit_window.cc): every
# datagram that comes back to an emulated SDR's link is parsed, sorted and applied to
# the retransmit window. Seeds: corpus/rc_ack/ (see fuzz_rc_ack.cc for the layout).
rdma_add_fuzzer(rc_ack SOURCES
    fuzz_rc_ack.cc
    ${PROJECT_SOURCE_DIR}/lib/emu/ack_receiver.cc
    ${PROJECT_SOURCE_DIR}/lib/emu/retransmit_window.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/roce_packet.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/crc32.cc
    ${PROJECT_SOURCE_DIR}/lib/util/parse_number.cc
    ${PROJECT_SOURCE_DIR}/lib/util/socket_address.cc
    LINK PkgConfig::ISAL)
