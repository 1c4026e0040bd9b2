/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device as the host sees it: opened once per identity and shared, kinds found by
// name, RX streams claimed by one stream object at a time, args of another kind
// refused. The emulator plays the device (registered as type=emu by lib/emu).

#include "shared_device.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <stdexcept>
#include <string>

using namespace gr::rdma;

namespace {

std::shared_ptr<shared_device> open(const std::string& args)
{
    return shared_device::open(device_args::parse(args));
}

std::string invalid_argument_of(const std::string& args)
{
    try {
        open(args);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    CPPUNIT_FAIL("shared_device::open(\"" + args +
                 "\") did not throw std::invalid_argument");
    return {};
}

void assert_contains(const std::string& text, const std::string& part)
{
    CPPUNIT_ASSERT_MESSAGE("\"" + part + "\" not in: " + text,
                           text.find(part) != std::string::npos);
}

} // namespace

class qa_device : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device);
    CPPUNIT_TEST(test_kinds_are_registered);
    CPPUNIT_TEST(test_same_args_same_device);
    CPPUNIT_TEST(test_device_closes_with_its_last_user);
    CPPUNIT_TEST(test_remote_is_its_address);
    CPPUNIT_TEST(test_rx_streams_are_claimed_once);
    CPPUNIT_TEST(test_bad_args_name_the_fix);
    CPPUNIT_TEST_SUITE_END();

public:
    void test_kinds_are_registered()
    {
        for (const char* name : { "emu", "null", "remote" })
            CPPUNIT_ASSERT_MESSAGE(name, find_device_kind(name) != nullptr);
        CPPUNIT_ASSERT(find_device_kind("uhd") == nullptr);
        // The common keys are the device's; each kind registers its own.
        for (const char* key : { "type", "addr", "name", "timeout", "retries" })
            CPPUNIT_ASSERT_MESSAGE(key, shared_device::keys().contains(key));
        CPPUNIT_ASSERT(!shared_device::keys().contains("payload"));
        for (const char* key : { "wire", "link_addr", "streams" })
            CPPUNIT_ASSERT_MESSAGE(key, find_device_kind("emu")->keys.contains(key));
        CPPUNIT_ASSERT(!find_device_kind("remote")->keys.contains("wire"));
    }

    void test_same_args_same_device()
    {
        auto a = open("type=emu");
        auto b = open("type=emu");
        CPPUNIT_ASSERT(a == b);
        CPPUNIT_ASSERT(a->in_process());
        CPPUNIT_ASSERT_EQUAL(std::string("emu"), a->kind().name);
        // Args of the streams are not the device's: the same device.
        CPPUNIT_ASSERT(open("type=emu,timeout=0.2") == a);
        // name= and the kind's own args make another device.
        auto named = open("type=emu,name=second");
        CPPUNIT_ASSERT(named != a);
        CPPUNIT_ASSERT(named->address() != a->address());
        CPPUNIT_ASSERT(open("type=emu,streams=2") != a);
        CPPUNIT_ASSERT_EQUAL(4u, a->info().num_rx_streams);
        CPPUNIT_ASSERT_EQUAL(2u, open("type=emu,streams=2")->info().num_rx_streams);
    }

    void test_device_closes_with_its_last_user()
    {
        std::weak_ptr<shared_device> weak;
        {
            auto dev = open("type=emu,name=short_lived");
            weak = dev;
        }
        CPPUNIT_ASSERT(weak.expired());
        // Opened again, it is a new device (a new emulator).
        auto again = open("type=emu,name=short_lived");
        CPPUNIT_ASSERT(again != nullptr);
    }

    void test_remote_is_its_address()
    {
        auto emulator = open("type=emu,name=for_remote");
        const std::string addr = emulator->address().to_string();
        auto remote = open("addr=" + addr);
        CPPUNIT_ASSERT_EQUAL(std::string("remote"), remote->kind().name);
        CPPUNIT_ASSERT(!remote->in_process());
        CPPUNIT_ASSERT(remote != emulator);
        CPPUNIT_ASSERT(open("type=remote,addr=" + addr) == remote);
        // name= makes a second view of it, as a second host has.
        CPPUNIT_ASSERT(open("addr=" + addr + ",name=host_b") != remote);
        // Both see one device: the same serial number and link.
        CPPUNIT_ASSERT_EQUAL(emulator->info().serial, remote->info().serial);
        CPPUNIT_ASSERT(emulator->link().roce == remote->link().roce);
    }

    void test_rx_streams_are_claimed_once()
    {
        auto dev = open("type=emu,name=claims");
        auto first = shared_device::claim_rx(dev, 0);
        auto second = shared_device::claim_rx(dev, 1);
        CPPUNIT_ASSERT_EQUAL(1u, second->stream());
        try {
            shared_device::claim_rx(dev, 0);
            CPPUNIT_FAIL("RX stream 0 claimed twice");
        } catch (const std::invalid_argument& e) {
            assert_contains(e.what(), "stream=");
            assert_contains(e.what(), "name=");
        }
        first.reset();
        CPPUNIT_ASSERT_EQUAL(0u, shared_device::claim_rx(dev, 0)->stream());
        try {
            shared_device::claim_rx(dev, 4);
            CPPUNIT_FAIL("RX stream 4 of 4 claimed");
        } catch (const std::invalid_argument& e) {
            assert_contains(e.what(), "4 RX stream(s)");
            assert_contains(e.what(), "streams=");
        }
    }

    void test_bad_args_name_the_fix()
    {
        std::string e = invalid_argument_of("type=uhd");
        assert_contains(e, "emu|null|remote");
        e = invalid_argument_of("type=remote");
        assert_contains(e, "addr=");
        e = invalid_argument_of("type=emu,addr=127.0.0.1");
        assert_contains(e, "type=remote");
        e = invalid_argument_of("addr=127.0.0.1,wire=inproc");
        assert_contains(e, "belongs to type=emu");
        e = invalid_argument_of("type=emu,streams=17");
        assert_contains(e, "streams=");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device);
