/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The tagged-stream reader both the channel and the decoder use
// (frame_assembler.h): each odd case once, in events, whatever way the
// stream is cut into work() calls.

#include "frame_assembler.h"
#include <boost/test/unit_test.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace bsid {

namespace {

const pmt::pmt_t len = pmt::intern("packet_len");
const pmt::pmt_t lost = pmt::intern("bsid_frames_lost");

gr::tag_t tag(uint64_t offset, const pmt::pmt_t& key, const pmt::pmt_t& value)
{
    gr::tag_t t;
    t.offset = offset;
    t.key = key;
    t.value = value;
    return t;
}

// Every event as a line of text, items run-length merged per frame.
struct recorder : frame_assembler::events {
    std::vector<std::string> log;
    std::string bits; // the items of the open frame
    void begin(uint64_t length, std::vector<gr::tag_t> tags) override
    {
        std::ostringstream os;
        os << "begin " << length;
        for (const auto& t : tags)
            os << " +" << pmt::symbol_to_string(t.key);
        log.push_back(os.str());
        bits.clear();
    }
    void
    invalid(const gr::tag_t& t, const std::string& why, std::vector<gr::tag_t>) override
    {
        log.push_back("invalid@" + std::to_string(t.offset) +
                      (why.empty() ? "" : " why"));
    }
    void items(const uint8_t* in, size_t count) override
    {
        for (size_t k = 0; k < count; ++k)
            bits += char('0' + in[k]);
    }
    void end() override { log.push_back("end " + bits); }
    void cut(uint64_t missing, bool ended) override
    {
        log.push_back("cut " + bits + " missing " + std::to_string(missing) +
                      (ended ? " ended" : ""));
    }
    void lost(uint64_t count) override { log.push_back("lost " + std::to_string(count)); }
    void invalid_lost(const gr::tag_t&, const std::string&) override
    {
        log.push_back("bad lost");
    }
    void inner_tag(const gr::tag_t& t, uint64_t offset) override
    {
        log.push_back("inner " + pmt::symbol_to_string(t.key) + "@" +
                      std::to_string(offset));
    }
    void outside(const uint8_t*, size_t count, std::vector<gr::tag_t> tags) override
    {
        log.push_back("outside " + std::to_string(count) +
                      (tags.empty() ? "" : " +" + std::to_string(tags.size())));
    }
};

// Feeds `items` with `tags` in calls of `chunk` items; returns the events.
std::vector<std::string> run(const std::vector<uint8_t>& items,
                             const std::vector<gr::tag_t>& tags,
                             size_t chunk,
                             bool finish = true)
{
    frame_assembler a(len, lost);
    recorder r;
    for (size_t pos = 0; pos < items.size(); pos += chunk) {
        const size_t n = std::min(chunk, items.size() - pos);
        std::vector<gr::tag_t> mine;
        for (const auto& t : tags) {
            if (t.offset >= pos && t.offset < pos + n)
                mine.push_back(t);
        }
        a.feed(items.data() + pos, n, pos, mine, r);
    }
    if (finish)
        a.finish(r);
    // outside runs and frame items may be split by calls: merge adjacent outside runs
    std::vector<std::string> merged;
    for (const auto& e : r.log) {
        if (!merged.empty() && e.rfind("outside ", 0) == 0 &&
            merged.back().rfind("outside ", 0) == 0 && e.find('+') == std::string::npos) {
            const auto a1 = std::stoul(merged.back().substr(8));
            const auto a2 = std::stoul(e.substr(8));
            const auto plus = merged.back().find(" +");
            merged.back() = "outside " + std::to_string(a1 + a2) +
                            (plus == std::string::npos ? "" : merged.back().substr(plus));
            continue;
        }
        merged.push_back(e);
    }
    return merged;
}

void check_all_chunkings(const std::vector<uint8_t>& items,
                         const std::vector<gr::tag_t>& tags,
                         const std::vector<std::string>& expected)
{
    for (size_t chunk = 1; chunk <= items.size(); ++chunk) {
        const auto got = run(items, tags, chunk);
        BOOST_CHECK_EQUAL_COLLECTIONS(
            got.begin(), got.end(), expected.begin(), expected.end());
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(frames_whole_cut_and_outside)
{
    const std::vector<uint8_t> items = { 1, 0, 1, 1, 0, 0, 1, 1, 1, 0 };
    // garbage, a frame of 3, a frame of 4 cut after 2 by the next, one open at the end
    const std::vector<gr::tag_t> tags = { tag(1, len, pmt::from_long(3)),
                                          tag(4, len, pmt::from_uint64(4)),
                                          tag(6, len, pmt::from_long(9)) };
    check_all_chunkings(items,
                        tags,
                        { "outside 1",
                          "begin 3",
                          "end 011",
                          "begin 4",
                          "cut 00 missing 2",
                          "begin 9",
                          "cut 1110 missing 5 ended" });
}

BOOST_AUTO_TEST_CASE(length_values_every_integer_pmt_and_nothing_else)
{
    BOOST_CHECK(read_count(pmt::from_long(7)).ok);
    BOOST_CHECK_EQUAL(read_count(pmt::from_uint64(7)).value, 7u);
    BOOST_CHECK_EQUAL(read_count(pmt::from_uint64(uint64_t(1) << 63)).value,
                      uint64_t(1) << 63);
    for (const auto& v : { pmt::from_double(7.0),
                           pmt::from_long(-1),
                           pmt::intern("7"),
                           pmt::from_complex(7.0, 0.0),
                           pmt::PMT_NIL }) {
        const auto c = read_count(v);
        BOOST_CHECK(!c.ok);
        BOOST_CHECK(!c.why.empty());
    }
    const std::vector<uint8_t> items = { 1, 1, 0, 0, 1 };
    // a double length starts no frame: its bits are outside, until the next length tag
    const std::vector<gr::tag_t> tags = { tag(0, len, pmt::from_double(2.0)),
                                          tag(3, len, pmt::from_long(2)) };
    check_all_chunkings(
        items, tags, { "invalid@0 why", "outside 3", "begin 2", "end 01" });
}

BOOST_AUTO_TEST_CASE(lost_counts_come_before_the_next_frame)
{
    const std::vector<uint8_t> items = { 1, 0, 1, 1, 0, 1 };
    // a count on a frame's first item, one inside a frame (reported before
    // the next frame), one that is not a count, and one left at the end
    const std::vector<gr::tag_t> tags = {
        tag(0, lost, pmt::from_long(2)),   tag(0, len, pmt::from_long(2)),
        tag(1, lost, pmt::from_uint64(3)), tag(2, len, pmt::from_long(2)),
        tag(3, lost, pmt::from_double(1)), tag(4, lost, pmt::from_long(5)),
    };
    check_all_chunkings(items,
                        tags,
                        { "lost 2",
                          "begin 2",
                          "end 10",
                          "lost 3",
                          "begin 2",
                          "bad lost",
                          "end 11",
                          "outside 2",
                          "lost 5" });
}

BOOST_AUTO_TEST_CASE(several_lengths_on_one_item_and_other_tags)
{
    const pmt::pmt_t mark = pmt::intern("mark");
    const std::vector<uint8_t> items = { 1, 0, 1, 0 };
    const std::vector<gr::tag_t> tags = {
        tag(0, len, pmt::from_long(5)), tag(0, len, pmt::from_long(0)),
        tag(0, mark, pmt::PMT_T),       tag(0, len, pmt::from_long(3)),
        tag(2, mark, pmt::PMT_T),       tag(3, mark, pmt::PMT_T)
    };
    // all but the last start frames that receive nothing; other tags go with
    // the last, inside the frame by offset, outside with the run they start
    check_all_chunkings(items,
                        tags,
                        { "begin 5",
                          "cut  missing 5",
                          "begin 0",
                          "end ",
                          "begin 3 +mark",
                          "inner mark@2",
                          "end 101",
                          "outside 1 +1" });
}

BOOST_AUTO_TEST_CASE(nothing_pending_after_a_complete_frame)
{
    frame_assembler a(len, pmt::PMT_NIL);
    recorder r;
    const std::vector<uint8_t> items = { 1, 1 };
    a.feed(items.data(),
           2,
           0,
           { tag(0, len, pmt::from_long(2)), tag(1, lost, pmt::from_long(4)) },
           r);
    BOOST_CHECK(!a.pending());
    // without a lost key, a lost count is just another tag
    BOOST_CHECK_EQUAL(r.log.size(), 3u);
    BOOST_CHECK_EQUAL(r.log[1], "inner bsid_frames_lost@1");
    a.finish(r);
    BOOST_CHECK_EQUAL(r.log.size(), 3u);
}

// Float items (the decoder's soft input): the events get each item's bytes,
// four to an item, under every split into calls.
BOOST_AUTO_TEST_CASE(float_items_are_passed_whole)
{
    struct floats : frame_assembler::events {
        std::vector<float> got;
        size_t outside_items = 0;
        int frames = 0;
        void begin(uint64_t, std::vector<gr::tag_t>) override { ++frames; }
        void
        invalid(const gr::tag_t&, const std::string&, std::vector<gr::tag_t>) override
        {
        }
        void items(const uint8_t* in, size_t count) override
        {
            const auto* f = reinterpret_cast<const float*>(in);
            got.insert(got.end(), f, f + count);
        }
        void end() override {}
        void cut(uint64_t, bool) override {}
        void outside(const uint8_t*, size_t count, std::vector<gr::tag_t>) override
        {
            outside_items += count;
        }
    };
    std::vector<float> items(40);
    for (size_t k = 0; k < items.size(); ++k)
        items[k] = float(k) + 0.5f;
    // 3 items outside, then frames of 10 and 27 items
    const std::vector<gr::tag_t> tags = { tag(3, len, pmt::from_long(10)),
                                          tag(13, len, pmt::from_long(27)) };
    for (size_t chunk : { size_t(1), size_t(4), size_t(40) }) {
        frame_assembler a(len, lost, sizeof(float));
        floats r;
        for (size_t pos = 0; pos < items.size(); pos += chunk) {
            const size_t n = std::min(chunk, items.size() - pos);
            std::vector<gr::tag_t> mine;
            for (const auto& t : tags)
                if (t.offset >= pos && t.offset < pos + n)
                    mine.push_back(t);
            a.feed(reinterpret_cast<const uint8_t*>(items.data() + pos), n, pos, mine, r);
        }
        a.finish(r);
        BOOST_TEST(r.frames == 2);
        BOOST_TEST(r.outside_items == 3u);
        BOOST_REQUIRE(r.got.size() == 37u);
        for (size_t k = 0; k < r.got.size(); ++k)
            BOOST_TEST(r.got[k] == items[k + 3]);
    }
}

} // namespace bsid
} // namespace gr
