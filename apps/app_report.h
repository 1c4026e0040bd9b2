/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_APPS_APP_REPORT_H
#define INCLUDED_RDMA_APPS_APP_REPORT_H

#include <cstdint>
#include <string>
#include <vector>

/*
 * What a command-line tool reports about a device, as a tree that prints both for
 * people (indented "label: value" lines) and for machines (JSON). The two renderings
 * come from the same fields, so --json can never say less than the text, or something
 * else.
 */

namespace gr {
namespace rdma {
namespace app {

//! \p text as a JSON string literal, quotes included.
std::string json_string(const std::string& text);

//! One "label: value" line; in JSON the label in snake_case and \p json, a JSON token.
struct report_field {
    std::string label;
    std::string text;
    std::string json;
    bool text_only = false; //!< a reading aid with no meaning for a machine
    bool json_only = false; //!< said in the text by the section's summary
    std::string key;        //!< the JSON key, if not json_key(label)
};

class report_node
{
public:
    explicit report_node(std::string label, bool is_array = false)
        : d_label(std::move(label)), d_array(is_array)
    {
    }

    //! A number, with an optional unit in the text. JSON: the bare number, its key
    //! ending in the unit if it is one of bytes, ns, us, ms ("lease_ms").
    report_node&
    add(const std::string& label, uint64_t value, const std::string& unit = "");
    //! A string value.
    report_node& add(const std::string& label, const std::string& value);
    report_node& add(const std::string& label, const char* value)
    {
        return add(label, std::string(value));
    }
    report_node& add_bool(const std::string& label, bool value);
    //! A hexadecimal number: text and JSON both "0x..." (JSON numbers lose 64-bit
    //! values).
    report_node& add_hex(const std::string& label, uint64_t value);
    //! A list: space-separated in the text, an array of strings in JSON.
    report_node& add_list(const std::string& label,
                          const std::vector<std::string>& items);
    //! A line for people only, next to a field that says the same for machines.
    report_node& add_text(const std::string& label, const std::string& value);
    //! A field for machines only, where the text says the same in a summary.
    report_node& add_json(const std::string& label, const std::string& json);
    //! A field rendered by the caller: \p json is a JSON token; \p key, if not empty,
    //! replaces json_key(label).
    report_node& add_raw(const std::string& label,
                         const std::string& text,
                         const std::string& json,
                         const std::string& key = "");

    //! Printed after the label on the heading line ("RF: not reported by this device").
    void set_summary(const std::string& summary) { d_summary = summary; }

    //! A child section: an object member in JSON, or an element if this is an array.
    report_node& child(const std::string& label, bool is_array = false);

    const std::string& label() const { return d_label; }
    const std::vector<report_field>& fields() const { return d_fields; }
    const std::vector<report_node>& children() const { return d_children; }

    //! Indented text; the root's heading at \p indent spaces.
    std::string to_text(int indent = 0) const;
    //! The node as a JSON value: an object (fields, then children keyed by label), or
    //! an array of its children's objects.
    std::string to_json() const;

private:
    report_node& push(report_field field);

    std::string d_label;
    bool d_array;
    std::string d_summary;
    std::vector<report_field> d_fields;
    std::vector<report_node> d_children;
};

//! A label as a JSON key: lower case, runs of anything but letters and digits as "_".
std::string json_key(const std::string& label);

} // namespace app
} // namespace rdma
} // namespace gr

#endif
