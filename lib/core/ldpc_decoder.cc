/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * Belief propagation over GF(q), q = 2^m (docs/concatenated.md, "Belief
 * propagation").
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

#include "format.h"
#include <gnuradio/bsid/core/ldpc_decoder.h>
#include <gnuradio/bsid/core/map_decoder.h> // resolve_threads
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>

namespace bsid {

namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

// e^-700: the floor of a check message relative to its largest value (well
// above the smallest normal double, about e^-708).
const double floor_ratio = std::exp(-700.0);

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

//! out = row - logsumexp(row), for q values (uniform if all are -infinity).
void normalize_lse(const double* row, int q, double* out)
{
    double mx = neg_inf;
    for (int x = 0; x < q; ++x) {
        mx = std::max(mx, row[x]);
    }
    if (mx == neg_inf) {
        const double u = -std::log(double(q));
        std::fill(out, out + q, u);
        return;
    }
    double s = 0.0;
    for (int x = 0; x < q; ++x) {
        s += std::exp(row[x] - mx);
    }
    // (row - mx) - log s, not row - (mx + log s): with |mx| near 1e308 the
    // sum would lose log s entirely
    const double ls = std::log(s);
    for (int x = 0; x < q; ++x) {
        out[x] = (row[x] - mx) - ls;
    }
}

//! row -= max(row); all 0 (uniform) if the row is all -infinity.
void subtract_max(double* row, int q)
{
    double mx = neg_inf;
    for (int x = 0; x < q; ++x) {
        mx = std::max(mx, row[x]);
    }
    if (mx == neg_inf) {
        std::fill(row, row + q, 0.0);
        return;
    }
    for (int x = 0; x < q; ++x) {
        row[x] -= mx;
    }
}

//! Hard decisions of n rows of q values: the largest, ties to the lowest.
void decide(const double* rows, int n, int q, int32_t* dec)
{
    for (int i = 0; i < n; ++i) {
        const double* r = rows + size_t(i) * size_t(q);
        int best = 0;
        for (int x = 1; x < q; ++x) {
            if (r[x] > r[best]) {
                best = x;
            }
        }
        dec[i] = best;
    }
}

//! Every check node: c2v from v2c.
void check_nodes(const ldpc_code& code,
                 const std::vector<std::vector<int32_t>>& perm,
                 workspace& w)
{
    const int q = code.q();
    const size_t qs = size_t(q);
    const auto& ent = code.entries();
    const auto& rs = code.row_start();
    const double inv_q = 1.0 / double(q);
    for (int r = 0; r < code.M(); ++r) {
        const int e0 = rs[size_t(r)];
        const int d = rs[size_t(r) + 1] - e0;
        // forward: the transform of each edge's distribution of h_j x_j
        for (int j = 0; j < d; ++j) {
            const size_t e = size_t(e0 + j);
            const double* u = &w.v2c[e * qs];
            const int32_t* pm = perm[size_t(ent[e].coef)].data();
            double* F = &w.fwd[size_t(j) * qs];
            double mx = neg_inf;
            for (int x = 0; x < q; ++x) {
                mx = std::max(mx, u[x]);
            }
            double s = 0.0;
            if (mx == neg_inf) { // not reached for validated input
                for (int x = 0; x < q; ++x) {
                    F[x] = 1.0;
                }
                s = double(q);
            } else {
                for (int x = 0; x < q; ++x) {
                    const double p = std::exp(u[x] - mx);
                    F[pm[x]] = p;
                    s += p;
                }
            }
            const double is = 1.0 / s;
            for (int y = 0; y < q; ++y) {
                F[y] *= is;
            }
            walsh_hadamard(F, q);
        }
        // suffix products: suffix[j] = prod over j' >= j of F_j'
        double* suf = w.suffix.data();
        std::fill(suf + size_t(d) * qs, suf + size_t(d + 1) * qs, 1.0);
        for (int j = d - 1; j >= 0; --j) {
            const double* F = &w.fwd[size_t(j) * qs];
            const double* nx = suf + size_t(j + 1) * qs;
            double* cur = suf + size_t(j) * qs;
            for (int y = 0; y < q; ++y) {
                cur[y] = F[y] * nx[y];
            }
        }
        // each edge: prefix times suffix, back transformed, permuted back
        double* pre = w.prefix.data();
        std::fill(pre, pre + qs, 1.0);
        for (int j = 0; j < d; ++j) {
            const size_t e = size_t(e0 + j);
            const double* nx = suf + size_t(j + 1) * qs;
            double* S = w.tmp.data();
            for (int y = 0; y < q; ++y) {
                S[y] = pre[y] * nx[y];
            }
            walsh_hadamard(S, q);
            double mx = 0.0;
            for (int y = 0; y < q; ++y) {
                S[y] *= inv_q;
                mx = std::max(mx, S[y]);
            }
            // S sums to 1, so mx >= 1/q up to rounding; the floor keeps every
            // value positive and at most 700 below the largest in the log
            const double fl = mx * floor_ratio;
            const int32_t* pm = perm[size_t(ent[e].coef)].data();
            double* out = &w.c2v[e * qs];
            for (int x = 0; x < q; ++x) {
                out[x] = std::log(std::max(S[pm[x]], fl));
            }
            const double* F = &w.fwd[size_t(j) * qs];
            for (int y = 0; y < q; ++y) {
                pre[y] *= F[y];
            }
        }
    }
}

//! Every variable node: the posterior and v2c from c2v.
void variable_nodes(const ldpc_code& code, const double* in, workspace& w)
{
    const int q = code.q();
    const size_t qs = size_t(q);
    const auto& cs = code.col_start();
    const auto& ce = code.col_entries();
    for (int v = 0; v < code.n(); ++v) {
        const double* iv = in + size_t(v) * qs;
        const int k0 = cs[size_t(v)];
        const int k1 = cs[size_t(v) + 1];
        double* post = &w.posterior[size_t(v) * qs];
        for (int x = 0; x < q; ++x) {
            post[x] = iv[x];
        }
        for (int k = k0; k < k1; ++k) {
            const double* m = &w.c2v[size_t(ce[size_t(k)]) * qs];
            for (int x = 0; x < q; ++x) {
                post[x] += m[x];
            }
        }
        for (int k = k0; k < k1; ++k) {
            double* out = &w.v2c[size_t(ce[size_t(k)]) * qs];
            for (int x = 0; x < q; ++x) {
                out[x] = iv[x];
            }
            for (int l = k0; l < k1; ++l) {
                if (l == k) {
                    continue;
                }
                const double* m = &w.c2v[size_t(ce[size_t(l)]) * qs];
                for (int x = 0; x < q; ++x) {
                    out[x] += m[x];
                }
            }
            subtract_max(out, q);
        }
    }
}

//! One word, input already validated.
bp_result run_bp(const ldpc_code& code,
                 const std::vector<std::vector<int32_t>>& perm,
                 const double* in,
                 int max_iterations,
                 double* post,
                 double* ext,
                 int32_t* decisions)
{
    const int n = code.n();
    const int q = code.q();
    const size_t qs = size_t(q);
    const auto& cs = code.col_start();
    const auto& ce = code.col_entries();
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
                normalize_lse(in + o, q, post + o);
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
    for (int v = 0; v < n; ++v) {
        const double* iv = in + size_t(v) * qs;
        for (int k = cs[size_t(v)]; k < cs[size_t(v) + 1]; ++k) {
            double* out = &w.v2c[size_t(ce[size_t(k)]) * qs];
            std::copy(iv, iv + qs, out);
            subtract_max(out, q);
        }
    }

    for (int it = 1; it <= max_iterations; ++it) {
        check_nodes(code, perm, w);
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
            normalize_lse(&w.posterior[o], q, post + o);
        }
        if (ext) {
            // the sum of the incoming check messages (tmp as scratch)
            double* s = w.tmp.data();
            std::fill(s, s + qs, 0.0);
            for (int k = cs[size_t(v)]; k < cs[size_t(v) + 1]; ++k) {
                const double* m = &w.c2v[size_t(ce[size_t(k)]) * qs];
                for (int x = 0; x < q; ++x) {
                    s[x] += m[x];
                }
            }
            normalize_lse(s, q, ext + o);
        }
    }
    if (decisions) {
        std::copy(w.dec.begin(), w.dec.end(), decisions);
    }
    return res;
}

void check_iterations(int max_iterations)
{
    if (max_iterations < 1) {
        throw std::invalid_argument(detail::concat(
            "ldpc_decoder: max_iterations = ", max_iterations, " must be >= 1"));
    }
}

} // namespace

ldpc_decoder::ldpc_decoder(const ldpc_code& code, int threads)
    : d_code(code), d_threads(resolve_threads(threads))
{
    const int q = code.q();
    const galois_field& gf = code.field();
    d_perm.assign(size_t(q), std::vector<int32_t>(size_t(q), 0));
    for (int c = 1; c < q; ++c) {
        for (int x = 0; x < q; ++x) {
            d_perm[size_t(c)][size_t(x)] = int32_t(gf.mul(c, x));
        }
    }
}

void ldpc_decoder::validate(const double* in) const
{
    if (!in) {
        throw std::invalid_argument("ldpc_decoder: null input");
    }
    const int q = d_code.q();
    for (int v = 0; v < d_code.n(); ++v) {
        const double* r = in + size_t(v) * size_t(q);
        bool any = false;
        for (int x = 0; x < q; ++x) {
            if (std::isnan(r[x])) {
                throw std::invalid_argument(detail::concat(
                    "ldpc_decoder: input row ", v, " has a NaN (symbol value ", x, ")"));
            }
            if (r[x] == std::numeric_limits<double>::infinity()) {
                throw std::invalid_argument(
                    detail::concat("ldpc_decoder: input row ",
                                   v,
                                   " has +infinity (symbol value ",
                                   x,
                                   "); log-probabilities must be finite or -infinity"));
            }
            any = any || r[x] != neg_inf;
        }
        if (!any) {
            throw std::invalid_argument(
                detail::concat("ldpc_decoder: input row ",
                               v,
                               " is all -infinity (every symbol value impossible)"));
        }
    }
}

bp_result ldpc_decoder::decode(const double* in,
                               int max_iterations,
                               double* post,
                               double* ext,
                               int32_t* decisions) const
{
    check_iterations(max_iterations);
    validate(in);
    return run_bp(d_code, d_perm, in, max_iterations, post, ext, decisions);
}

std::vector<bp_result>
ldpc_decoder::decode_batch(const std::vector<const double*>& in,
                           int max_iterations,
                           const std::vector<double*>& post,
                           const std::vector<double*>& ext,
                           const std::vector<int32_t*>& decisions) const
{
    check_iterations(max_iterations);
    const size_t W = in.size();
    auto check_size = [W](size_t s, const char* name) {
        if (s != 0 && s != W) {
            throw std::invalid_argument(detail::concat("ldpc_decoder::decode_batch: ",
                                                       name,
                                                       " has ",
                                                       s,
                                                       " pointers for ",
                                                       W,
                                                       " words (0 or one per word)"));
        }
    };
    check_size(post.size(), "post");
    check_size(ext.size(), "ext");
    check_size(decisions.size(), "decisions");
    for (size_t j = 0; j < W; ++j) {
        try {
            validate(in[j]);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(
                detail::concat("ldpc_decoder::decode_batch: word ", j, ": ", e.what()));
        }
    }

    std::vector<bp_result> res(W);
    std::exception_ptr err;
    const long long Wl = (long long)W;
    const int T = int(std::max<long long>(1, std::min<long long>(d_threads, Wl)));
#pragma omp parallel for num_threads(T) schedule(dynamic)
    for (long long j = 0; j < Wl; ++j) {
        try {
            const size_t i = size_t(j);
            res[i] = run_bp(d_code,
                            d_perm,
                            in[i],
                            max_iterations,
                            post.empty() ? nullptr : post[i],
                            ext.empty() ? nullptr : ext[i],
                            decisions.empty() ? nullptr : decisions[i]);
        } catch (...) { // e.g. bad_alloc: kept, rethrown outside the region
#pragma omp critical(bsid_ldpc_decoder_error)
            if (!err) {
                err = std::current_exception();
            }
        }
    }
    if (err) {
        std::rethrow_exception(err);
    }
    return res;
}

} // namespace bsid
