/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Every numeric device arg, through rx_stream as a user reaches it, with every kind of
// bad number: each must be refused with a message naming the key and what is expected.
// The table is checked against the key tables (arg_table.h), so a numeric key cannot
// be left out of it.

#include "stream_args.h"
#include "tx_stream_impl.h"
#include <gnuradio/rdma/rx_stream.h>
#include <gnuradio/rdma/tx_stream.h>
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>


using namespace gr::rdma;

namespace {

struct numeric_key {
    std::string key;
    std::string context;            //!< other args the key needs to be read at all
    std::vector<std::string> extra; //!< bad values particular to this key
    std::set<std::string> valid;    //!< values of the common list that are fine here
    bool tx = false;                //!< a tx_stream key (docs/device-args.md, "Transmit")
};

// Overflow (of 32 and 64 bits and of a double), negative, NaN, infinity, text, empty.
const std::vector<std::string> common_bad = { "4294967296", "18446744073709551616",
                                              "1e400",      "-1",
                                              "-1e400",     "nan",
                                              "-nan",       "inf",
                                              "-inf",       "abc",
                                              "",           "0x",
                                              "12abc",      "0x1p3" };

const std::vector<std::string> list_bad = { "3:", ":3", "3::4", "3:abc", "3:-1" };
const std::set<std::string> list_valid = { "4294967296" };

// At 1 MS/s sc16 (the rate the test uses).
const std::vector<numeric_key> table = {
    { "stream", "", { "16", "0x10" }, {} },
    { "streams", "", { "0", "17" }, {} },
    { "links", "", { "0", "9" }, {} },
    { "weights", "links=2,", list_bad, list_valid },
    { "link_timeout", "links=2,", { "1", "10001" }, {} },
    { "link_retry", "links=2,", { "9", "600001" }, {} },
    { "emu_link_delay_us", "links=2,", { "0:100001" }, {} },
    { "emu_link_reorder_us", "links=2,", { "100001:0" }, {} },
    { "timeout", "", { "0", "0.0005", "61" }, {} },
    { "retries", "", { "1001" }, {} },
    { "device_timeout", "", { "0", "0.05", "61" }, {} },
    { "lease", "", { "0", "0.05", "601" }, {} },
    { "take_over", "", { "2" }, {} },
    { "notify", "", { "65537" }, {} },
    { "latency", "", { "0", "61" }, {} },
    { "latency_probe", "", { "2" }, {} },
    { "nic_port", "", { "65536" }, {} },
    { "mtu", "", { "128", "8192" }, {} },
    { "payload", "", { "2", "131072" }, {} },
    { "work_interval", "", { "0.03" }, {} },
    { "retx_window", "transport=rc,", {}, {} },
    { "rate_limit", "", { "100", "5e12" }, { "4294967296" } },
    { "ctrl_period", "", { "0", "1e-7", "1.5", "1000" }, {} },
    { "share_block", "share=1/2,", { "0", "65537" }, {} },
    { "share_wait", "share=1/2,", { "0", "0.05", "3601" }, {} },
    { "grace", "", { "0", "0.01", "0.06" }, {} },
    { "metadata", "", { "2" }, {} },
    { "metadata_interval", "", { "4001" }, {} },
    { "numa", "", { "1024", "au" }, {} },
    { "freq", "signal=tone,", { "500001", "-500001", "1e12", "-1e12" }, { "-1" } },
    { "amplitude", "signal=tone,", { "1.5", "1e40" }, {} },
    { "seed", "signal=noise,", {}, {} },
    { "scene",
      "signal=scene,",
      { "1e6",
        "1e6:0.5:2e6",
        "1e6:-0.5",
        "-1e6:0.5",
        "1e6:1001",
        "2e12:0.5",
        "1e6::0.5",
        "1:1:2:1:3:1:4:1:5:1:6:1:7:1:8:1:9:1" },
      {} },
    { "scene_noise", "signal=scene,", { "1001" }, {} },
    { "master_clock", "", { "4294967296", "1.5" }, {} },
    { "loss", "", { "1.5" }, {} },
    { "loss_burst", "", { "0", "4097" }, {} },
    { "duplicate", "", { "1.5" }, {} },
    { "corrupt", "", { "1.5" }, {} },
    { "delay", "", { "1.5" }, {} },
    { "delay_messages", "", { "32" }, {} },
    { "fault_seed", "", {}, {} },
    { "drop", "", list_bad, list_valid },
    { "corrupt_icrc", "", list_bad, list_valid },
    { "corrupt_payload", "", list_bad, list_valid },
    { "bad_rkey", "", list_bad, list_valid },
    { "bad_va", "", list_bad, list_valid },
    { "min_lead", "", { "0", "0.06" }, {}, true },
    { "max_lead", "", { "0", "0.06" }, {}, true },
    { "tx_loss_ppm", "", { "1000001" }, {}, true },
    { "tx_check", "", { "2" }, {}, true },
    { "tx_fault_seed", "", {}, {}, true },
    { "device_timeout", "", { "0", "0.05", "61" }, {}, true },
};

// The keys the code reads as numbers (arg_table.h): integers, numbers, lists, flags,
// and text with a range of its own (scene=). docs/device-args.md states the same
// ranges (qa_arg_tables).
std::set<std::string> numeric_keys()
{
    std::set<std::string> keys;
    std::vector<const arg_table*> tables = rx_stream_arg_tables();
    for (const arg_table* t : tx_stream_arg_tables())
        tables.push_back(t);
    for (const arg_table* t : tables)
        for (const arg_key& k : t->keys())
            if ((k.type != arg_type::text && k.type != arg_type::choice) ||
                k.range().find("…") != std::string::npos)
                keys.insert(k.name);
    return keys;
}

} // namespace

class qa_device_args_ranges : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device_args_ranges);
    CPPUNIT_TEST(test_table_covers_every_numeric_key);
    CPPUNIT_TEST(test_every_bad_number_is_refused_by_name);
    CPPUNIT_TEST(test_addresses_name_their_key);
    CPPUNIT_TEST(test_every_key_refuses_an_empty_value);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_table_covers_every_numeric_key()
    {
        const std::set<std::string> documented = numeric_keys();
        std::set<std::string> tested;
        for (const auto& row : table)
            tested.insert(row.key);
        for (const auto& key : documented)
            CPPUNIT_ASSERT_MESSAGE("numeric key '" + key +
                                       "' is missing from the table of "
                                       "qa_device_args_ranges.cc",
                                   tested.count(key));
        for (const auto& key : tested)
            CPPUNIT_ASSERT_MESSAGE("'" + key +
                                       "' is tested as numeric but its key table "
                                       "gives it no range",
                                   documented.count(key));
    }

    void test_every_bad_number_is_refused_by_name()
    {
        size_t cases = 0;
        for (const auto& row : table) {
            std::vector<std::string> bad;
            for (const auto& v : common_bad)
                if (!row.valid.count(v))
                    bad.push_back(v);
            bad.insert(bad.end(), row.extra.begin(), row.extra.end());
            for (const auto& value : bad) {
                const std::string args =
                    "type=emu,hugepages=off," + row.context + row.key + "=" + value;
                std::string message;
                try {
                    if (row.tx)
                        tx_stream s(args, "sc16", 1e6, 0);
                    else
                        rx_stream s(args, "sc16", 1e6, 0);
                } catch (const std::invalid_argument& e) {
                    message = e.what();
                }
                const std::string why = args + " -> \"" + message + "\"";
                CPPUNIT_ASSERT_MESSAGE(why,
                                       message.find(row.key + "=" + value +
                                                    " is invalid") != std::string::npos);
                CPPUNIT_ASSERT_MESSAGE(why,
                                       message.find("expected") != std::string::npos);
                // One line: what a command-line tool prints as it is.
                CPPUNIT_ASSERT_MESSAGE(why, message.find('\n') == std::string::npos);
                cases++;
            }
        }
        CPPUNIT_ASSERT(cases > table.size() * common_bad.size() / 2);
    }

    void test_addresses_name_their_key()
    {
        const char* bad[] = {
            "type=remote,addr=127.0.0.1:65536",
            "type=remote,addr=127.0.0.1:-1",
            "type=remote,addr=nan",
            "type=emu,link_addr=127.0.0.1:99999",
            "type=emu,nic_addr=127.0.0.256",
        };
        for (const char* args : bad) {
            std::string message;
            try {
                rx_stream s(args, "sc16", 1e6, 0);
            } catch (const std::invalid_argument& e) {
                message = e.what();
            }
            const std::string key = std::regex_replace(
                std::string(args), std::regex(".*,([a-z_]+)=.*"), "$1");
            CPPUNIT_ASSERT_MESSAGE(message, message.find(key + "=") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(message,
                                   message.find("expected") != std::string::npos);
        }
    }

    void test_every_key_refuses_an_empty_value()
    {
        // `nic_if=` (an unset shell variable, say) once ran on the default NIC.
        const auto refused = [](const std::string& key, bool tx) {
            const std::string args = "type=emu,hugepages=off," + key + "=";
            std::string message;
            try {
                if (tx)
                    tx_stream s(args, "sc16", 1e6, 0);
                else
                    rx_stream s(args, "sc16", 1e6, 0);
            } catch (const std::invalid_argument& e) {
                message = e.what();
            }
            CPPUNIT_ASSERT_MESSAGE(args + " -> \"" + message + "\"",
                                   message.find(key + "= is invalid: expected a value") !=
                                       std::string::npos);
        };
        const auto names = [](const std::vector<const arg_table*>& tables) {
            std::set<std::string> out;
            for (const arg_table* t : tables)
                for (const arg_key& k : t->keys())
                    out.insert(k.name);
            return out;
        };
        const std::set<std::string> rx = names(rx_stream_arg_tables());
        const std::set<std::string> tx = names(tx_stream_arg_tables());
        for (const auto& key : rx)
            refused(key, false);
        for (const auto& key : tx)
            refused(key, true);
        CPPUNIT_ASSERT(rx.count("nic_if") && rx.count("wire") && rx.count("signal"));
        CPPUNIT_ASSERT(tx.count("nic_if") && tx.count("max_lead") && !tx.count("signal"));
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_args_ranges);
