/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * The CPU backend of belief propagation over GF(q), q = 2^m (docs/concatenated.md,
 * "Belief propagation").
 *
 * Messages live on the edges of the Tanner graph, one per nonzero entry of H
 * (indexed like ldpc_code::entries()), q doubles each, all in the log domain:
 *  - v2c[e]: variable to check, normalized so that its largest entry is 0;
 *  - c2v[e]: check to variable, the log of a probability vector (never
 *    -infinity, thanks to the floor below).
 *
 * Initialization: v2c[e] = the input row of the edge's variable (less its
 * maximum). Before any iteration, the hard decisions of the input itself are
 * checked: if they already form a codeword, the decoder stops with 0
 * iterations (posterior = the input, extrinsic = uniform).
 *
 * One iteration (flooding schedule) = every check node, then every variable
 * node, then the hard decisions; the decoder stops as soon as they form a
 * codeword.
 *
 * Check node, row r with edges e_1 .. e_d (coefficients h_j, variables v_j):
 * the constraint is sum_j h_j x_j = 0 in GF(2^m), where addition is XOR. For
 * each edge, p_j(x) = exp(u_j(x) - max u_j) from the incoming log message u_j;
 * P_j(y) = p_j(x) at y = h_j x is the distribution of y_j = h_j x_j (the
 * multiplication by h_j != 0 is a permutation, table d_perm); P_j is
 * normalized to sum 1 and Walsh-Hadamard transformed, which turns the XOR
 * convolution into a product. For each j, the product of the other edges'
 * transforms (prefix and suffix products, never a division, so that a zero
 * transform coefficient does no harm), transformed back (the same transform,
 * then / q), is the distribution S_j of the XOR of the other y's; the
 * constraint says y_j equals it (characteristic 2), so the message to v_j is
 * c2v_j(x) = S_j(h_j x). Rounding may leave values slightly negative or
 * meaninglessly small: every value below e^-700 times the message's largest
 * is set to exactly that (the floor), then the log is taken; so rounding never
 * makes a symbol impossible, and no message is ever -infinity. A check of
 * degree 1 (x = 0 only) needs no special case: the empty product is all ones,
 * whose inverse transform is the point mass at 0, floored elsewhere.
 *
 * Variable node, column v with edges c_1 .. c_w: the posterior is
 * in(x) + sum_k c2v[c_k](x); the message to c_k is in(x) + sum over l != k of
 * c2v[c_l](x), summed directly without the own term (never "total minus own":
 * with -infinity entries that is -inf - -inf = NaN), then less its maximum.
 * Since check messages are finite, a message's maximum is -infinity only if
 * its input row is all -infinity, which validate() refuses; that case would
 * still give a uniform message (all 0) rather than NaNs.
 *
 * Outputs: the posterior and the extrinsic (the sum of every incoming check
 * message, without the input), each normalized by log-sum-exp; the hard
 * decisions are the largest posterior, ties to the lowest symbol.
 */

#include "runtime/parallel_loop.h"
#include <gnuradio/bsid/core/outer/bp_math.h>
#include <gnuradio/bsid/core/outer/ldpc_decoder.h>
#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>

namespace bsid {

namespace {

//! Per-call memory of one decoding (no allocation inside the iterations).
struct workspace {
    std::vector<double> v2c, c2v;  // E q each
    std::vector<double> posterior; // n q
    std::vector<double> fwd;       // d_max q: each edge's transform
    std::vector<double> suffix;    // (d_max + 1) q: suffix products
    std::vector<double> prefix;    // q: running prefix product
    std::vector<double> tmp;       // q
    std::vector<int32_t> dec;      // n

    workspace(const ldpc_code& code)
    {
        const size_t q = size_t(code.q());
        const size_t E = code.entries().size();
        const auto& rs = code.row_start();
        size_t dmax = 0;
        for (int r = 0; r < code.M(); ++r) {
            dmax = std::max(dmax, size_t(rs[size_t(r) + 1] - rs[size_t(r)]));
        }
        v2c.resize(E * q);
        c2v.resize(E * q);
        posterior.resize(size_t(code.n()) * q);
        fwd.resize(dmax * q);
        suffix.resize((dmax + 1) * q);
        prefix.resize(q);
        tmp.resize(q);
        dec.resize(size_t(code.n()));
    }
};

//! Hard decisions of n rows of q values: the largest, ties to the lowest.
void decide(const double* rows, int n, int q, int32_t* dec)
{
    for (int i = 0; i < n; ++i)
        dec[i] = bp::decide(rows + size_t(i) * size_t(q), q);
}

//! Every check node: c2v from v2c (bp::check_node).
void check_nodes(const ldpc_code& code,
                 const std::vector<int32_t>& perm,
                 const std::vector<int32_t>& coef,
                 workspace& w)
{
    const auto& rs = code.row_start();
    for (int r = 0; r < code.M(); ++r) {
        bp::check_node(rs[size_t(r)],
                       rs[size_t(r) + 1] - rs[size_t(r)],
                       code.q(),
                       w.v2c.data(),
                       w.c2v.data(),
                       perm.data(),
                       coef.data(),
                       w.fwd.data(),
                       w.suffix.data(),
                       w.prefix.data(),
                       w.tmp.data());
    }
}

//! Every variable node: the posterior and v2c from c2v (bp::variable_node).
void variable_nodes(const ldpc_code& code, const double* in, workspace& w)
{
    for (int v = 0; v < code.n(); ++v) {
        bp::variable_node(v,
                          code.q(),
                          in,
                          code.col_start().data(),
                          code.col_entries().data(),
                          w.c2v.data(),
                          w.v2c.data(),
                          w.posterior.data());
    }
}

//! One word, input already validated.
bp_result run_bp(const ldpc_code& code,
                 const std::vector<int32_t>& perm,
                 const std::vector<int32_t>& coef,
                 const double* in,
                 int max_iterations,
                 double* post,
                 double* ext,
                 int32_t* decisions)
{
    const int n = code.n();
    const int q = code.q();
    const size_t qs = size_t(q);
    const int32_t* cs = code.col_start().data();
    const int32_t* ce = code.col_entries().data();
    workspace w(code);
    bp_result res;

    // iteration 0: the input's own hard decisions
    decide(in, n, q, w.dec.data());
    if (code.is_codeword(w.dec.data())) {
        res.iterations = 0;
        res.syndrome_ok = true;
        for (int v = 0; v < n; ++v) {
            const size_t o = size_t(v) * qs;
            if (post) {
                bp::normalize_lse(in + o, q, post + o);
            }
            if (ext) {
                std::fill(ext + o, ext + o + qs, -std::log(double(q)));
            }
        }
        if (decisions) {
            std::copy(w.dec.begin(), w.dec.end(), decisions);
        }
        return res;
    }

    // v2c = the input rows, less their maxima
    for (int v = 0; v < n; ++v)
        bp::init_variable(v, q, in, cs, ce, w.v2c.data());

    for (int it = 1; it <= max_iterations; ++it) {
        check_nodes(code, perm, coef, w);
        variable_nodes(code, in, w);
        decide(w.posterior.data(), n, q, w.dec.data());
        res.iterations = it;
        if (code.is_codeword(w.dec.data())) {
            res.syndrome_ok = true;
            break;
        }
    }

    for (int v = 0; v < n; ++v) {
        const size_t o = size_t(v) * qs;
        if (post) {
            bp::normalize_lse(&w.posterior[o], q, post + o);
        }
        if (ext) {
            // the sum of the incoming check messages (tmp as scratch)
            bp::variable_extrinsic(v, q, cs, ce, w.c2v.data(), w.tmp.data(), ext);
        }
    }
    if (decisions) {
        std::copy(w.dec.begin(), w.dec.end(), decisions);
    }
    return res;
}

class ldpc_decoder_cpu : public ldpc_decoder
{
public:
    ldpc_decoder_cpu(const ldpc_code& code, const bp_config& cfg)
        : ldpc_decoder(code, cfg), d_threads(resolve_threads(cfg.threads))
    {
    }

    backend_kind backend() const override { return backend_kind::cpu; }

    std::vector<bp_result> decode_batch(const std::vector<const double*>& in,
                                        int max_iterations,
                                        const std::vector<double*>& post,
                                        const std::vector<double*>& ext,
                                        const std::vector<int32_t*>& decisions) override
    {
        check_batch(in, max_iterations, post, ext, decisions);
        const size_t W = in.size();
        std::vector<bp_result> res(W);
        std::exception_ptr err;
        std::mutex err_mutex;
        const int T = int(std::max<size_t>(1, std::min<size_t>(size_t(d_threads), W)));
        detail::parallel_loop::shared().run(T, W, [&](size_t i, int) {
            try {
                res[i] = run_bp(d_code,
                                d_perm,
                                d_coef,
                                in[i],
                                max_iterations,
                                post.empty() ? nullptr : post[i],
                                ext.empty() ? nullptr : ext[i],
                                decisions.empty() ? nullptr : decisions[i]);
            } catch (...) { // e.g. bad_alloc: kept, rethrown after the loop
                std::lock_guard<std::mutex> lock(err_mutex);
                if (!err)
                    err = std::current_exception();
            }
        });
        if (err) {
            std::rethrow_exception(err);
        }
        return res;
    }

private:
    int d_threads;
};

} // namespace

std::unique_ptr<ldpc_decoder> make_ldpc_decoder_cpu(const ldpc_code& code,
                                                    const bp_config& cfg)
{
    return std::make_unique<ldpc_decoder_cpu>(code, cfg);
}

} // namespace bsid
