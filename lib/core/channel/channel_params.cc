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

void check_probability(const std::string& name, double p)
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

const std::vector<double>& no_matrix()
{
    static const std::vector<double> empty;
    return empty;
}

} // namespace

channel_params::channel_params(double Pi, double Pd, double Ps)
    : channel_params(Pi, Pd, Ps, 2)
{
}

channel_params::channel_params(
    double Pi, double Pd, double Ps, int alphabet, std::vector<double> substitution)
    : d_Pi(Pi), d_Pd(Pd), d_Ps(Ps), d_Pt(1.0 - Pi - Pd), d_alphabet(alphabet)
{
    check_probability("Pi", Pi);
    check_probability("Pd", Pd);
    check_probability("Ps", Ps);
    // Pt must stay positive: with Pt = 0 no input letter is ever transmitted
    // and the channel (insertions forever, or deletions only) has no use.
    if (!(Pi + Pd < 1.0)) {
        throw std::invalid_argument(detail::concat("channel_params: Pi + Pd = ",
                                                   detail::fmt_double(Pi + Pd),
                                                   " (Pi = ",
                                                   detail::fmt_double(Pi),
                                                   ", Pd = ",
                                                   detail::fmt_double(Pd),
                                                   ") must be less than 1"));
    }
    if (alphabet < 2 || alphabet > 256) {
        throw std::invalid_argument(detail::concat(
            "channel_params: alphabet = ", alphabet, " must be in [2, 256]"));
    }
    if (substitution.empty())
        return;
    const size_t A = size_t(alphabet);
    if (substitution.size() != A * A) {
        throw std::invalid_argument(
            detail::concat("channel_params: the substitution matrix has ",
                           substitution.size(),
                           " entries; alphabet = ",
                           alphabet,
                           " needs ",
                           A,
                           " x ",
                           A,
                           " = ",
                           A * A));
    }
    double off = 0;
    for (size_t x = 0; x < A; ++x) {
        double row = 0;
        for (size_t y = 0; y < A; ++y) {
            check_probability(detail::concat("substitution[", x, "][", y, "]"),
                              substitution[x * A + y]);
            row += substitution[x * A + y];
        }
        if (!(std::fabs(row - 1.0) <= 1e-9)) {
            throw std::invalid_argument(
                detail::concat("channel_params: row ",
                               x,
                               " of the substitution matrix sums to ",
                               detail::fmt_double(row),
                               ", not 1 (S[x][y] = P(received y | x transmitted))"));
        }
        off += 1.0 - substitution[x * A + x];
    }
    d_Ps = off / double(A);
    d_subst = std::make_shared<const std::vector<double>>(std::move(substitution));
}

const std::vector<double>& channel_params::substitution() const
{
    return d_subst ? *d_subst : no_matrix();
}

channel_params channel_params::with_rates(double Pi, double Pd, double Ps) const
{
    if (d_subst)
        return channel_params(Pi, Pd, 0, d_alphabet, *d_subst);
    return channel_params(Pi, Pd, Ps, d_alphabet);
}

bool channel_params::operator==(const channel_params& o) const
{
    if (d_Pi != o.d_Pi || d_Pd != o.d_Pd || d_alphabet != o.d_alphabet ||
        bool(d_subst) != bool(o.d_subst))
        return false;
    return d_subst ? *d_subst == *o.d_subst : d_Ps == o.d_Ps;
}

std::string channel_params::repr() const
{
    std::string s = detail::concat("channel_params(Pi=",
                                   detail::fmt_double(d_Pi),
                                   ", Pd=",
                                   detail::fmt_double(d_Pd),
                                   ", Ps=",
                                   detail::fmt_double(d_Ps));
    if (d_alphabet != 2 || d_subst)
        s += detail::concat(", alphabet=", d_alphabet);
    if (d_subst) {
        const size_t A = size_t(d_alphabet);
        s += ", substitution=[";
        for (size_t x = 0; x < A; ++x) {
            s += x ? ", [" : "[";
            for (size_t y = 0; y < A; ++y)
                s += (y ? ", " : "") + detail::fmt_double((*d_subst)[x * A + y]);
            s += "]";
        }
        s += "]";
    }
    return s + ")";
}

} // namespace bsid
