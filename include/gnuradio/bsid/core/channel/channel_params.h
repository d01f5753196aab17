/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CHANNEL_PARAMS_H
#define INCLUDED_BSID_CORE_CHANNEL_PARAMS_H

#include <gnuradio/bsid/core/runtime/visibility.h>
#include <string>

namespace bsid {

/*!
 * \brief Parameters of the binary substitution, insertion and deletion (BSID)
 * channel (paper, section "Channel Model").
 *
 * At each time step one bit enters the channel. With probability Pi a random
 * bit is inserted and the channel stays at the same input bit; with
 * probability Pd the input bit is deleted; otherwise (Pt = 1 - Pi - Pd) it is
 * transmitted, and then flipped with probability Ps.
 *
 * Construction throws std::invalid_argument, naming the offending value, for
 * a negative or non-finite probability, Pi + Pd >= 1, or Ps > 1.
 */
class BSID_CORE_SHARED_TYPE channel_params
{
public:
    channel_params(double Pi, double Pd, double Ps);

    double Pi() const { return d_Pi; }
    double Pd() const { return d_Pd; }
    double Ps() const { return d_Ps; }
    //! Probability of transmission, 1 - Pi - Pd (always > 0).
    double Pt() const { return d_Pt; }

    //! "channel_params(Pi=..., Pd=..., Ps=...)", with round-trip precision.
    std::string repr() const;

    bool operator==(const channel_params& o) const
    {
        return d_Pi == o.d_Pi && d_Pd == o.d_Pd && d_Ps == o.d_Ps;
    }
    bool operator!=(const channel_params& o) const { return !(*this == o); }

private:
    double d_Pi, d_Pd, d_Ps, d_Pt;
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_PARAMS_H */
