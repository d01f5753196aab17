/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The command lines' reader of argv (command_line.h): options with values
// and flags, in their order, and the command lines it refuses.

#include <gnuradio/bsid/core/options/command_line.h>
#include <gnuradio/bsid/core/options/receiver_options.h>
#include <gtest/gtest.h>

using namespace bsid;

namespace {

const std::vector<command_line_option> options = {
    { "--codebook" },         { "-N" },           { "--Pi" },
    { "--sync-word" },        { "--tag-offset" }, { "--no-search", false },
    { "--boundaries", false }
};

command_line read(std::vector<const char*> args)
{
    args.insert(args.begin(), "app");
    return read_command_line(int(args.size()), args.data(), options);
}

std::string refusal(std::vector<const char*> args)
{
    try {
        read(std::move(args));
    } catch (const command_line_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(command_line, options_are_read_with_their_values_in_order)
{
    const auto cl = read({ "-N",
                           "20",
                           "--no-search",
                           "--sync-word=0110",
                           "--tag-offset",
                           "-16",
                           "--codebook=file:a=b" });
    const std::vector<std::pair<std::string, std::string>> expect = {
        { "-N", "20" },
        { "--no-search", "" },
        { "--sync-word", "0110" },
        { "--tag-offset", "-16" },
        { "--codebook", "file:a=b" }
    };
    EXPECT_EQ(cl.given, expect);
    EXPECT_FALSE(cl.help);
    EXPECT_TRUE(cl.has("--no-search"));
    EXPECT_FALSE(cl.has("--boundaries"));
    EXPECT_EQ(cl.value("-N"), "20");
    EXPECT_EQ(cl.value("--Pi", "0.01"), "0.01");
    EXPECT_EQ(cl.values().at("--tag-offset"), "-16");
    EXPECT_EQ(cl.values().size(), 5u);
}

TEST(command_line, an_empty_value_is_a_value)
{
    const auto cl = read({ "--sync-word=", "--Pi", "" });
    EXPECT_EQ(cl.value("--sync-word", "x"), "");
    EXPECT_EQ(cl.value("--Pi", "x"), "");
}

TEST(command_line, help_stops_the_reading)
{
    EXPECT_TRUE(read({ "-h" }).help);
    const auto cl = read({ "-N", "3", "--help", "--bogus" });
    EXPECT_TRUE(cl.help);
    EXPECT_EQ(cl.value("-N"), "3");
    EXPECT_TRUE(read({}).given.empty());
}

TEST(command_line, an_unknown_option_is_refused_naming_the_one_meant)
{
    EXPECT_EQ(refusal({ "--bogus", "1" }), "unknown argument '--bogus'");
    EXPECT_EQ(refusal({ "--sync_word", "01" }),
              "unknown argument '--sync_word' (did you mean --sync-word?)");
    EXPECT_EQ(refusal({ "--pi=0.1" }), "unknown argument '--pi' (did you mean --Pi?)");
    EXPECT_EQ(refusal({ "20" }), "unknown argument '20'");
    EXPECT_EQ(refusal({ "" }), "unknown argument ''");
}

TEST(command_line, a_missing_value_a_value_to_a_flag_and_a_repeat_are_refused)
{
    EXPECT_EQ(refusal({ "--Pi", "0.1", "-N" }), "option -N needs a value");
    EXPECT_EQ(refusal({ "--boundaries=yes" }), "option --boundaries takes no value");
    EXPECT_EQ(refusal({ "--Pi", "0.1", "--Pi=0.2" }), "option --Pi is given twice");
    EXPECT_EQ(refusal({ "--no-search", "--no-search" }),
              "option --no-search is given twice");
    // a refusal is an invalid_argument, as the tables' errors are
    EXPECT_THROW(read({ "--x" }), std::invalid_argument);
}

TEST(command_line, names_map_to_the_tables_names)
{
    EXPECT_EQ(table_name("--sync-word"), "sync_word");
    EXPECT_EQ(table_name("--acquire-window"), "acquire_window");
    EXPECT_EQ(table_name("--Pr"), "Pr");
    EXPECT_EQ(table_name("-N"), "N");
    // the command lines' shared options are the receiver table's
    for (const char* n : { "--backend",
                           "--precision",
                           "--storage",
                           "--Pr",
                           "--sync-word",
                           "--lookahead",
                           "--acquire-window",
                           "--sync-threshold",
                           "--input" })
        EXPECT_TRUE(receiver_option_table().has(table_name(n))) << n;
}

TEST(command_line, given_text_reads_into_the_receivers_options)
{
    const auto cl = read({ "--sync-word", "0110", "--Pi", "0.1" });
    receiver_options o;
    for (const auto& [name, text] : cl.given)
        if (receiver_option_table().has(table_name(name)))
            receiver_option_table().read(o, table_name(name), text);
    EXPECT_EQ(o.framing.sync_word, "0110");
    EXPECT_EQ(o.decoding.Pr, 1e-10); // --Pi is not the table's
}
