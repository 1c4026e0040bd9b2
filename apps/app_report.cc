/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "app_report.h"
#include <spdlog/fmt/fmt.h>
#include <cctype>

namespace gr {
namespace rdma {
namespace app {

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\')
            out += std::string("\\") + c;
        else if (static_cast<unsigned char>(c) < 0x20)
            out += fmt::format("\\u{:04x}", c);
        else
            out += c;
    }
    return out + "\"";
}

std::string json_key(const std::string& label)
{
    std::string key;
    bool gap = false;
    for (const char c : label) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            if (gap && !key.empty())
                key += '_';
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            gap = false;
        } else {
            gap = true;
        }
    }
    return key;
}

namespace {
// Units a machine needs in the key, since the number alone does not say them.
std::string key_with_unit(const std::string& label, const std::string& unit)
{
    const bool keyed = unit == "bytes" || unit == "ns" || unit == "us" || unit == "ms";
    return keyed ? json_key(label + " " + unit) : "";
}
} // namespace

report_node&
report_node::add(const std::string& label, uint64_t value, const std::string& unit)
{
    return add_raw(label,
                   unit.empty() ? std::to_string(value)
                                : std::to_string(value) + " " + unit,
                   std::to_string(value),
                   key_with_unit(label, unit));
}

report_node& report_node::add(const std::string& label, const std::string& value)
{
    return add_raw(label, value, json_string(value));
}

report_node& report_node::add_bool(const std::string& label, bool value)
{
    return add_raw(label, value ? "yes" : "no", value ? "true" : "false");
}

report_node& report_node::add_hex(const std::string& label, uint64_t value)
{
    const std::string hex = fmt::format("{:#x}", value);
    return add_raw(label, hex, json_string(hex));
}

report_node& report_node::add_list(const std::string& label,
                                   const std::vector<std::string>& items)
{
    std::string text, json;
    for (const auto& item : items) {
        text += (text.empty() ? "" : " ") + item;
        json += (json.empty() ? "" : ",") + json_string(item);
    }
    return add_raw(label, text.empty() ? "none" : text, "[" + json + "]");
}

report_node& report_node::add_text(const std::string& label, const std::string& value)
{
    report_field f;
    f.label = label;
    f.text = value;
    f.text_only = true;
    return push(std::move(f));
}

report_node& report_node::add_json(const std::string& label, const std::string& json)
{
    report_field f;
    f.label = label;
    f.json = json;
    f.json_only = true;
    return push(std::move(f));
}

report_node& report_node::add_raw(const std::string& label,
                                  const std::string& text,
                                  const std::string& json,
                                  const std::string& key)
{
    report_field f;
    f.label = label;
    f.text = text;
    f.json = json;
    f.key = key;
    return push(std::move(f));
}

report_node& report_node::push(report_field field)
{
    d_fields.push_back(std::move(field));
    return *this;
}

report_node& report_node::child(const std::string& label, bool is_array)
{
    d_children.emplace_back(label, is_array);
    return d_children.back();
}

std::string report_node::to_text(int indent) const
{
    std::string out;
    int inner = indent + 2;
    // An array is only a container: its elements carry their own headings.
    if (d_array) {
        inner = indent;
    } else {
        out += std::string(indent, ' ') + d_label;
        if (!d_summary.empty())
            out += ": " + d_summary;
        out += "\n";
    }
    for (const auto& f : d_fields)
        if (!f.json_only)
            out += std::string(inner, ' ') + f.label + ": " + f.text + "\n";
    for (const auto& c : d_children)
        out += c.to_text(inner);
    return out;
}

std::string report_node::to_json() const
{
    std::string out;
    if (d_array) {
        for (const auto& c : d_children)
            out += (out.empty() ? "" : ",") + c.to_json();
        return "[" + out + "]";
    }
    for (const auto& f : d_fields) {
        if (f.text_only)
            continue;
        out += (out.empty() ? "" : ",") +
               json_string(f.key.empty() ? json_key(f.label) : f.key) + ":" + f.json;
    }
    for (const auto& c : d_children)
        out += (out.empty() ? "" : ",") + json_string(json_key(c.d_label)) + ":" +
               c.to_json();
    return "{" + out + "}";
}

} // namespace app
} // namespace rdma
} // namespace gr
