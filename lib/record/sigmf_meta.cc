/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "json_writer.h"
#include "sigmf_meta.h"
#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace gr {
namespace rdma {

namespace {

constexpr const char* sigmf_version = "1.2.0";
constexpr const char* extension_name = "rdma";
constexpr const char* extension_version = "1.0.0";

void write_global(json_writer& j,
                  const sigmf_global& g,
                  const sigmf_file& f,
                  const sigmf_timeline& timeline)
{
    j.key("global");
    j.begin_object();
    j.key("core:datatype");
    j.value(g.datatype);
    j.key("core:sample_rate");
    j.value(timeline.at(f.first_item).rate);
    j.key("core:version");
    j.value(sigmf_version);
    j.key("core:num_channels");
    j.value(1);
    j.key("core:recorder");
    j.value(g.recorder);
    j.key("core:extensions");
    j.begin_array();
    j.begin_object();
    j.key("name");
    j.value(extension_name);
    j.key("version");
    j.value(extension_version);
    j.key("optional");
    j.value(true);
    j.end_object();
    j.end_array();
    if (!g.hw.empty()) {
        j.key("core:hw");
        j.value(g.hw);
    }
    if (!g.description.empty()) {
        j.key("core:description");
        j.value(g.description);
    }
    if (f.part >= 0) {
        j.key("rdma:part");
        j.value(f.part);
    }
    if (f.annotations_dropped) {
        j.key("rdma:annotations_dropped");
        j.value(f.annotations_dropped);
    }
    if (f.captures_dropped) {
        j.key("rdma:captures_dropped");
        j.value(f.captures_dropped);
    }
    if (!f.error.empty()) {
        j.key("rdma:error");
        j.value(f.error);
    }
    j.end_object();
}

// The capture of segment s from \p item on, in a file whose first item is \p first.
void write_capture(json_writer& j,
                   const sigmf_timeline::segment& s,
                   uint64_t item,
                   uint64_t first)
{
    j.begin_object();
    j.key("core:sample_start");
    j.value(item - first);
    j.key("core:global_index");
    j.value(item);
    if (s.has_time) {
        j.key("core:datetime");
        j.value(sigmf_datetime(s.time_at(item)));
    }
    if (s.has_freq) {
        j.key("core:frequency");
        j.value(s.freq);
    }
    j.key("rdma:sample_rate");
    j.value(s.rate);
    j.end_object();
}

void write_captures(json_writer& j, const sigmf_file& f, const sigmf_timeline& timeline)
{
    const uint64_t first = f.first_item;
    j.key("captures");
    j.begin_array();
    // The capture in effect at the first item, at sample 0 (unless one starts there).
    write_capture(j, timeline.at(first), first, first);
    for (const auto& s : timeline.segments()) {
        if (s.item <= first)
            continue;
        if (f.final && s.item >= first + f.items)
            break;
        write_capture(j, s, s.item, first);
    }
    j.end_array();
}

void write_annotations(json_writer& j,
                       const sigmf_file& f,
                       const sigmf_annotations& annotations)
{
    const uint64_t first = f.first_item;
    j.key("annotations");
    j.begin_array();
    for (const auto& a : annotations.sorted()) {
        const uint64_t lo = std::max(a.item, first);
        uint64_t hi = a.item + a.span;
        if (f.final)
            hi = std::min(hi, first + f.items);
        if (hi <= lo)
            continue;
        j.begin_object();
        j.key("core:sample_start");
        j.value(lo - first);
        j.key("core:sample_count");
        j.value(hi - lo);
        j.key("core:label");
        j.value(a.label());
        j.key("core:comment");
        j.value(a.comment());
        j.key("rdma:type");
        j.value(a.label());
        j.key("rdma:cause");
        j.value(a.cause);
        j.key("rdma:lost");
        j.value(a.lost);
        if (a.has_device_sample) {
            j.key("rdma:device_sample");
            j.value(a.device_sample);
        }
        if (a.links) { // several links: which carried what was lost
            j.key("rdma:links");
            j.begin_array();
            for (int n = 0; n < 32; n++)
                if (a.links & (1u << n))
                    j.value(n == 31 ? -1 : n);
            j.end_array();
        }
        if (lo != a.item || hi != a.item + a.span) {
            j.key("rdma:split");
            j.value(true); // the rest is in the neighbouring file
        }
        j.end_object();
    }
    j.end_array();
}

} // namespace

std::string sigmf_meta_text(const sigmf_global& global,
                            const sigmf_file& file,
                            const sigmf_timeline& timeline,
                            const sigmf_annotations& annotations)
{
    json_writer j;
    j.begin_object();
    write_global(j, global, file, timeline);
    write_captures(j, file, timeline);
    write_annotations(j, file, annotations);
    j.end_object();
    return j.text() + "\n";
}

std::string sigmf_datetime(uint64_t time_ns)
{
    const time_t seconds = static_cast<time_t>(time_ns / 1000000000u);
    struct tm utc;
    gmtime_r(&seconds, &utc);
    char stamp[64];
    const size_t n = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(stamp + n,
                  sizeof stamp - n,
                  ".%09uZ",
                  static_cast<unsigned>(time_ns % 1000000000u));
    return stamp;
}

std::string write_file_whole(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return std::strerror(errno);
    size_t done = 0;
    int err = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : ENOSPC;
            break;
        }
        done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0 && err == 0)
        err = errno; // a delayed write error (NFS, a full disk at writeback)
    if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0)
        err = errno;
    if (err != 0) {
        ::unlink(tmp.c_str());
        return std::strerror(err);
    }
    return "";
}

} // namespace rdma
} // namespace gr
