/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, rdma, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */

static const char* __doc_gr_rdma_radio_block =
    R"doc(The radio controls of the blocks of a device (as gr-uhd's usrp_block): rx_source and device derive from it. The block's channel c is the device's RF channel first + c; setters act now, or at the command time, to the sample (docs/radio.md).)doc";
static const char* __doc_gr_rdma_radio_block_num_channels =
    R"doc(The block's channels: 0..num_channels-1 (rx_source: its outputs; device: the RF channels it speaks for).)doc";
static const char* __doc_gr_rdma_radio_block_set_center_freq =
    R"doc(set_center_freq(freq, chan=0) -> tune_result: now, or at the command time; clipped to the range with a warning.)doc";
static const char* __doc_gr_rdma_radio_block_get_center_freq =
    R"doc(The center frequency in effect, Hz.)doc";
static const char* __doc_gr_rdma_radio_block_get_freq_range =
    R"doc(The center frequency's range, Hz.)doc";
static const char* __doc_gr_rdma_radio_block_set_gain =
    R"doc(set_gain(gain, chan=0) -> tune_result (dB): now, or at the command time; clipped to the range.)doc";
static const char* __doc_gr_rdma_radio_block_get_gain =
    R"doc(The gain in effect, dB.)doc";
static const char* __doc_gr_rdma_radio_block_get_gain_range =
    R"doc(The gain's range, dB.)doc";
static const char* __doc_gr_rdma_radio_block_set_bandwidth =
    R"doc(set_bandwidth(bandwidth, chan=0) -> tune_result (Hz).)doc";
static const char* __doc_gr_rdma_radio_block_get_bandwidth =
    R"doc(The analog bandwidth, Hz.)doc";
static const char* __doc_gr_rdma_radio_block_get_bandwidth_range =
    R"doc(The bandwidth's range, Hz.)doc";
static const char* __doc_gr_rdma_radio_block_set_antenna =
    R"doc(set_antenna(name, chan=0): ANT0, ANT1, ...)doc";
static const char* __doc_gr_rdma_radio_block_get_antenna =
    R"doc(The antenna selected.)doc";
static const char* __doc_gr_rdma_radio_block_get_antennas =
    R"doc(The channel's antennas.)doc";
static const char* __doc_gr_rdma_radio_block_get_time_now =
    R"doc(The device's time now, ns since the epoch.)doc";
static const char* __doc_gr_rdma_radio_block_set_command_time =
    R"doc(set_command_time(time_ns): later settings take effect at that device time (ns since the epoch), to the sample.)doc";
static const char* __doc_gr_rdma_radio_block_clear_command_time =
    R"doc(Later settings take effect now.)doc";
