# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The emulator's TX response intake (lib/emu/ack_receiver.cc's TX routing and
# lib/emu/tx_requester.cc's take, take_response, take_ack, go-back-N and timer): what
# comes back to the link while READs and notifications are outstanding. Seeds:
# corpus/tx_response/, written with the project's codec by fuzz_seeds (the test
# fuzz_tx_response_seeds checks that they are what it builds now). 10000 inputs: each
# makes a requester, whose receive slots are 133 KB (AddressSanitizer maps them anew).
rdma_add_fuzzer(tx_response ITERATIONS 10000 SOURCES
    fuzz_tx_response.cc
    ${PROJECT_SOURCE_DIR}/lib/emu/ack_receiver.cc
    ${PROJECT_SOURCE_DIR}/lib/emu/tx_requester.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/roce_packet.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/crc32.cc
    ${PROJECT_SOURCE_DIR}/lib/util/parse_number.cc
    ${PROJECT_SOURCE_DIR}/lib/util/socket_address.cc
    LINK PkgConfig::ISAL)

# The seeds made with the codec: this corpus, and read_request's SEND seeds.
#   build/tests/fuzz/fuzz_seeds write tx_response tests/fuzz/corpus/tx_response
add_executable(fuzz_seeds fuzz_seeds.cc ${PROJECT_SOURCE_DIR}/lib/roce/roce_packet.cc
    ${PROJECT_SOURCE_DIR}/lib/roce/crc32.cc)
target_include_directories(fuzz_seeds PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/lib)
target_link_libraries(fuzz_seeds PRIVATE PkgConfig::ISAL)
foreach(set tx_response read_request)
    add_test(NAME fuzz_${set}_seeds
        COMMAND fuzz_seeds check ${set} ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${set})
endforeach()
