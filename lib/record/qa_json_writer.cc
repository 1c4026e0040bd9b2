/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The JSON writer: Python json.dump(indent=1)'s layout, RFC 8259 strings (never
// invalid UTF-8), integers exactly, doubles that read back the same.

#include "json_writer.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdlib>
#include <limits>

using namespace gr::rdma;

class qa_json_writer : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_json_writer);
    CPPUNIT_TEST(layout_is_pythons_indent_1);
    CPPUNIT_TEST(empty_containers);
    CPPUNIT_TEST(strings_are_escaped);
    CPPUNIT_TEST(bytes_that_are_not_utf8_become_replacement_characters);
    CPPUNIT_TEST(numbers);
    CPPUNIT_TEST_SUITE_END();

    void layout_is_pythons_indent_1()
    {
        json_writer j;
        j.begin_object();
        j.key("a");
        j.value(uint64_t(1));
        j.key("b");
        j.begin_array();
        j.value("x");
        j.begin_object();
        j.key("c");
        j.value(true);
        j.end_object();
        j.end_array();
        j.end_object();
        // python3 -c 'import json; print(json.dumps({"a": 1, "b": ["x", {"c": True}]},
        //                                           indent=1))'
        CPPUNIT_ASSERT_EQUAL(std::string("{\n \"a\": 1,\n \"b\": [\n  \"x\",\n  {\n"
                                         "   \"c\": true\n  }\n ]\n}"),
                             j.text());
    }

    void empty_containers()
    {
        json_writer j;
        j.begin_object();
        j.key("captures");
        j.begin_array();
        j.end_array();
        j.key("o");
        j.begin_object();
        j.end_object();
        j.end_object();
        CPPUNIT_ASSERT_EQUAL(std::string("{\n \"captures\": [],\n \"o\": {}\n}"),
                             j.text());
    }

    void strings_are_escaped()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("\"a\\\"b\\\\c\\n\\t\\r\\u0001\\u001f/\""),
                             json_writer::quote("a\"b\\c\n\t\r\x01\x1f/"));
        // UTF-8 passes as it is: 2, 3 and 4 byte sequences.
        const std::string utf8 = "\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x93\xA1";
        CPPUNIT_ASSERT_EQUAL("\"" + utf8 + "\"", json_writer::quote(utf8));
    }

    void bytes_that_are_not_utf8_become_replacement_characters()
    {
        const std::string fffd = "\xEF\xBF\xBD";
        // A lone continuation byte, a truncated sequence, an overlong form, a
        // surrogate, beyond U+10FFFF, 0xFF: as many U+FFFD as Python's decoder gives
        // (bytes.decode("utf-8", "replace")).
        CPPUNIT_ASSERT_EQUAL("\"a" + fffd + "b\"",
                             json_writer::quote("a\x80"
                                                "b"));
        CPPUNIT_ASSERT_EQUAL("\"" + fffd + "\"", json_writer::quote("\xE2\x82"));
        CPPUNIT_ASSERT_EQUAL("\"" + fffd + "A\"",
                             json_writer::quote("\xE2\x82"
                                                "A"));
        CPPUNIT_ASSERT_EQUAL("\"" + fffd + fffd + "\"", json_writer::quote("\xC0\xAF"));
        CPPUNIT_ASSERT_EQUAL("\"" + fffd + fffd + fffd + "\"",
                             json_writer::quote("\xED\xA0\x80"));
        CPPUNIT_ASSERT_EQUAL("\"" + fffd + fffd + fffd + fffd + "\"",
                             json_writer::quote("\xF4\x90\x80\x80"));
        CPPUNIT_ASSERT_EQUAL("\"" + fffd + "\"", json_writer::quote("\xFF"));
    }

    void numbers()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("1000000.0"), json_writer::number(1e6));
        CPPUNIT_ASSERT_EQUAL(std::string("100100000.0"), json_writer::number(100.1e6));
        CPPUNIT_ASSERT_EQUAL(std::string("-3.0"), json_writer::number(-3));
        CPPUNIT_ASSERT_EQUAL(std::string("0.1"), json_writer::number(0.1));
        CPPUNIT_ASSERT_EQUAL(
            std::string("null"),
            json_writer::number(std::numeric_limits<double>::quiet_NaN()));
        CPPUNIT_ASSERT_EQUAL(
            std::string("null"),
            json_writer::number(std::numeric_limits<double>::infinity()));
        // Shortest, and the same double read back.
        for (const double x : { 1e16, 2.5e-7, 30.72e6 / 7, 6.02214076e23, 1.0 / 3 }) {
            const std::string text = json_writer::number(x);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(text, x, std::strtod(text.c_str(), nullptr));
            CPPUNIT_ASSERT(text.size() <= 24);
        }
        json_writer j;
        j.begin_array();
        j.value(UINT64_MAX);
        j.value(INT64_MIN);
        j.null();
        j.end_array();
        CPPUNIT_ASSERT_EQUAL(
            std::string("[\n 18446744073709551615,\n -9223372036854775808,\n"
                        " null\n]"),
            j.text());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_json_writer);
