# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# Metadata codec and sequence counter (lib/meta/metadata_packet.cc, which depends on
# nothing else of the core): the host parses every datagram its metadata socket gets.
# Seeds: corpus/metadata/, one valid datagram per file, and one run of several.
rdma_add_fuzzer(metadata SOURCES
    fuzz_metadata.cc
    ${PROJECT_SOURCE_DIR}/lib/meta/metadata_packet.cc
)
