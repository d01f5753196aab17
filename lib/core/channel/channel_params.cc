/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/format.h"
#include <gnuradio/bsid/core/channel/channel_params.h>
#include <cmath>
#include <stdexcept>

namespace bsid {

namespace {
void check_probability(const char* name, double p)
{
    if (!std::isfinite(p)) {
        throw std::invalid_argument(detail::concat("channel_params: ",
                                                   name,
                                                   " = ",
                                                   detail::fmt_double(p),
                                                   " is not a finite number"));
    }
    if (p < 0.0) {
        throw std::invalid_argument(detail::concat(
            "channel_params: ", name, " = ", detail::fmt_double(p), " is negative"));
    }
    if (p > 1.0) {
        throw std::invalid_argument(detail::concat("channel_params: ",
                                                   name,
                                                   " = ",
                                                   detail::fmt_double(p),
                                                   " is greater than 1"));
    }
}
} // namespace

channel_params::channel_params(double Pi, double Pd, double Ps)
    : d_Pi(Pi), d_Pd(Pd), d_Ps(Ps), d_Pt(1.0 - Pi - Pd)
{
    check_probability("Pi", Pi);
    check_probability("Pd", Pd);
    check_probability("Ps", Ps);
    // Pt must stay positive: with Pt = 0 no input bit is ever transmitted and
    // the channel (insertions forever, or deletions only) has no use.
    if (!(Pi + Pd < 1.0)) {
        throw std::invalid_argument(detail::concat("channel_params: Pi + Pd = ",
                                                   detail::fmt_double(Pi + Pd),
                                                   " (Pi = ",
                                                   detail::fmt_double(Pi),
                                                   ", Pd = ",
                                                   detail::fmt_double(Pd),
                                                   ") must be less than 1"));
    }
}

std::string channel_params::repr() const
{
    return detail::concat("channel_params(Pi=",
                          detail::fmt_double(d_Pi),
                          ", Pd=",
                          detail::fmt_double(d_Pd),
                          ", Ps=",
                          detail::fmt_double(d_Ps),
                          ")");
}

} // namespace bsid
