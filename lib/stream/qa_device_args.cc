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
    CPPUNIT_TEST_SUITE_END();

public:
    void test_parse()
    {
        const auto a = device_args::parse(" type=emu , signal = ramp,,latency=0.25 ");
        CPPUNIT_ASSERT(a.has("type"));
        CPPUNIT_ASSERT_EQUAL(std::string("emu"), a.get("type", ""));
        CPPUNIT_ASSERT_EQUAL(std::string("ramp"), a.get("signal", ""));
        CPPUNIT_ASSERT_EQUAL(0.25, a.get_double("latency", 0));
        CPPUNIT_ASSERT_EQUAL(std::string("x"), a.get("absent", "x"));
        CPPUNIT_ASSERT_EQUAL(std::string("latency=0.25,signal=ramp,type=emu"),
                             a.to_string());
        CPPUNIT_ASSERT(!device_args::parse("").has("type"));
    }

    void test_typed_getters()
    {
        const auto a = device_args::parse("n=42,h=0x10,f=1e6,mode=on");
        CPPUNIT_ASSERT_EQUAL(uint64_t(42), a.get_uint("n", 0));
        CPPUNIT_ASSERT_EQUAL(uint64_t(16), a.get_uint("h", 0));
        CPPUNIT_ASSERT_EQUAL(1e6, a.get_double("f", 0));
        CPPUNIT_ASSERT_EQUAL(std::string("on"),
                             a.get_choice("mode", { "on", "off" }, "off"));
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), a.get_uint("absent", 7));
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
        CPPUNIT_ASSERT(contains(message_of([&] { a.get_uint("n", 0); }), "n=-3"));
        CPPUNIT_ASSERT(contains(message_of([&] { a.get_double("f", 0); }), "a number"));
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
