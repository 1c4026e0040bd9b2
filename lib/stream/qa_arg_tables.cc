/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// docs/device-args.md against the key tables the code reads its args by (arg_table.h):
// every key of a table is documented, every documented key is in a table, and each
// row states the table's default and range. A key added, renamed or given a new range
// in the code without the docs fails here, and the other way round.

#include "../device/device_kind.h"
#include "stream_args.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#ifndef DEVICE_ARGS_DOC
#error "DEVICE_ARGS_DOC must name docs/device-args.md (lib/stream/CMakeLists.txt)"
#endif

using namespace gr::rdma;

namespace {

struct doc_row {
    std::string line;
    std::string fallback; //!< the Default cell
    std::string values;   //!< the Values cell, without backticks
    std::string raw_values;
};

std::string trim(const std::string& s)
{
    const auto first = s.find_first_not_of(' ');
    return first == std::string::npos
               ? ""
               : s.substr(first, s.find_last_not_of(' ') - first + 1);
}

std::string without_backticks(std::string s)
{
    s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
    return s;
}

// Each row "| `key`[, `key`...] | default | values | meaning |", by key: a key of RX
// and TX streams alike may have a row in each section (rate_limit=).
std::map<std::string, std::vector<doc_row>> documented_rows()
{
    std::ifstream doc(DEVICE_ARGS_DOC);
    CPPUNIT_ASSERT_MESSAGE(DEVICE_ARGS_DOC, doc.good());
    std::map<std::string, std::vector<doc_row>> rows;
    std::string line;
    const std::regex key_pattern("`([a-z_0-9]+)`");
    while (std::getline(doc, line)) {
        if (line.rfind("| `", 0) != 0)
            continue;
        std::vector<std::string> cells;
        for (size_t at = 1, bar;
             cells.size() < 3 && (bar = line.find(" | ", at)) != std::string::npos;
             at = bar + 3)
            cells.push_back(trim(line.substr(at, bar - at)));
        CPPUNIT_ASSERT_MESSAGE(line, cells.size() == 3);
        for (std::sregex_iterator it(cells[0].begin(), cells[0].end(), key_pattern), end;
             it != end;
             ++it) {
            rows[(*it)[1]].push_back(
                { line, cells[1], without_backticks(cells[2]), cells[2] });
        }
    }
    CPPUNIT_ASSERT(rows.size() > 50);
    return rows;
}

// Every table a stream reads, RX and TX, and every device kind's (the emulator's
// included: this program links its areas).
std::vector<const arg_table*> every_table() { return device_arg_tables(); }

} // namespace

class qa_arg_tables : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_arg_tables);
    CPPUNIT_TEST(test_the_emulators_keys_come_with_its_kind);
    CPPUNIT_TEST(test_every_key_is_documented_and_every_documented_key_read);
    CPPUNIT_TEST(test_docs_state_each_default_and_range);
    CPPUNIT_TEST(test_a_drifted_range_is_caught);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_the_emulators_keys_come_with_its_kind()
    {
        const device_kind* emu = find_device_kind("emu");
        CPPUNIT_ASSERT(emu);
        CPPUNIT_ASSERT(emu->keys.contains("wire") && emu->keys.contains("streams"));
        // The stream's tables name none of the emulator's own keys.
        for (const arg_table* t : { &stream_keys(), &receive_keys(), &transmit_keys() })
            CPPUNIT_ASSERT(!t->contains("wire") && !t->contains("streams"));
        const std::vector<const arg_table*> rx = rx_stream_arg_tables();
        CPPUNIT_ASSERT(std::find(rx.begin(), rx.end(), &emu->keys) != rx.end());
    }

    void test_every_key_is_documented_and_every_documented_key_read()
    {
        const auto rows = documented_rows();
        std::set<std::string> in_tables;
        for (const arg_table* t : every_table())
            for (const arg_key& k : t->keys()) {
                in_tables.insert(k.name);
                CPPUNIT_ASSERT_MESSAGE(t->part() + ": " + k.name +
                                           " is not in docs/device-args.md",
                                       rows.count(k.name));
                CPPUNIT_ASSERT_MESSAGE(k.name + ": no one-line doc", !k.doc.empty());
            }
        for (const auto& [key, row] : rows)
            CPPUNIT_ASSERT_MESSAGE("docs/device-args.md documents " + key +
                                       ", which no key table declares",
                                   in_tables.count(key));
    }

    void test_docs_state_each_default_and_range()
    {
        const auto rows = documented_rows();
        size_t checked = 0;
        for (const arg_table* t : every_table())
            for (const arg_key& k : t->keys())
                for (const doc_row& row : rows.at(k.name)) {
                    const std::string where =
                        t->part() + ": " + k.name + " in\n" + row.line;
                    if (!k.fallback.empty())
                        CPPUNIT_ASSERT_MESSAGE(
                            where + "\ndefault `" + k.fallback + "`",
                            row.fallback.find("`" + k.fallback + "`") !=
                                std::string::npos);
                    for (const auto& c : k.choices)
                        CPPUNIT_ASSERT_MESSAGE(where + "\nchoice `" + c + "`",
                                               row.raw_values.find("`" + c + "`") !=
                                                   std::string::npos);
                    if (k.type != arg_type::choice && !k.range().empty())
                        CPPUNIT_ASSERT_MESSAGE(where + "\nrange " + k.range(),
                                               row.values.find(k.range()) !=
                                                   std::string::npos);
                    checked++;
                }
        CPPUNIT_ASSERT(checked > 60);
    }

    void test_a_drifted_range_is_caught()
    {
        // The comparison itself: a range one off, or a default the docs do not give,
        // is not found in the row.
        const auto rows = documented_rows();
        const arg_key drifted =
            arg_key::integer("stream", 0, 16, "0", "", "which stream of the device");
        const doc_row& stream = rows.at("stream").front();
        CPPUNIT_ASSERT(stream.values.find(drifted.range()) == std::string::npos);
        CPPUNIT_ASSERT(stream.values.find(stream_keys()["stream"].range()) !=
                       std::string::npos);
        CPPUNIT_ASSERT(rows.at("timeout").front().fallback.find("`0.5`") ==
                       std::string::npos);
        CPPUNIT_ASSERT_EQUAL(std::string("1e-6…1"), controller_args_period_range());
    }

private:
    static std::string controller_args_period_range()
    {
        for (const arg_table* t : every_table())
            if (t->contains("ctrl_period"))
                return (*t)["ctrl_period"].range();
        return "";
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_arg_tables);
