# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The host's copy of a device's schedule (lib/stream/epoch_follower.cc) and the
# finality it feeds (destination_progress.cc): what a device's epoch block says, read
# over AXIoE, interleaved with immediates. Seeds: corpus/epochs/, records as
# fuzz_epochs.cc describes, written once with Python's struct module: failover.bin (a
# link cut: epoch 0 1:1, epoch 1 at message 8 with destination 1 out, immediates of
# both), missed.bin (epochs begun faster than read), forged.bin (an epoch below what
# was known, weights above 1024).
rdma_add_fuzzer(epochs SOURCES
    fuzz_epochs.cc
    ${PROJECT_SOURCE_DIR}/lib/stream/epoch_follower.cc
    ${PROJECT_SOURCE_DIR}/lib/stream/destination_progress.cc
    ${PROJECT_SOURCE_DIR}/lib/regs/link_schedule.cc
)
