# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The soft NIC's responder in front of a READ-only region, a TX ring (lib/nic/
# soft_responder.cc): no datagram may write into it, and no READ RESPONSE may carry a
# byte from outside it. Seeds: corpus/read_request/ (see fuzz_read_request.cc).
rdma_add_fuzzer(read_request SOURCES
    fuzz_read_request.cc
    ${PROJECT_SOURCE_DIR}/lib/nic/ipv4_frame.cc
    ${PROJECT_SOURCE_DIR}/lib/nic/soft_completion_queue.cc
    ${PROJECT_SOURCE_DIR}/lib/nic/soft_counters.cc
    ${PROJECT_SOURCE_DIR}/lib/nic/soft_queue_pair.cc
    ${PROJECT_SOURCE_DIR}/lib/nic/soft_responder.cc
    ${PROJECT_SOURCE_DIR}/lib/nic/soft_tables.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/roce_packet.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/crc32.cc
    ${PROJECT_SOURCE_DIR}/lib/util/errors.cc
    ${PROJECT_SOURCE_DIR}/lib/util/event_notifier.cc
    ${PROJECT_SOURCE_DIR}/lib/util/parse_number.cc
    ${PROJECT_SOURCE_DIR}/lib/util/poll_wait.cc
    ${PROJECT_SOURCE_DIR}/lib/util/socket_address.cc
    LINK PkgConfig::ISAL)
