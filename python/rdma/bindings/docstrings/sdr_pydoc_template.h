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

static const char* __doc_gr_rdma_sdr_range = R"doc(A range of a setting: start, stop, step (0: any value).)doc";
static const char* __doc_gr_rdma_tune_result = R"doc(What a setting became: requested, actual (clipped to the range, rounded to the step), time_ns (device time from which samples have it), clipped.)doc";
static const char* __doc_gr_rdma_sdr = R"doc(Control of one SDR (docs/radio.md): RF front end per channel, device time and its sources, timed commands. Opens the device the args name, shared with every stream and block of the process naming it. Settings take at_ns: 0 now, a future device time through the command queue, to the sample.)doc";
static const char* __doc_gr_rdma_sdr_sdr =
    R"doc(sdr(args="type=emu"): the device the args name, opened once; the args are also its streams' (checked here: a key no RX or TX stream reads is refused).)doc";
static const char* __doc_gr_rdma_sdr_get_rx_stream =
    R"doc(get_rx_stream(format, sample_rate, num_samples=0, stream=sdr.args_stream): RX stream of this device (UHD's get_rx_stream) with the sdr's args; stream= of the args unless stream is given.)doc";
static const char* __doc_gr_rdma_sdr_get_tx_stream =
    R"doc(get_tx_stream(format, sample_rate, num_samples=0, stream=sdr.args_stream): TX stream of this device, as get_rx_stream.)doc";
static const char* __doc_gr_rdma_sdr_get_args_stream =
    R"doc(The stream get_rx_stream and get_tx_stream give by default: stream= of the args (0 when absent).)doc";
static const char* __doc_gr_rdma_sdr_num_channels = R"doc(RF channels (0 without an RF front end); channel c is RX stream c's.)doc";
static const char* __doc_gr_rdma_sdr_set_center_freq = R"doc(set_center_freq(freq, chan=0, at_ns=0) -> tune_result)doc";
static const char* __doc_gr_rdma_sdr_get_center_freq = R"doc(The center frequency in effect, Hz.)doc";
static const char* __doc_gr_rdma_sdr_get_freq_range = R"doc(The center frequency's range, Hz.)doc";
static const char* __doc_gr_rdma_sdr_set_gain = R"doc(set_gain(gain, chan=0, at_ns=0) -> tune_result (dB))doc";
static const char* __doc_gr_rdma_sdr_get_gain = R"doc(The gain in effect, dB.)doc";
static const char* __doc_gr_rdma_sdr_get_gain_range = R"doc(The gain's range, dB.)doc";
static const char* __doc_gr_rdma_sdr_set_bandwidth = R"doc(set_bandwidth(bandwidth, chan=0, at_ns=0) -> tune_result (Hz))doc";
static const char* __doc_gr_rdma_sdr_get_bandwidth = R"doc(The analog bandwidth, Hz.)doc";
static const char* __doc_gr_rdma_sdr_get_bandwidth_range = R"doc(The bandwidth's range, Hz.)doc";
static const char* __doc_gr_rdma_sdr_set_antenna = R"doc(set_antenna(name, chan=0, at_ns=0): ANT0, ANT1, ...)doc";
static const char* __doc_gr_rdma_sdr_get_antenna = R"doc(The antenna selected.)doc";
static const char* __doc_gr_rdma_sdr_get_antennas = R"doc(The channel's antennas.)doc";
static const char* __doc_gr_rdma_sdr_get_time_now = R"doc(The device's time now, ns since the epoch.)doc";
static const char* __doc_gr_rdma_sdr_set_time_now = R"doc(set_time_now(time_ns): set the device time now (streams stopped).)doc";
static const char* __doc_gr_rdma_sdr_set_time_next_pps = R"doc(set_time_next_pps(time_ns): set the device time at the next PPS edge.)doc";
static const char* __doc_gr_rdma_sdr_get_time_last_pps = R"doc(Device time at the last PPS edge.)doc";
static const char* __doc_gr_rdma_sdr_get_clock_sources = R"doc(The frequency references the device has: internal, external, gpsdo.)doc";
static const char* __doc_gr_rdma_sdr_set_clock_source = R"doc(set_clock_source(name))doc";
static const char* __doc_gr_rdma_sdr_get_clock_source = R"doc(The frequency reference in use.)doc";
static const char* __doc_gr_rdma_sdr_get_time_sources = R"doc(The PPS sources the device has: internal, external, gpsdo.)doc";
static const char* __doc_gr_rdma_sdr_set_time_source = R"doc(set_time_source(name))doc";
static const char* __doc_gr_rdma_sdr_get_time_source = R"doc(The PPS source in use.)doc";
static const char* __doc_gr_rdma_sdr_ref_locked = R"doc(Whether the oscillator follows the clock source.)doc";
static const char* __doc_gr_rdma_sdr_stop_rx_at = R"doc(stop_rx_at(stream, at_ns): end the RX stream's run before its first sample at or after at_ns.)doc";
static const char* __doc_gr_rdma_sdr_clear_commands = R"doc(Drop the commands queued on the device.)doc";
static const char* __doc_gr_rdma_sdr_command_counters = R"doc(The command queue's counters as a dict.)doc";
static const char* __doc_gr_rdma_sdr_get_ctrl_policies = R"doc(The controller policies by name: none, water_filling, shortest_rtt.)doc";
static const char* __doc_gr_rdma_sdr_set_ctrl_policy = R"doc(set_ctrl_policy(name): the device's CTRL_POLICY (docs/links.md); needs RATE_CONTROL, and a stream owned here while another host owns one.)doc";
static const char* __doc_gr_rdma_sdr_get_ctrl_policy = R"doc(The device's controller policy by name.)doc";
static const char* __doc_gr_rdma_sdr_set_ctrl_period = R"doc(set_ctrl_period(seconds): the period of the device's control loop, 1e-06 ... 1 s in whole microseconds (CTRL_PERIOD_US).)doc";
static const char* __doc_gr_rdma_sdr_get_ctrl_period = R"doc(The period of the device's control loop, seconds.)doc";
