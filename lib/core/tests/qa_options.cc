/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The options reader (option_table.h) and the receiver's options
// (receiver_options.h): names, types, defaults, text, and the objects the
// blocks and command lines make from them.

#include <gnuradio/bsid/core/options/receiver_options.h>
#include <gtest/gtest.h>
#include <set>

using namespace bsid;

namespace {

const auto& table() { return receiver_option_table(); }

} // namespace

TEST(options, the_receiver_table_names_each_option_once_in_the_blocks_order)
{
    const auto names = table().names();
    const std::vector<std::string> expect = { "output",
                                              "backend",
                                              "precision",
                                              "storage",
                                              "Pr",
                                              "max_batch",
                                              "llr_scale",
                                              "llr_clip",
                                              "len_tag_key",
                                              "follow_channel_tags",
                                              "sync_word",
                                              "framing",
                                              "lookahead",
                                              "start_tag_key",
                                              "acquire_window",
                                              "tag_after_sync_word",
                                              "sync_threshold",
                                              "search",
                                              "synchronized_at_start",
                                              "input",
                                              "estimate_every",
                                              "priors_input",
                                              "max_delay_ms",
                                              "devices",
                                              "reads",
                                              "read_method" };
    EXPECT_EQ(names, expect);
    for (const auto& e : table().entries())
        EXPECT_GT(e.help.size(), 10u) << e.name;
}

TEST(options, each_option_writes_and_reads_its_own_field)
{
    // set every option to a value unlike its default and read all back: a
    // field written by two options (or by none) shows up as a mismatch
    receiver_options o;
    std::map<std::string, option_value> put;
    long long k = 2;
    for (const auto& e : table().entries()) {
        option_value v;
        switch (e.type) {
        case option_type::flag:
            v = !std::get<bool>(e.get(o));
            break;
        case option_type::integer:
            v = 100 + k;
            break;
        case option_type::number:
            v = 0.25 * double(k);
            break;
        default:
            v = "v" + std::to_string(k);
        }
        ++k;
        e.set(o, v);
        put[e.name] = v;
    }
    for (const auto& e : table().entries())
        EXPECT_EQ(e.get(o), put[e.name]) << e.name;
    EXPECT_EQ(o.framing.acquire_window, std::get<long long>(put["acquire_window"]));
    EXPECT_EQ(o.output.kind, std::get<std::string>(put["output"]));
    EXPECT_EQ(o.input.kind, std::get<std::string>(put["input"]));
    EXPECT_FLOAT_EQ(o.output.llr_clip, float(std::get<double>(put["llr_clip"])));
}

TEST(options, a_value_of_the_wrong_type_is_refused_naming_the_option)
{
    receiver_options o;
    EXPECT_THROW(table().set(o, "acquire_window", 4.5), option_type_error);
    EXPECT_THROW(table().set(o, "framing", 3LL), option_type_error);
    EXPECT_THROW(table().set(o, "search", 1LL), option_type_error);
    EXPECT_THROW(table().set(o, "Pr", std::string("small")), option_type_error);
    try {
        table().set(o, "sync_word", true);
        FAIL();
    } catch (const option_type_error& e) {
        EXPECT_NE(std::string(e.what()).find("sync_word = true must be a string"),
                  std::string::npos)
            << e.what();
    }
    // an integer is a number
    table().set(o, "Pr", 0LL);
    EXPECT_EQ(o.decoding.Pr, 0.0);
    // out of an int's range
    EXPECT_THROW(table().set(o, "max_batch", 1LL << 40), std::invalid_argument);
    EXPECT_EQ(o.decoding.max_batch, 64);
}

TEST(options, an_unknown_option_names_the_one_meant)
{
    receiver_options o;
    try {
        table().set(o, "Framing", std::string("stream"));
        FAIL();
    } catch (const unknown_option_error& e) {
        EXPECT_STREQ(e.what(), "no parameter named 'Framing' (did you mean framing?)");
    }
    try {
        table().read(o, "acquire-window", "3");
        FAIL();
    } catch (const unknown_option_error& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean acquire_window?"),
                  std::string::npos);
    }
    EXPECT_THROW(table().read(o, "nonsense", "1"), unknown_option_error);
    EXPECT_EQ(closest_option("nonsense", table().names()), "");
}

TEST(options, text_is_read_in_the_options_type)
{
    receiver_options o;
    table().read(o, "search", "false");
    table().read(o, "synchronized_at_start", "0");
    table().read(o, "acquire_window", "-3");
    table().read(o, "sync_threshold", "-2.5e1");
    table().read(o, "sync_word", "0110");
    table().read(o, "llr_scale", "inf");
    EXPECT_FALSE(o.framing.search);
    EXPECT_FALSE(o.framing.synchronized_at_start);
    EXPECT_EQ(o.framing.acquire_window, -3);
    EXPECT_EQ(o.framing.sync_threshold, -25.0);
    EXPECT_EQ(o.framing.sync_word, "0110");
    EXPECT_TRUE(std::isinf(o.output.llr_scale));
    for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
             { "search", "yes" },
             { "acquire_window", "4.0" },
             { "acquire_window", "" },
             { "acquire_window", " 4" },
             { "Pr", "1e-10x" },
             { "max_batch", "99999999999999999999" } }) {
        try {
            table().read(o, name, text);
            ADD_FAILURE() << name << " = '" << text << "' was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    }
}

TEST(options, values_print_as_the_usage_shows_them)
{
    EXPECT_EQ(option_text(true), "true");
    EXPECT_EQ(option_text(-4LL), "-4");
    EXPECT_EQ(option_text(1e-10), "1e-10");
    EXPECT_EQ(option_text(std::string("tagged")), "'tagged'");
    EXPECT_EQ(describe(option_type::integer), "an int");
}

TEST(options, the_defaults_are_the_decoders_defaults)
{
    // the blocks' defaults and the core objects' must not drift apart
    const receiver_options o;
    const stream_options s;
    EXPECT_EQ(o.framing.lookahead, s.lookahead);
    EXPECT_EQ(o.framing.acquire_window, s.acquire_window);
    EXPECT_EQ(o.framing.sync_threshold, s.sync_threshold);
    EXPECT_EQ(o.framing.search, s.search);
    EXPECT_EQ(o.framing.synchronized_at_start, s.first_start.has_value());
    const decoder_config c(
        codebook::from_spec("builtin:ld3-modvec6"), channel_params(0.01, 0.01, 0.0), 10);
    EXPECT_EQ(o.decoding.Pr, c.Pr);
    const auto made = make_decoder_config(c.cb, 10, c.ch, o.decoding);
    EXPECT_EQ(made.backend, c.backend);
    EXPECT_EQ(made.precision, c.precision);
    EXPECT_EQ(made.storage, c.storage);
    EXPECT_EQ(made.Pr, c.Pr);
    EXPECT_EQ(made.cuda.devices, c.cuda.devices);
}

TEST(options, the_decoder_config_and_stream_options_come_from_the_objects)
{
    decoding_options d;
    d.backend = "cpu";
    d.precision = "double";
    d.storage = "local";
    d.Pr = 1e-6;
    d.devices = "0,1";
    const auto cfg = make_decoder_config(codebook::from_spec("builtin:ld3-modvec6"),
                                         12,
                                         channel_params(0.02, 0.01, 0.001),
                                         d);
    EXPECT_EQ(cfg.N, 12);
    EXPECT_EQ(cfg.ch.Pi(), 0.02);
    EXPECT_EQ(cfg.backend, backend_kind::cpu);
    EXPECT_EQ(cfg.precision, precision_kind::dual);
    EXPECT_EQ(cfg.storage, storage_kind::local);
    EXPECT_EQ(cfg.Pr, 1e-6);
    EXPECT_EQ(cfg.cuda.devices, (std::vector<int>{ 0, 1 }));
    for (const auto& bad : { "gpu", "" }) {
        decoding_options b;
        b.backend = bad;
        EXPECT_THROW(make_decoder_config(cfg.cb, 12, cfg.ch, b), std::invalid_argument);
    }

    framing_options f;
    f.lookahead = 3;
    f.acquire_window = 7;
    f.sync_threshold = 2.5;
    f.search = false;
    f.synchronized_at_start = false;
    auto s = make_stream_options(f, 16, input_kind::llr);
    EXPECT_EQ(s.lookahead, 3);
    EXPECT_EQ(s.acquire_window, 7);
    EXPECT_EQ(s.sync_threshold, 2.5);
    EXPECT_FALSE(s.search);
    EXPECT_FALSE(s.first_start.has_value());
    EXPECT_EQ(s.input, input_kind::llr);
    EXPECT_EQ(s.tag_offset, -16LL);
    f.tag_after_sync_word = false;
    f.synchronized_at_start = true;
    s = make_stream_options(f, 16, input_kind::bits);
    EXPECT_EQ(s.tag_offset, 0LL);
    EXPECT_TRUE(s.first_start.has_value());
    EXPECT_EQ(s.input, input_kind::bits);
}

namespace {

// a value of option e unlike the one in o
option_value other_value(const option_table<receiver_options>::entry& e,
                         const receiver_options& o)
{
    const option_value v = e.get(o);
    switch (e.type) {
    case option_type::flag:
        return !std::get<bool>(v);
    case option_type::integer:
        return std::get<long long>(v) + 3;
    case option_type::number:
        return std::get<double>(v) + 0.5;
    default:
        return std::get<std::string>(v) + "x";
    }
}

} // namespace

TEST(options, the_concatenated_decoder_takes_the_table_less_the_map_decoders_own)
{
    const auto& taken = concatenated_receiver_options();
    std::set<std::string> seen;
    for (const auto& name : taken) {
        EXPECT_TRUE(table().has(name)) << name;
        EXPECT_TRUE(seen.insert(name).second) << name << " twice";
    }
    std::set<std::string> left;
    for (const auto& e : table().entries())
        if (!seen.count(e.name))
            left.insert(e.name);
    const std::set<std::string> map_decoder_only = {
        "output",       "llr_scale", "llr_clip", "estimate_every", "priors_input",
        "max_delay_ms", "devices",   "reads",    "read_method"
    };
    EXPECT_EQ(left, map_decoder_only);
}

TEST(options, an_option_a_block_does_not_take_is_refused_unless_at_its_default)
{
    // the rule over every option: one left out of `taken` and moved off its
    // default is refused by name; at its default, or taken, it passes
    const receiver_options defaults;
    EXPECT_NO_THROW(refuse_options_not_taken(defaults, {}, "blk"));
    for (const auto& e : table().entries()) {
        receiver_options o;
        e.set(o, other_value(e, o));
        EXPECT_NO_THROW(refuse_options_not_taken(o, { e.name }, "blk")) << e.name;
        try {
            refuse_options_not_taken(o, {}, "blk");
            ADD_FAILURE() << e.name << " not refused";
        } catch (const std::invalid_argument& err) {
            EXPECT_EQ(std::string(err.what()),
                      "blk: " + e.name +
                          " is an option of bsid.map_decoder, not of this block");
        }
    }
    // the concatenated decoder's own options pass whatever their values
    receiver_options o;
    for (const auto& name : concatenated_receiver_options())
        table().set(o, name, other_value(table().find(name), o));
    EXPECT_NO_THROW(refuse_options_not_taken(o, concatenated_receiver_options(), "blk"));
}

TEST(options, types_are_named_as_each_language_spells_them)
{
    EXPECT_EQ(describe(option_type::flag), "a bool (true or false)");
    EXPECT_EQ(describe(option_type::flag, spelling::python), "a bool (True or False)");
    EXPECT_EQ(describe(option_type::number, spelling::python), "a number (float)");
    EXPECT_EQ(describe(option_type::integer, spelling::python), "an int");
    EXPECT_EQ(describe(option_type::text, spelling::python), "a string");
}
