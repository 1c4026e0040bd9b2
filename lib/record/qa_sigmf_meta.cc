/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A recording's pieces without GNU Radio: captures from the stream's tags, annotations
// kept in order and bounded, the meta file's text (golden), rotation limits and names,
// and the data file on a disk that refuses writes (/dev/full).

#include "sigmf_annotations.h"
#include "sigmf_data_file.h"
#include "sigmf_meta.h"
#include "sigmf_rotation.h"
#include "sigmf_timeline.h"
#include <cppunit/TestFixture.h>
#include <cppunit/extensions/HelperMacros.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace gr::rdma;

namespace {

constexpr uint64_t t0 = 1700000000ull * 1000000000ull + 123456789ull;

std::string read_file(const std::string& path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

sigmf_annotation gap(uint64_t first, uint64_t count)
{
    auto a = sigmf_annotation::of_report(
        sigmf_annotation::kind::gap, "packet_lost", first, count);
    a.has_device_sample = true;
    a.device_sample = first + 7;
    return a;
}

} // namespace

class qa_sigmf_meta : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_sigmf_meta);
    CPPUNIT_TEST(captures_follow_time_rate_and_frequency);
    CPPUNIT_TEST(captures_are_bounded);
    CPPUNIT_TEST(annotations_sorted_bounded_and_forgotten);
    CPPUNIT_TEST(meta_text_of_a_rotated_part);
    CPPUNIT_TEST(meta_text_before_the_end_is_known);
    CPPUNIT_TEST(datetime);
    CPPUNIT_TEST(rotation_limits_and_names);
    CPPUNIT_TEST(data_file_on_a_full_disk);
    CPPUNIT_TEST(meta_file_whole_or_not_at_all);
    CPPUNIT_TEST_SUITE_END();

    void captures_follow_time_rate_and_frequency()
    {
        // python/rdma/qa_sigmf.py test_captures_follow_time_rate_and_frequency's tags.
        sigmf_timeline t(1e6, 100);
        t.on_time(0, t0);
        t.on_rate(0, 1e6);
        t.on_freq(0, 100e6);
        t.on_time(1000, t0 + 1000 * 1000); // a gap's re-tag, on the timeline
        t.on_freq(2000, 101e6);            // a retune
        t.on_time(3000, t0 + 8000 * 1000); // an overrun skipped 5000 samples
        t.on_rate(4000, 2e6);              // a rate change, with its time
        t.on_time(4000, t0 + 9000 * 1000);
        const auto& s = t.segments();
        CPPUNIT_ASSERT_EQUAL(size_t(4), s.size());
        const uint64_t items[] = { 0, 2000, 3000, 4000 };
        const uint64_t times[] = { t0, t0 + 2000000, t0 + 8000000, t0 + 9000000 };
        const double freqs[] = { 100e6, 101e6, 101e6, 101e6 };
        const double rates[] = { 1e6, 1e6, 1e6, 2e6 };
        for (size_t i = 0; i < 4; i++) {
            CPPUNIT_ASSERT_EQUAL(items[i], s[i].item);
            CPPUNIT_ASSERT(s[i].has_time && s[i].has_freq);
            CPPUNIT_ASSERT_EQUAL(times[i], s[i].time_ns);
            CPPUNIT_ASSERT_EQUAL(freqs[i], s[i].freq);
            CPPUNIT_ASSERT_EQUAL(rates[i], s[i].rate);
        }
        // Half a sample off is on the timeline at 1 kS/s (more than 1 us); more is not.
        sigmf_timeline slow(1e3, 100);
        slow.on_time(0, t0);
        slow.on_time(10, t0 + 10000000 + 400000);
        CPPUNIT_ASSERT_EQUAL(size_t(1), slow.segments().size());
        slow.on_time(20, t0 + 20000000 + 600000);
        CPPUNIT_ASSERT_EQUAL(size_t(2), slow.segments().size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), t.dropped());
        // at(): the segment in effect.
        CPPUNIT_ASSERT_EQUAL(uint64_t(2000), t.at(2999).item);
        CPPUNIT_ASSERT_EQUAL(uint64_t(4000), t.at(99999).item);
        t.forget_before(3500);
        CPPUNIT_ASSERT_EQUAL(size_t(2), t.segments().size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(3000), t.segments().front().item);
    }

    void captures_are_bounded()
    {
        sigmf_timeline t(1e6, 3);
        for (uint64_t k = 0; k < 10; k++)
            t.on_freq(100 * k, 100e6 + k);
        CPPUNIT_ASSERT_EQUAL(size_t(3), t.segments().size());
        CPPUNIT_ASSERT_EQUAL(uint64_t(7), t.dropped());
        CPPUNIT_ASSERT_EQUAL(100e6 + 2, t.segments().back().freq);
    }

    void annotations_sorted_bounded_and_forgotten()
    {
        sigmf_annotations a(3);
        CPPUNIT_ASSERT(a.add(gap(500, 10)));
        CPPUNIT_ASSERT(a.add(gap(100, 10)));
        auto skip = sigmf_annotation::of_report(
            sigmf_annotation::kind::overrun, "skipped", 100, 5000);
        CPPUNIT_ASSERT(a.add(skip));
        CPPUNIT_ASSERT(!a.add(gap(0, 1)));
        const auto& s = a.sorted();
        CPPUNIT_ASSERT_EQUAL(uint64_t(100), s[0].item);
        CPPUNIT_ASSERT_EQUAL(std::string("packet_lost"), s[0].cause); // came first
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), s[1].span); // a skip: the item after the leap
        CPPUNIT_ASSERT_EQUAL(uint64_t(5000), s[1].lost);
        CPPUNIT_ASSERT_EQUAL(uint64_t(500), s[2].item);
        a.forget_before(110);
        CPPUNIT_ASSERT_EQUAL(size_t(1), a.sorted().size());
        CPPUNIT_ASSERT_EQUAL(
            std::string("5000 samples skipped before this one (overrun: "
                        "the reader fell a ring behind); they are not in "
                        "the recording"),
            skip.comment());
    }

    void meta_text_of_a_rotated_part()
    {
        sigmf_timeline t(1e6, 100);
        t.on_time(0, t0);
        t.on_freq(0, 100.1e6);
        t.on_freq(1500, 101e6);
        t.on_freq(3000, 102e6); // after this part
        sigmf_annotations a(10);
        a.add(gap(900, 200)); // cut by the part's start
        a.add(gap(1990, 20)); // cut by its end
        a.add(gap(2500, 1));  // after it
        sigmf_global g{ "ci16_le", "gr-rdma-rx", "type=emu", "" };
        sigmf_file f;
        f.first_item = 1000;
        f.final = true;
        f.items = 1000;
        f.part = 1;
        f.annotations_dropped = 2;
        const std::string expected = R"({
 "global": {
  "core:datatype": "ci16_le",
  "core:sample_rate": 1000000.0,
  "core:version": "1.2.0",
  "core:num_channels": 1,
  "core:recorder": "gr-rdma-rx",
  "core:extensions": [
   {
    "name": "rdma",
    "version": "1.0.0",
    "optional": true
   }
  ],
  "core:hw": "type=emu",
  "rdma:part": 1,
  "rdma:annotations_dropped": 2
 },
 "captures": [
  {
   "core:sample_start": 0,
   "core:global_index": 1000,
   "core:datetime": "2023-11-14T22:13:20.124456789Z",
   "core:frequency": 100100000.0,
   "rdma:sample_rate": 1000000.0
  },
  {
   "core:sample_start": 500,
   "core:global_index": 1500,
   "core:datetime": "2023-11-14T22:13:20.124956789Z",
   "core:frequency": 101000000.0,
   "rdma:sample_rate": 1000000.0
  }
 ],
 "annotations": [
  {
   "core:sample_start": 0,
   "core:sample_count": 100,
   "core:label": "gap",
   "core:comment": "200 samples lost (packet_lost): zeros in the recording",
   "rdma:type": "gap",
   "rdma:cause": "packet_lost",
   "rdma:lost": 200,
   "rdma:device_sample": 907,
   "rdma:split": true
  },
  {
   "core:sample_start": 990,
   "core:sample_count": 10,
   "core:label": "gap",
   "core:comment": "20 samples lost (packet_lost): zeros in the recording",
   "rdma:type": "gap",
   "rdma:cause": "packet_lost",
   "rdma:lost": 20,
   "rdma:device_sample": 1997,
   "rdma:split": true
  }
 ]
}
)";
        CPPUNIT_ASSERT_EQUAL(expected, sigmf_meta_text(g, f, t, a));
    }

    void meta_text_before_the_end_is_known()
    {
        // While a file is written: every later capture and annotation, none cut at the
        // end; an error is said in the global object.
        sigmf_timeline t(2e6, 100);
        t.on_freq(5000, 99e6);
        sigmf_annotations a(10);
        a.add(gap(4990, 20));
        sigmf_file f;
        f.error = "writing x failed";
        const std::string text =
            sigmf_meta_text(sigmf_global{ "cf32_le", "gr-rdma", "", "a test" }, f, t, a);
        CPPUNIT_ASSERT(text.find("\"core:sample_rate\": 2000000.0") != std::string::npos);
        CPPUNIT_ASSERT(text.find("\"core:description\": \"a test\"") !=
                       std::string::npos);
        CPPUNIT_ASSERT(text.find("\"rdma:error\": \"writing x failed\"") !=
                       std::string::npos);
        CPPUNIT_ASSERT(text.find("core:hw") == std::string::npos);
        CPPUNIT_ASSERT(text.find("rdma:part") == std::string::npos);
        CPPUNIT_ASSERT(text.find("core:datetime") == std::string::npos); // no rx_time
        CPPUNIT_ASSERT(text.find("\"core:sample_start\": 5000") != std::string::npos);
        CPPUNIT_ASSERT(text.find("\"core:sample_count\": 20") != std::string::npos);
        CPPUNIT_ASSERT(text.find("rdma:split") == std::string::npos);
    }

    void datetime()
    {
        CPPUNIT_ASSERT_EQUAL(std::string("2023-11-14T22:13:20.123456789Z"),
                             sigmf_datetime(t0));
        CPPUNIT_ASSERT_EQUAL(std::string("1970-01-01T00:00:00.000000001Z"),
                             sigmf_datetime(1));
    }

    void rotation_limits_and_names()
    {
        const sigmf_rotation none("/r/x", 0, 0, 4);
        CPPUNIT_ASSERT(!none.rotating());
        CPPUNIT_ASSERT_EQUAL(std::string("/r/x"), none.base(3));
        CPPUNIT_ASSERT_EQUAL(sigmf_rotation::unlimited, none.limit(1e6));
        const sigmf_rotation size("/r/x", 1000001, 0, 4); // at least the bytes asked
        CPPUNIT_ASSERT_EQUAL(std::string("/r/x-0000"), size.base(0));
        CPPUNIT_ASSERT_EQUAL(std::string("/r/x-12345"), size.base(12345));
        CPPUNIT_ASSERT_EQUAL(uint64_t(250001), size.limit(1e6));
        const sigmf_rotation both("/r/x", 1000000, 0.1, 4); // the first reached
        CPPUNIT_ASSERT_EQUAL(uint64_t(100000), both.limit(1e6));
        CPPUNIT_ASSERT_EQUAL(uint64_t(250000), both.limit(1e7));
        const sigmf_rotation tiny("/r/x", 0, 1e-9, 4); // never less than one item
        CPPUNIT_ASSERT_EQUAL(uint64_t(1), tiny.limit(1e6));
    }

    void data_file_on_a_full_disk()
    {
        sigmf_data_file f;
        CPPUNIT_ASSERT_EQUAL(0, f.open("/dev/full")); // Linux has it, always
        const char data[8] = {};
        const int err = f.write(data, sizeof data);
        CPPUNIT_ASSERT_EQUAL(ENOSPC, err);
        CPPUNIT_ASSERT_EQUAL(uint64_t(0), f.bytes());
        const std::string why = f.describe_failure(err, 4);
        CPPUNIT_ASSERT_MESSAGE(why,
                               why.find("writing /dev/full failed after 0 bytes (0 "
                                        "samples): No space left on device: the disk "
                                        "is full") == 0);
        CPPUNIT_ASSERT_MESSAGE(
            why, why.find("bytes free); the recording ends there") != std::string::npos);
        f.truncate_to_items(4);
        f.close();
        CPPUNIT_ASSERT(!f.is_open());
    }

    void meta_file_whole_or_not_at_all()
    {
        char dir[] = "/tmp/qa_sigmf_meta.XXXXXX";
        CPPUNIT_ASSERT(mkdtemp(dir) != nullptr);
        const std::string path = std::string(dir) + "/r.sigmf-meta";
        CPPUNIT_ASSERT_EQUAL(std::string(), write_file_whole(path, "{}\n"));
        CPPUNIT_ASSERT_EQUAL(std::string("{}\n"), read_file(path));
        // A .tmp that cannot be made (a directory in its place): the old file stays.
        CPPUNIT_ASSERT_EQUAL(0, ::mkdir((path + ".tmp").c_str(), 0755));
        const std::string err = write_file_whole(path, "{\"new\": 1}\n");
        CPPUNIT_ASSERT_EQUAL(std::string("Is a directory"), err);
        CPPUNIT_ASSERT_EQUAL(std::string("{}\n"), read_file(path));
        ::rmdir((path + ".tmp").c_str());
        ::unlink(path.c_str());
        ::rmdir(dir);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_sigmf_meta);
