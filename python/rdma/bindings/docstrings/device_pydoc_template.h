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

static const char* __doc_gr_rdma_device = R"doc(The radio of an RDMA SDR in a flowgraph (docs/radio.md, "Host side"): a block without streams holding the device the args name, shared with every rx_source naming it. Setters as gr-uhd's usrp_block; "command" input (gr-uhd's dicts), "reports" output (ack, error and device_time dicts).)doc";
static const char* __doc_gr_rdma_device_make =
    R"doc(device(args="type=emu", num_channels=1, clock_source="", time_source="", time_at_start="", report_interval=0): speaks for RF channels 0..num_channels-1; sources "" leave them; time_at_start "", "now" (host clock) or "pps" (host clock at the next PPS edge); report_interval: seconds between device_time reports, 0 none.)doc";
static const char* __doc_gr_rdma_device_set_time_now = R"doc(set_time_now(time_ns): set the device time now (streams stopped).)doc";
static const char* __doc_gr_rdma_device_set_time_next_pps = R"doc(set_time_next_pps(time_ns): set the device time at the next PPS edge.)doc";
static const char* __doc_gr_rdma_device_get_time_last_pps = R"doc(Device time at the last PPS edge.)doc";
static const char* __doc_gr_rdma_device_set_clock_source = R"doc(set_clock_source(name): internal, external, gpsdo.)doc";
static const char* __doc_gr_rdma_device_get_clock_source = R"doc(The frequency reference in use.)doc";
static const char* __doc_gr_rdma_device_get_clock_sources = R"doc(The frequency references the device has.)doc";
static const char* __doc_gr_rdma_device_set_time_source = R"doc(set_time_source(name): internal, external, gpsdo.)doc";
static const char* __doc_gr_rdma_device_get_time_source = R"doc(The PPS source in use.)doc";
static const char* __doc_gr_rdma_device_get_time_sources =
    R"doc(The PPS sources the device has.)doc";
static const char* __doc_gr_rdma_device_set_ctrl_policy = R"doc(set_ctrl_policy(name): the device's controller policy, none, water_filling or shortest_rtt (CTRL_POLICY; docs/links.md).)doc";
static const char* __doc_gr_rdma_device_get_ctrl_policy = R"doc(The device's controller policy by name.)doc";
static const char* __doc_gr_rdma_device_get_ctrl_policies = R"doc(The controller policies by name.)doc";
static const char* __doc_gr_rdma_device_set_ctrl_period = R"doc(set_ctrl_period(seconds): the period of the device's control loop, 1e-06 ... 1 s (CTRL_PERIOD_US).)doc";
static const char* __doc_gr_rdma_device_get_ctrl_period = R"doc(The period of the device's control loop, seconds.)doc";
