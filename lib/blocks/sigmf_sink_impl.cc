/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pmt_keys.h"
#include "sigmf_sink_impl.h"
#include <gnuradio/io_signature.h>
#include <system_error>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace gr {
namespace rdma {

namespace {

struct format_info {
    const char* name;
    const char* datatype;
    size_t item;
};
constexpr format_info formats[] = { { "sc16", "ci16_le", 4 },
                                    { "fc32", "cf32_le", 8 },
                                    { "sc8", "ci8", 2 } };

const format_info& format_of(const std::string& name)
{
    for (const auto& f : formats)
        if (name == f.name)
            return f;
    throw std::invalid_argument("sigmf_sink: format='" + name +
                                "' is invalid: expected sc16, fc32 or sc8");
}

std::string without_extension(std::string path)
{
    for (const std::string suffix : { ".sigmf-data", ".sigmf-meta" })
        if (path.size() > suffix.size() &&
            path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
            path.erase(path.size() - suffix.size());
    return path;
}

std::string checked_path(const std::string& path)
{
    if (path.empty())
        throw std::invalid_argument("sigmf_sink: path is empty: expected a path without "
                                    "the .sigmf-data/.sigmf-meta extension");
    const std::string base = without_extension(path);
    std::error_code ec;
    const auto directory = std::filesystem::absolute(base, ec).parent_path();
    if (ec || !std::filesystem::is_directory(directory, ec))
        throw std::invalid_argument("sigmf_sink: directory " + directory.string() +
                                    " does not exist: create it or choose another path");
    return base;
}

double checked_rate(double rate)
{
    if (!(rate > 0) || !std::isfinite(rate))
        throw std::invalid_argument("sigmf_sink: sample_rate=" + std::to_string(rate) +
                                    " is invalid: expected > 0");
    return rate;
}

uint64_t checked_size(int64_t bytes, double seconds)
{
    if (bytes < 0 || !(seconds >= 0) || !std::isfinite(seconds))
        throw std::invalid_argument("sigmf_sink: rotate_size and rotate_seconds must be "
                                    ">= 0 (0: no rotation)");
    return static_cast<uint64_t>(bytes);
}

size_t checked_max(int64_t max)
{
    if (max < 1)
        throw std::invalid_argument("sigmf_sink: max_annotations=" + std::to_string(max) +
                                    " is invalid: expected >= 1");
    return static_cast<size_t>(max);
}

// A number of a report dict (uint64, or another integer or real PMT), or fallback.
uint64_t number_in(const pmt::pmt_t& dict, const char* key, uint64_t fallback)
{
    const pmt::pmt_t v = pmt::dict_ref(dict, pmt::mp(key), pmt::PMT_NIL);
    if (pmt::is_uint64(v))
        return pmt::to_uint64(v);
    if (pmt::is_integer(v))
        return static_cast<uint64_t>(std::max<long>(0, pmt::to_long(v)));
    if (pmt::is_real(v))
        return static_cast<uint64_t>(std::max(0.0, pmt::to_double(v)));
    return fallback;
}

std::string symbol_in(const pmt::pmt_t& dict, const char* key)
{
    const pmt::pmt_t v = pmt::dict_ref(dict, pmt::mp(key), pmt::PMT_NIL);
    return pmt::is_symbol(v) ? pmt::symbol_to_string(v) : "";
}

// rx_time (uint64 seconds, double fraction) in ns; false when it is not that shape.
bool time_ns_of(const pmt::pmt_t& v, uint64_t& ns)
{
    if (!pmt::is_tuple(v) || pmt::length(v) < 2)
        return false;
    const pmt::pmt_t s = pmt::tuple_ref(v, 0), f = pmt::tuple_ref(v, 1);
    if (!pmt::is_uint64(s) || !pmt::is_real(f))
        return false;
    ns = pmt::to_uint64(s) * 1000000000u +
         static_cast<uint64_t>(std::llround(pmt::to_double(f) * 1e9));
    return true;
}

} // namespace

sigmf_sink::sptr sigmf_sink::make(const std::string& path,
                                  const std::string& format,
                                  double sample_rate,
                                  const std::string& hw,
                                  const std::string& recorder,
                                  const std::string& description,
                                  int64_t rotate_size,
                                  double rotate_seconds,
                                  int64_t max_annotations)
{
    return gnuradio::make_block_sptr<sigmf_sink_impl>(path,
                                                      format,
                                                      sample_rate,
                                                      hw,
                                                      recorder,
                                                      description,
                                                      rotate_size,
                                                      rotate_seconds,
                                                      max_annotations);
}

sigmf_sink_impl::sigmf_sink_impl(const std::string& path,
                                 const std::string& format,
                                 double sample_rate,
                                 const std::string& hw,
                                 const std::string& recorder,
                                 const std::string& description,
                                 int64_t rotate_size,
                                 double rotate_seconds,
                                 int64_t max_annotations)
    : gr::sync_block("sigmf_sink",
                     gr::io_signature::make(1, 1, format_of(format).item),
                     gr::io_signature::make(0, 0, 0)),
      d_item(format_of(format).item),
      d_global{ format_of(format).datatype, recorder, hw, description },
      d_rotation(checked_path(path),
                 checked_size(rotate_size, rotate_seconds),
                 rotate_seconds,
                 d_item),
      d_timeline(checked_rate(sample_rate), checked_max(max_annotations)),
      d_annotations(checked_max(max_annotations))
{
    if (d_rotation.rotating())
        d_file.part = 0;
    const std::string base = d_rotation.base(0);
    if (const int err = d_data.open(base + ".sigmf-data"))
        throw std::system_error(err,
                                std::generic_category(),
                                "sigmf_sink: cannot create " + base + ".sigmf-data");
    // A valid meta from the start: what a crash or a full disk leaves is a recording.
    write_meta();
    message_port_register_in(keys::events());
    set_msg_handler(keys::events(), [this](const pmt::pmt_t& msg) { on_report(msg); });
    set_tag_propagation_policy(TPP_DONT);
}

int sigmf_sink_impl::work(int noutput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star&)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    on_tags(noutput_items);
    if (d_error.empty())
        write(static_cast<const uint8_t*>(input_items[0]),
              static_cast<uint64_t>(noutput_items));
    // After a failure the items are taken and dropped: the flowgraph goes on (its
    // owner decides, from error(), whether to stop it).
    return noutput_items;
}

void sigmf_sink_impl::on_tags(int n)
{
    get_tags_in_window(d_tags, 0, 0, static_cast<uint64_t>(n));
    std::stable_sort(d_tags.begin(), d_tags.end(), tag_t::offset_compare);
    for (const tag_t& t : d_tags) {
        uint64_t ns;
        if (pmt::eqv(t.key, keys::rx_time()) && time_ns_of(t.value, ns))
            d_timeline.on_time(t.offset, ns);
        else if (pmt::eqv(t.key, keys::rx_rate()) && pmt::is_real(t.value))
            d_timeline.on_rate(t.offset, pmt::to_double(t.value));
        else if (pmt::eqv(t.key, keys::rx_freq()) && pmt::is_real(t.value))
            d_timeline.on_freq(t.offset, pmt::to_double(t.value));
    }
}

bool sigmf_sink_impl::write(const uint8_t* in, uint64_t n)
{
    while (n > 0) {
        const uint64_t limit = d_rotation.limit(d_timeline.at(d_file.first_item).rate);
        // The next file only when there is an item for it: no empty file at the end.
        if (d_file.items >= limit && !rotate())
            return false;
        const uint64_t chunk = std::min(n, limit - std::min(limit, d_file.items));
        if (const int err = d_data.write(in, chunk * d_item)) {
            fail(d_data.describe_failure(err, d_item));
            return false;
        }
        d_file.items += chunk;
        in += chunk * d_item;
        n -= chunk;
    }
    return true;
}

bool sigmf_sink_impl::rotate()
{
    close_current();
    const unsigned next = d_index + 1;
    const std::string base = d_rotation.base(next);
    if (const int err = d_data.open(base + ".sigmf-data")) {
        // The error goes into the meta of the file just closed, the last one.
        fail("cannot create " + base + ".sigmf-data: " + std::strerror(err) +
             "; the recording ends there");
        return false;
    }
    d_closed.push_back(d_rotation.base(d_index));
    const uint64_t first = d_file.first_item + d_file.items;
    // What the next file still needs: the capture in effect at its first item and
    // later ones, the annotations that reach into it.
    d_timeline.forget_before(first);
    d_annotations.forget_before(first);
    d_index = next;
    d_file = sigmf_file{};
    d_file.first_item = first;
    d_file.part = static_cast<int>(next);
    write_meta();
    return true;
}

void sigmf_sink_impl::close_current()
{
    d_file.final = true;
    d_file.items = d_data.bytes() / d_item;
    write_meta();
}

void sigmf_sink_impl::fail(const std::string& why)
{
    d_error = why;
    d_logger->error("{}", why);
    // No more writes to a file that cannot grow; the meta for what it holds (a file
    // closed by a rotation keeps its count).
    if (!d_file.final) {
        d_data.truncate_to_items(d_item);
        d_file.items = d_data.bytes() / d_item;
        d_file.final = true;
    }
    d_data.close();
    d_file.error = why;
    write_meta();
}

void sigmf_sink_impl::write_meta()
{
    d_file.captures_dropped = d_timeline.dropped();
    const std::string meta = d_rotation.base(d_index) + ".sigmf-meta";
    const std::string err = write_file_whole(
        meta, sigmf_meta_text(d_global, d_file, d_timeline, d_annotations));
    if (err.empty())
        return;
    const std::string why = "writing " + meta + " failed: " + err;
    if (d_error.empty())
        d_error = why;
    d_logger->error("{}; the previous meta file stays", why);
}

void sigmf_sink_impl::on_report(const pmt::pmt_t& msg)
{
    if (!pmt::is_pair(msg) || !pmt::is_dict(pmt::cdr(msg)))
        return; // not rx_source's shape: nothing to annotate
    const pmt::pmt_t report = pmt::cdr(msg);
    const std::string type = symbol_in(report, "type");
    if (type != "gap" && type != "overrun")
        return; // device events, notices, command acknowledgements
    sigmf_annotation a = sigmf_annotation::of_report(
        type == "gap" ? sigmf_annotation::kind::gap : sigmf_annotation::kind::overrun,
        symbol_in(report, "cause"),
        number_in(report, "first_sample", 0),
        number_in(report, "count", 0));
    if (pmt::dict_has_key(report, keys::device_sample())) {
        a.has_device_sample = true;
        a.device_sample = number_in(report, "device_sample", 0);
    }
    const pmt::pmt_t links = pmt::dict_ref(report, keys::links(), pmt::PMT_NIL);
    for (size_t i = 0; pmt::is_vector(links) && i < pmt::length(links); i++) {
        const pmt::pmt_t l = pmt::vector_ref(links, i);
        const long n = pmt::is_integer(l) ? pmt::to_long(l) : -1;
        a.links |= n >= 0 && n < 31 ? 1u << n : 1u << 31;
    }
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_annotations.add(a))
        d_file.annotations_dropped++;
}

void sigmf_sink_impl::finish()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_error.empty()) // after a failure the count is what fail() left
        d_file.items = d_data.bytes() / d_item;
    d_file.final = true;
    write_meta();
}

bool sigmf_sink_impl::stop()
{
    finish();
    return true;
}

std::string sigmf_sink_impl::error() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_error;
}

std::vector<std::string> sigmf_sink_impl::recordings() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    std::vector<std::string> out = d_closed;
    out.push_back(d_rotation.base(d_index));
    return out;
}

} // namespace rdma
} // namespace gr
