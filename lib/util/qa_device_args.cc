/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_args.h"
#include "rational_rate.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

using namespace gr::rdma;

namespace {
std::string message_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}
bool contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}
} // namespace

class qa_device_args : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device_args);
    CPPUNIT_TEST(test_parse);
    CPPUNIT_TEST(test_typed_getters);
    CPPUNIT_TEST(test_errors_name_the_fix);
    CPPUNIT_TEST(test_rational_rate);
    CPPUNIT_TEST(test_one_message_shape);
    CPPUNIT_TEST(test_getters_refuse_every_bad_number);
    CPPUNIT_TEST(test_empty_values_are_refused_when_parsed);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_parse()
    {
        const auto a = device_args::parse(" type=emu , signal = ramp,,latency=0.25 ");
        CPPUNIT_ASSERT(a.has("type"));
        CPPUNIT_ASSERT_EQUAL(std::string("emu"), a.get("type", ""));
        CPPUNIT_ASSERT_EQUAL(std::string("ramp"), a.get("signal", ""));
        CPPUNIT_ASSERT_EQUAL(0.25, a.get_double("latency", 0, 0, 1));
        CPPUNIT_ASSERT_EQUAL(std::string("x"), a.get("absent", "x"));
        CPPUNIT_ASSERT_EQUAL(std::string("latency=0.25,signal=ramp,type=emu"),
                             a.to_string());
        CPPUNIT_ASSERT(!device_args::parse("").has("type"));
        // with(): replaces or adds, and leaves the original alone.
        CPPUNIT_ASSERT_EQUAL(std::string("latency=0.25,signal=tone,type=emu"),
                             a.with("signal", "tone").to_string());
        CPPUNIT_ASSERT_EQUAL(std::string("latency=0.25,signal=ramp,stream=2,type=emu"),
                             a.with("stream", "2").to_string());
        CPPUNIT_ASSERT_EQUAL(std::string("ramp"), a.get("signal", ""));
    }

    void test_typed_getters()
    {
        const auto a =
            device_args::parse("n=42,h=0x10,f=1e6,g=-2.5,mode=on,b=1,l=3:0x11:200");
        CPPUNIT_ASSERT_EQUAL(uint64_t(42), a.get_uint("n", 0, 0, 42));
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), a.get_uint("h", 0, 16, 16));
        CPPUNIT_ASSERT_EQUAL(1e6, a.get_double("f", 0, 0, 1e6));
        CPPUNIT_ASSERT_EQUAL(-2.5, a.get_double("g", 0, -3, 0));
        CPPUNIT_ASSERT_EQUAL(std::string("on"),
                             a.get_choice("mode", { "on", "off" }, "off"));
        CPPUNIT_ASSERT(a.get_flag("b", false));
        CPPUNIT_ASSERT(a.get_flag("absent", true));
        CPPUNIT_ASSERT(std::vector<uint64_t>({ 3, 17, 200 }) ==
                       a.get_uint_list("l", 0, 200, "indices"));
        CPPUNIT_ASSERT(a.get_uint_list("absent", 0, 1, "indices").empty());
        // The fallback is the caller's constant: not range-checked.
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), a.get_uint("absent", 7, 0, 1));
        CPPUNIT_ASSERT_EQUAL(0.5, a.get_double("absent", 0.5, 0, 0.1));
    }

    void test_errors_name_the_fix()
    {
        CPPUNIT_ASSERT(contains(message_of([] { device_args::parse("type=emu,ramp"); }),
                                "key=value"));
        CPPUNIT_ASSERT(
            contains(message_of([] { device_args::parse("a=1,a=2"); }), "twice"));
        CPPUNIT_ASSERT(
            contains(message_of([] { device_args::parse("=1"); }), "empty key"));
        const auto a = device_args::parse("n=-3,f=abc,mode=maybe,sgnal=ramp");
        CPPUNIT_ASSERT(contains(message_of([&] { a.get_uint("n", 0, 0, 9); }), "n=-3"));
        CPPUNIT_ASSERT(
            contains(message_of([&] { a.get_double("f", 0, 0, 1); }), "a number"));
        CPPUNIT_ASSERT(contains(message_of([&] {
                                    a.get_choice("mode", { "on", "off" }, "on");
                                }),
                                "off|on"));
        const std::string unknown = message_of([&] {
            a.check_known({ "n", "f", "mode", "signal" });
        });
        CPPUNIT_ASSERT(contains(unknown, "'sgnal'"));
        CPPUNIT_ASSERT(contains(unknown, "signal"));
    }

    void test_one_message_shape()
    {
        const auto a = device_args::parse(
            "stream=4294967296,t=nan,w=-1,p=70000,l=3::4,flag=2,addr=1.2.3.4:65536");
        CPPUNIT_ASSERT_EQUAL(
            std::string("device args: stream=4294967296 is invalid: expected an integer "
                        "0..15"),
            message_of([&] { a.get_uint("stream", 0, 0, 15); }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("device args: t=nan is invalid: expected seconds 0.001..3600"),
            message_of([&] { a.get_double("t", 1, 0.001, 3600, "seconds"); }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("device args: w=-1 is invalid: expected bytes 0..4294967295; "
                        "the fix"),
            message_of([&] { a.get_uint("w", 0, 0, UINT32_MAX, "bytes", "the fix"); }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("device args: p=70000 is invalid: expected a UDP port 0..65535"),
            message_of([&] { a.get_uint("p", 0, 0, 65535, "a UDP port"); }));
        CPPUNIT_ASSERT_EQUAL(std::string("device args: l=3::4 is invalid: expected "
                                         "indices 0..9 separated by ':', e.g. "
                                         "l=3:17:200"),
                             message_of([&] { a.get_uint_list("l", 0, 9, "indices"); }));
        CPPUNIT_ASSERT_EQUAL(
            std::string("device args: flag=2 is invalid: expected 0 (off) or 1 (on)"),
            message_of([&] { a.get_flag("flag", false); }));
        const std::string addr = message_of([&] { a.get_address("addr", "", 0); });
        CPPUNIT_ASSERT(contains(addr, "addr=1.2.3.4:65536 is invalid: expected"));
        CPPUNIT_ASSERT(contains(addr, "0..65535"));
        // Host names: resolved, or an error naming the key and the name.
        const auto named = device_args::parse("addr=localhost:7,bad=nonexistent.invalid");
        CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1:7"),
                             named.get_host_address("addr", "", 1).to_string());
        const std::string unresolved =
            message_of([&] { named.get_host_address("bad", "", 1); });
        CPPUNIT_ASSERT_MESSAGE(
            unresolved,
            contains(unresolved,
                     "device args: bad=nonexistent.invalid is invalid: host "
                     "name 'nonexistent.invalid' does not resolve"));
        CPPUNIT_ASSERT(contains(unresolved, "; expected an IPv4 address"));
        CPPUNIT_ASSERT(contains(message_of([&] { a.get_host_address("addr", "", 0); }),
                                "addr=1.2.3.4:65536 is invalid: expected"));
    }

    void test_empty_values_are_refused_when_parsed()
    {
        // Whatever the key (a string such as nic_if as much as a number): refused before
        // any getter could take the empty text for "use the default".
        for (const char* args : { "type=emu,nic_if=", "type=emu, nic_if = ,signal=ramp" })
            CPPUNIT_ASSERT_EQUAL(
                std::string("device args: nic_if= is invalid: expected a value "
                            "(docs/device-args.md); leave the key out for its default"),
                message_of([&] { device_args::parse(args); }));
        // A pair that is only a comma, or nothing, is no key at all: still fine.
        CPPUNIT_ASSERT_EQUAL(std::string("type=emu"),
                             device_args::parse(",type=emu,,").to_string());
    }

    void test_getters_refuse_every_bad_number()
    {
        // Each would once have wrapped, been cast, or passed NaN on. (An empty value
        // never reaches a getter: parse() refuses it, see the test above.)
        for (const char* bad : { "4294967296",
                                 "18446744073709551616",
                                 "1e400",
                                 "-1",
                                 "nan",
                                 "inf",
                                 "-inf",
                                 "abc",
                                 "0x",
                                 "0xZZ",
                                 "12abc",
                                 "1.5",
                                 "+1",
                                 "010x" }) {
            const auto a = device_args::parse(std::string("k=") + bad);
            const std::string m = message_of([&] { a.get_uint("k", 0, 0, 4294967295); });
            CPPUNIT_ASSERT_MESSAGE(bad, contains(m, std::string("k=") + bad + " is"));
            CPPUNIT_ASSERT_MESSAGE(bad, contains(m, "expected an integer 0..4294967295"));
        }
        for (const char* bad : { "1e400",
                                 "-1e400",
                                 "nan",
                                 "-nan",
                                 "inf",
                                 "-inf",
                                 "infinity",
                                 "abc",
                                 "0x10",
                                 "0x1p3",
                                 "1e",
                                 "2",
                                 "-0.5",
                                 "0.5x" }) {
            const auto a = device_args::parse(std::string("k=") + bad);
            const std::string m = message_of([&] { a.get_double("k", 0, 0, 1, "s"); });
            CPPUNIT_ASSERT_MESSAGE(bad, contains(m, "expected s 0..1"));
        }
        for (const char* bad : { ":", "3:", ":3", "3::4", "-1", "3:x", "3:2" }) {
            const auto a = device_args::parse(std::string("k=") + bad);
            CPPUNIT_ASSERT_MESSAGE(
                bad,
                contains(message_of([&] { a.get_uint_list("k", 3, 9, "indices"); }),
                         "expected indices 3..9"));
        }
        for (const char* bad : { "2", "on", "-1", "01" })
            CPPUNIT_ASSERT_MESSAGE(
                bad,
                contains(
                    message_of([&] {
                        device_args::parse(std::string("k=") + bad).get_flag("k", false);
                    }),
                    "expected 0 (off) or 1 (on)"));
    }

    void test_rational_rate()
    {
        CPPUNIT_ASSERT_EQUAL(20000000u, rational_rate(20e6).num);
        CPPUNIT_ASSERT_EQUAL(1u, rational_rate(20e6).den);
        const rational r = rational_rate(44100.5);
        CPPUNIT_ASSERT_EQUAL(441005u, r.num);
        CPPUNIT_ASSERT_EQUAL(10u, r.den);
        const rational third = rational_rate(1e6 / 3.0);
        CPPUNIT_ASSERT(std::fabs(double(third.num) / third.den - 1e6 / 3.0) < 1e-3);
        CPPUNIT_ASSERT_THROW(rational_rate(0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(rational_rate(5e9), std::invalid_argument);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device_args);
