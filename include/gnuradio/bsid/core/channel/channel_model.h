/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_BSID_CORE_CHANNEL_MODEL_H
#define INCLUDED_BSID_CORE_CHANNEL_MODEL_H

/*
 * The channel model the decoder's math is written over (docs/design.md,
 * "Adding a channel model"): a compile-time policy, the second parameter of
 * lattice_weights (inner/model.h), so that the lattice cells and the kernels
 * see only numbers and no call is virtual. This header compiles as plain C++
 * and under nvcc (host and device).
 *
 * A channel model is a struct with
 *   - alphabet_size: the letters a transmitted or received item takes
 *     (0 .. alphabet_size - 1);
 *   - random_letter: the weight of one random letter, 1 / alphabet_size
 *     (an inserted letter; a received letter weighed against chance);
 *   - exact(ch) and ratio(ch): the step weights (step_weights) from the
 *     channel's parameters, in double: the probabilities, and the form the
 *     decoders use (each received letter weighed against a random one, each
 *     transmitted letter divided by Pt; lattice_weights explains why);
 *   - emission(match, mismatch, x, y): the weight of a transmission of
 *     letter x received as y, from the two diagonal weights.
 */

#include <gnuradio/bsid/core/channel/channel_params.h>
#include <gnuradio/bsid/core/runtime/host_device.h>

namespace bsid {

//! A channel model's step weights in double (lattice_weights converts them).
struct step_weights {
    double ins;      //!< horizontal step: an insertion of a random letter
    double del;      //!< vertical step: a deletion
    double match;    //!< diagonal step, the letter received as sent
    double mismatch; //!< diagonal step, the letter received as a given other one
};

/*!
 * \brief The binary BSID channel (channel_params; paper, section "Channel
 * Model"): bits, an insertion of a random bit (Pi), a deletion (Pd), or a
 * transmission (Pt = 1 - Pi - Pd) flipped with probability Ps.
 */
struct binary_bsid_model {
    static constexpr int alphabet_size = 2;
    static constexpr double random_letter = 0.5; //!< 1 / alphabet_size

    //! ins = Pi / 2, del = Pd, match = Pt (1 - Ps), mismatch = Pt Ps.
    static step_weights exact(const channel_params& ch)
    {
        return {
            ch.Pi() * random_letter, ch.Pd(), ch.Pt() * (1 - ch.Ps()), ch.Pt() * ch.Ps()
        };
    }
    //! ins = Pi, del = Pd / Pt, match = 2 (1 - Ps), mismatch = 2 Ps.
    static step_weights ratio(const channel_params& ch)
    {
        return { ch.Pi(),
                 ch.Pd() / ch.Pt(),
                 alphabet_size * (1 - ch.Ps()),
                 alphabet_size * ch.Ps() };
    }

    //! Bit x received as bit y.
    template <typename real>
    static BSID_HD real emission(real match, real mismatch, unsigned x, unsigned y)
    {
        return x == y ? match : mismatch;
    }
};

} // namespace bsid

#endif /* INCLUDED_BSID_CORE_CHANNEL_MODEL_H */
