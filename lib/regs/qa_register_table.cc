/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The register table against the docs: every register table of docs/register-map.md,
// docs/metadata.md and docs/radio.md, cell by cell (qa_register_fields: the field
// packing, the bursts and the decoding). register_map.h's constants are checked
// against the table when register_table.cc compiles.

#include "link_fields.h"
#include "register_fields.h"
#include "register_table.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifndef REGISTER_MAP_DOC
#error "REGISTER_MAP_DOC must name docs/register-map.md (lib/regs/CMakeLists.txt)"
#endif
#ifndef METADATA_DOC
#error "METADATA_DOC must name docs/metadata.md (lib/regs/CMakeLists.txt)"
#endif
#ifndef RADIO_DOC
#error "RADIO_DOC must name docs/radio.md (lib/regs/CMakeLists.txt)"
#endif

using namespace gr::rdma;
using regs::block;

namespace {

std::string read_file(const char* path)
{
    std::ifstream in(path);
    CPPUNIT_ASSERT_MESSAGE(std::string("cannot read ") + path, in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string trim(std::string s)
{
    const size_t a = s.find_first_not_of(' ');
    const size_t b = s.find_last_not_of(' ');
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string unquote(std::string s)
{
    s = trim(s);
    if (s.size() >= 2 && s.front() == '`' && s.back() == '`')
        s = s.substr(1, s.size() - 2);
    return s;
}

// A number as the docs write it: decimal, or 0x hex. False if it is not one.
bool parse_number(const std::string& text, uint64_t& value)
{
    const bool hex = text.rfind("0x", 0) == 0;
    const std::string digits = hex ? text.substr(2) : text;
    if (digits.empty() || digits.size() > 16)
        return false;
    value = 0;
    for (char c : digits) {
        const int d = c >= '0' && c <= '9'          ? c - '0'
                      : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                      : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                    : -1;
        if (d < 0)
            return false;
        value = value * (hex ? 16 : 10) + d;
    }
    return true;
}

std::string hex(uint64_t v)
{
    char text[24];
    std::snprintf(text, sizeof(text), "0x%llX", static_cast<unsigned long long>(v));
    return text;
}

// The cells the docs must show for a table row.
std::string access_cell(const regs::register_info& r)
{
    const char* mode = r.mode == regs::access::ro   ? "ro"
                       : r.mode == regs::access::rw ? "rw"
                                                    : "wo";
    return std::string(mode) + (r.has(regs::flag::owner_only) ? ", owner-only" : "");
}

std::string bits_cell(const regs::register_info& r)
{
    return std::to_string(r.bits) + (r.repeat > 1 ? "×" + std::to_string(r.repeat) : "");
}

std::string reset_cell(const regs::register_info& r)
{
    switch (r.reset) {
    case regs::reset_kind::device:
        return "device";
    case regs::reset_kind::live:
        return "live";
    default:
        return std::to_string(r.reset_value) + " (" + hex(r.reset_value) + ")";
    }
}

/*!
 * A heading of a document ("## Identity ...") and the rows its register table must
 * hold: those of \p where that need every capability of \p with and none of
 * \p without. A section that is not \p checked may hold a register table the test
 * skips (a block the register table does not have yet).
 */
struct doc_section {
    std::string heading;
    block where = block::identity;
    uint32_t with = 0;
    uint32_t without = 0;
    bool checked = true;

    bool holds(const regs::register_info& r) const
    {
        return r.where == where && (r.capability & with) == with &&
               (r.capability & without) == 0;
    }
};

struct doc_row {
    size_t line = 0;
    std::vector<std::string> cells; // address, name, access, bits, reset
};

/*!
 * The first difference between the register tables of \p text (a document called
 * \p doc) and the register table, or "" if there is none. \p sections names the
 * headings under which register tables stand and what each must hold; each checked
 * one must hold exactly one register table, with exactly its rows in order.
 */
std::string first_difference(const std::string& doc,
                             const std::string& text,
                             const std::vector<doc_section>& sections)
{
    const std::string addr_header = "| Addr | Name | Access | Bits | Reset | Meaning |";
    const std::string offset_header =
        "| Offset | Name | Access | Bits | Reset | Meaning |";
    std::vector<std::vector<doc_row>> tables(sections.size());
    std::vector<int> found(sections.size(), 0);
    int section = -1;
    bool in_table = false;
    std::istringstream lines(text);
    std::string line;
    for (size_t n = 1; std::getline(lines, line); n++) {
        const std::string where = doc + " line " + std::to_string(n) + ": ";
        if (line.rfind("## ", 0) == 0) {
            section = -1;
            for (size_t i = 0; i < sections.size(); i++)
                if (line.rfind("## " + sections[i].heading, 0) == 0)
                    section = static_cast<int>(i);
            in_table = false;
            continue;
        }
        if (line.rfind("| Addr | Name | Access", 0) == 0 ||
            line.rfind("| Offset | Name | Access", 0) == 0) {
            if (line != addr_header && line != offset_header)
                return where + "a register table must have the columns " + offset_header;
            if (section < 0)
                return where + "a register table under a heading the test does not know";
            if (found[section]++)
                return where + "a second register table under \"## " +
                       sections[section].heading + "\"";
            in_table = sections[section].checked;
            continue;
        }
        if (!in_table)
            continue;
        if (line.rfind("|---", 0) == 0)
            continue;
        if (line.rfind("|", 0) != 0) {
            in_table = false;
            continue;
        }
        doc_row row;
        row.line = n;
        size_t at = 1;
        for (int c = 0; c < 5; c++) {
            const size_t bar = line.find('|', at);
            if (bar == std::string::npos)
                return where + "a register row needs six cells";
            row.cells.push_back(unquote(line.substr(at, bar - at)));
            at = bar + 1;
        }
        tables[section].push_back(row);
    }

    for (size_t i = 0; i < sections.size(); i++) {
        if (!found[i])
            return doc + ": no register table under \"## " + sections[i].heading + "\"";
        if (!sections[i].checked)
            continue;
        std::vector<const regs::register_info*> expected;
        for (const regs::register_info& r : regs::register_table)
            if (sections[i].holds(r))
                expected.push_back(&r);
        const std::vector<doc_row>& rows = tables[i];
        for (size_t k = 0; k < std::max(rows.size(), expected.size()); k++) {
            if (k >= rows.size())
                return doc + ", \"## " + sections[i].heading +
                       "\": " + expected[k]->name + " is missing (it follows " +
                       (k ? rows[k - 1].cells[1] : std::string("nothing")) + ")";
            const doc_row& d = rows[k];
            const std::string where = doc + " line " + std::to_string(d.line) + ": ";
            if (k >= expected.size())
                return where + d.cells[1] + " is not in lib/regs/register_table.h";
            const regs::register_info& r = *expected[k];
            const std::string name = r.name;
            if (d.cells[1] != name)
                return where + "Name is " + d.cells[1] + " in the doc, " + name +
                       " in lib/regs/register_table.h";
            const bool absolute = r.where == block::identity || r.where == block::clock ||
                                  r.where == block::scene;
            const uint64_t offset =
                absolute ? regs::address_of(r.where, 0, r.offset) : r.offset;
            uint64_t value = 0;
            if (!parse_number(d.cells[0], value) || value != offset)
                return where + name + ": " + (absolute ? "Addr" : "Offset") + " is " +
                       d.cells[0] + " in the doc, " + hex(offset) +
                       " in lib/regs/register_table.h";
            if (d.cells[2] != access_cell(r))
                return where + name + ": Access is \"" + d.cells[2] +
                       "\" in the doc, \"" + access_cell(r) +
                       "\" in lib/regs/register_table.h";
            if (d.cells[3] != bits_cell(r))
                return where + name + ": Bits is " + d.cells[3] + " in the doc, " +
                       bits_cell(r) + " in lib/regs/register_table.h";
            const bool reset_ok =
                r.reset == regs::reset_kind::value
                    ? parse_number(d.cells[4], value) && value == r.reset_value
                    : d.cells[4] == reset_cell(r);
            if (!reset_ok)
                return where + name + ": Reset is " + d.cells[4] + " in the doc, " +
                       reset_cell(r) + " in lib/regs/register_table.h";
        }
    }
    return "";
}

// The clock block is split: register-map.md has map 1.1's clock, radio.md what
// CAP_TIME_SET adds.
const std::vector<doc_section> map_sections = {
    { "Identity", block::identity },
    { "Clock", block::clock, 0, regs::cap::time_set },
    { "Link", block::link, 0, regs::cap::multi_link },
    { "RX stream", block::rx, 0,
      regs::cap::burst_queue | regs::cap::shares | regs::cap::stop_cause },
    { "Metadata channel", block::metadata },
    { "Emulator extension", block::emulator },
    { "TX stream", block::tx },
    { "TX emulator extension", block::tx_emulator },
    { "TX burst queue", block::tx_burst_queue },
    { "Link control", block::link, regs::cap::multi_link },
    { "RX destinations", block::rx_destination },
    { "RX epochs", block::rx_epoch },
    { "Emulated links", block::emu_link },
    { "Controller", block::ctrl },
    { "Shares", block::rx, regs::cap::shares },
    { "RX shares", block::rx_share },
    { "RC requesters", block::rx_dest_rc },
    { "Why a run ended", block::rx, regs::cap::stop_cause },
};
const std::vector<doc_section> metadata_sections = {
    { "Registers", block::metadata },
};
// RX_FIRST_MESSAGE belongs with the burst queue (radio.md), not map 1.1's RX block.
const std::vector<doc_section> radio_sections = {
    { "RF channel", block::rf },
    { "Clock", block::clock, regs::cap::time_set },
    { "Command queue", block::command_queue },
    { "Burst queue", block::burst_queue },
    { "The emulator's RF scene", block::scene },
    { "Continuing a stream", block::rx, regs::cap::burst_queue },
};

// \p text with the first line that contains \p row_marker changed: \p from -> \p to.
std::string mutate(const std::string& text,
                   const std::string& row_marker,
                   const std::string& from,
                   const std::string& to)
{
    const size_t row = text.find(row_marker);
    CPPUNIT_ASSERT_MESSAGE(row_marker, row != std::string::npos);
    const size_t line_start = text.rfind('\n', row) + 1;
    const size_t line_end = text.find('\n', row);
    std::string line = text.substr(line_start, line_end - line_start);
    const size_t at = line.find(from);
    CPPUNIT_ASSERT_MESSAGE(row_marker + ": " + from, at != std::string::npos);
    line.replace(at, from.size(), to);
    return text.substr(0, line_start) + line + text.substr(line_end);
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class qa_register_table : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_register_table);
    CPPUNIT_TEST(test_register_map_doc_matches_the_table);
    CPPUNIT_TEST(test_metadata_doc_matches_the_table);
    CPPUNIT_TEST(test_radio_doc_matches_the_table);
    CPPUNIT_TEST(test_a_changed_radio_doc_cell_is_named);
    CPPUNIT_TEST(test_a_changed_doc_cell_is_named);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_register_map_doc_matches_the_table()
    {
        CPPUNIT_ASSERT_EQUAL(std::string(),
                             first_difference("docs/register-map.md",
                                              read_file(REGISTER_MAP_DOC),
                                              map_sections));
    }

    void test_metadata_doc_matches_the_table()
    {
        CPPUNIT_ASSERT_EQUAL(std::string(),
                             first_difference("docs/metadata.md",
                                              read_file(METADATA_DOC),
                                              metadata_sections));
    }

    void test_radio_doc_matches_the_table()
    {
        CPPUNIT_ASSERT_EQUAL(
            std::string(),
            first_difference("docs/radio.md", read_file(RADIO_DOC), radio_sections));
    }

    void test_a_changed_radio_doc_cell_is_named()
    {
        // As for register-map.md: any one cell of radio.md's tables, changed, is named.
        const std::string radio = read_file(RADIO_DOC);
        struct mutation {
            const char* row;
            const char* from;
            const char* to;
            const char* expect;
        };
        const mutation mutations[] = {
            { "| `RF_FREQ` |", "| rw |", "| ro |", "RF_FREQ: Access is \"ro\"" },
            { "| `RF_FREQ_TIME` |", "| 64 |", "| 32 |", "RF_FREQ_TIME: Bits is 32" },
            { "| `RF_GAIN` |", "`0x24`", "`0x28`", "RF_GAIN: Offset is 0x28" },
            { "| `RF_ANTENNA` |", "| 0 |", "| 1 |", "RF_ANTENNA: Reset is 1" },
            { "| `RF_STATUS` |", "| live |", "| device |", "RF_STATUS: Reset is device" },
            { "| `CLOCK_SET_PPS` |",
              "`0x110`",
              "`0x114`",
              "CLOCK_SET_PPS: Addr is 0x114" },
            { "| `CLOCK_SOURCES` |", "| device |", "| 3 |", "CLOCK_SOURCES: Reset is 3" },
            { "| `CMD_PUSH` |", "| wo |", "| rw |", "CMD_PUSH: Access is \"rw\"" },
            { "| `CMD_LATE` |", "`CMD_LATE`", "`CMD_LATER`", "Name is CMD_LATER" },
            { "| `EMU_SCENE_TONES` |", "| 1 |", "| 2 |", "EMU_SCENE_TONES: Reset is 2" },
            { "| `BQ_PUSH` |", "| wo |", "| rw |", "BQ_PUSH: Access is \"rw\"" },
            { "| `BQ_FIRST_MESSAGE` |",
              "| 0xFFFFFFFFFFFFFFFF |",
              "| 0 |",
              "BQ_FIRST_MESSAGE: Reset is 0" },
            { "| `RX_FIRST_MESSAGE` |",
              "rw, owner-only",
              "rw",
              "RX_FIRST_MESSAGE: Access is \"rw\"" },
            { "| `EMU_SCENE_FREQ_0` |",
              "| 100250000000 |",
              "| 100000000000 |",
              "EMU_SCENE_FREQ_0: Reset is 100000000000" },
            { "| `EMU_SCENE_AMPLITUDE_3` |",
              "`0xE048`",
              "`0xF848`",
              "EMU_SCENE_AMPLITUDE_3: Addr is 0xF848" },
        };
        for (const mutation& m : mutations) {
            const std::string diff = first_difference(
                "docs/radio.md", mutate(radio, m.row, m.from, m.to), radio_sections);
            CPPUNIT_ASSERT_MESSAGE(m.row + (": " + diff), contains(diff, m.expect));
        }
        // A register left out of radio.md's table is missed: the next row stands where
        // it should.
        const size_t row = radio.find("| `0x20` | `RF_FREQ_STEP`");
        CPPUNIT_ASSERT(row != std::string::npos);
        std::string without = radio;
        without.erase(row, radio.find('\n', row) + 1 - row);
        CPPUNIT_ASSERT(contains(first_difference("r", without, radio_sections),
                                "Name is RF_GAIN in the doc, RF_FREQ_STEP in"));
        // register-map.md's clock table holds map 1.1's clock only: a radio register
        // there is one too many.
        const std::string map = read_file(REGISTER_MAP_DOC);
        const size_t clock = map.find("| `0x100` | `CLOCK_TIME_NS`");
        CPPUNIT_ASSERT(clock != std::string::npos);
        std::string extra = map;
        extra.insert(map.find('\n', clock) + 1,
                     "| `0x108` | `CLOCK_SET_NOW` | wo | 64 | 0 | set |\n");
        CPPUNIT_ASSERT(contains(first_difference("m", extra, map_sections),
                                "CLOCK_SET_NOW is not in lib/regs/register_table.h"));
    }

    void test_a_changed_doc_cell_is_named()
    {
        // The check above must fail, naming the register, when any one cell is wrong.
        const std::string map = read_file(REGISTER_MAP_DOC);
        struct mutation {
            const char* row;
            const char* from;
            const char* to;
            const char* expect; // in the message
        };
        const mutation mutations[] = {
            { "| `RX_PATH_MTU` |", "| 1024 |", "| 2048 |", "RX_PATH_MTU: Reset is 2048" },
            { "| `RX_RKEY` |", "rw, owner-only", "rw", "RX_RKEY: Access is \"rw\"" },
            { "| `RX_VA` |", "| 64 |", "| 32 |", "RX_VA: Bits is 32" },
            { "| `RX_DEST_QPN` |", "`0x10`", "`0x14`", "RX_DEST_QPN: Offset is 0x14" },
            { "| `ID_SERIAL` |", "`0x020`", "`0x024`", "ID_SERIAL: Addr is 0x024" },
            { "| `LINK_WEIGHT` |", "| rw |", "| ro |", "LINK_WEIGHT: Access is \"ro\"" },
            { "| `RX_SOURCE_QPN` |", "| device |", "| 0 |", "RX_SOURCE_QPN: Reset is 0" },
            { "| `RX_STATUS` |", "`RX_STATUS`", "`RX_STAT`", "Name is RX_STAT" },
            { "| `EMU_FAULT_TABLE` |", "32×24", "32", "EMU_FAULT_TABLE: Bits is 32" },
            { "| `CLOCK_TIME_NS` |", "| live |", "| device |", "CLOCK_TIME_NS: Reset" },
            { "| `RX_LEASE_MS` |", "| 5000 |", "| 500 |", "RX_LEASE_MS: Reset is 500" },
            { "| `TBQ_PUSH` |", "| wo |", "| rw |", "TBQ_PUSH: Access is \"rw\"" },
            { "| `TBQ_ITEM` |", "`0x08`", "`0x10`", "TBQ_ITEM: Offset is 0x10" },
            { "| `TBQ_STATUS` |", "| device |", "| 0 |", "TBQ_STATUS: Reset is 0" },
            { "| `TX_TIME_ERRORS` |", "| 32 |", "| 64 |", "TX_TIME_ERRORS: Bits is 64" },
        };
        for (const mutation& m : mutations) {
            const std::string diff = first_difference(
                "docs/register-map.md", mutate(map, m.row, m.from, m.to), map_sections);
            CPPUNIT_ASSERT_MESSAGE(m.row + (": " + diff), contains(diff, m.expect));
        }
        // A row left out, and one the table does not have.
        const size_t row = map.find("| `0x30` | `LINK_RX_PACKETS`");
        CPPUNIT_ASSERT(row != std::string::npos);
        std::string without = map;
        without.erase(row, map.find('\n', row) + 1 - row);
        CPPUNIT_ASSERT(contains(first_difference("m", without, map_sections),
                                "LINK_RX_PACKETS is missing"));
        std::string extra = map;
        extra.insert(map.find('\n', row) + 1,
                     "| `0x38` | `LINK_RX_BYTES` | ro | 64 | 0 | invented |\n");
        CPPUNIT_ASSERT(contains(first_difference("m", extra, map_sections),
                                "LINK_RX_BYTES is not in lib/regs/register_table.h"));
        // An old-style table (no Bits, no Reset) is not silently skipped.
        CPPUNIT_ASSERT(contains(
            first_difference("m",
                             mutate(map,
                                    "| Offset | Name | Access | Bits | Reset | Meaning |",
                                    "| Bits | Reset | Meaning |",
                                    "| Meaning |"),
                             map_sections),
            "must have the columns"));
        // And docs/metadata.md's copy of the metadata block is checked as closely.
        const std::string md = read_file(METADATA_DOC);
        CPPUNIT_ASSERT(
            contains(first_difference("docs/metadata.md",
                                      mutate(md, "| `MD_CONTROL` |", "| rw |", "| wo |"),
                                      metadata_sections),
                     "MD_CONTROL: Access is \"wo\""));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_register_table);
