/* -*- c++ -*- */
/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// bsid_decode: MAP-decodes frames captured elsewhere. The format is fixed,
// because external scripts depend on it (docs/bsid_decode.md):
//
//   bsid_decode --codebook SPEC -N 50 --Pi 0.01 --Pd 0.01 --Ps 0
//               [--backend cpu|cuda|auto] [--precision float|double]
//               [--storage global|local|auto] [--Pr 1e-10] [--mtau LO:HI]
//               [--mn LO:HI] [--priors FILE | --log-priors FILE] [--threads T]
//               < frames.txt > posteriors.txt
//   bsid_decode ... --framing stream [--start-tags FILE] ... < stream.txt
//   bsid_decode ... --estimate [--iterations I] < frames.txt > estimate.json
//
// In: one frame per line, the characters 0 and 1 (an empty line is an empty
// frame), or with --input llr the frame's LLRs as numbers. Out: one line per frame, N*q
// numbers in %.17g separated by spaces, symbol-major; a refused frame prints "erasure
// <reason>". Exit status 0 unless the arguments or files are invalid.
#include "bsid_decode_parts.h"

namespace {

using namespace bsid_decode;

const char* usage =
    R"(usage: bsid_decode --codebook SPEC -N N --Pi P --Pd P --Ps P [options] < frames.txt

Decodes received frames with the MAP decoder and prints symbol posteriors.

Required:
  --codebook SPEC   builtin:NAME, file:PATH (or a path), random:n:q:P:seed, sparse:n:q
  -N N              message symbols per frame
  --Pi, --Pd, --Ps  channel probabilities

Options:
  --alphabet A      the channel's letters, 2 (bits, the default) to 256
                    (docs/design.md, "Letters"): frames are lines of letters,
                    for four "ACGT..." (or "0123..."), up to ten digits, any
                    alphabet integers separated by spaces or commas; the code
                    (random: and sparse: specs, or a file of that alphabet)
                    and the sync word are over the same letters
  --backend B       cpu | cuda | auto (default auto)
  --precision P     float | double (default float)
  --storage S       global | local | auto (default auto)
  --Pr X            drift exclusion probability (default 1e-10)
  --mtau LO:HI      explicit limits for the drift at codeword boundaries
  --mn LO:HI        explicit limits for the drift within a codeword
  --priors FILE     one line of N*q prior probabilities per frame, or one line for all
  --log-priors FILE the same as natural logs (any constant per symbol; -inf: a zero prior)
  --threads T       threads (default 0: all cores)
  --batch K         frames decoded together (default 256)
  --input I         bits (default): 0s and 1s (letters); llr: soft input, LLRs
                    ln p(r|1) - ln p(r|0) as numbers separated by spaces
                    (inf and -inf are hard bits; nan makes the frame an erasure);
                    logprob (--alphabet > 2): A log-probabilities per item,
                    ln p(r|y) for y = 0 .. A-1, numbers separated by spaces
  --log-level L     debug | info | warning | error | off: the log on stderr
                    (default warning, or the BSID_LOG_LEVEL environment
                    variable's); warnings include a setup that does not fit
                    the frames (docs/receiving.md)

Frame boundaries (docs/frame_boundaries.md):
  --sync-word W     the word (0s and 1s; letters: "ACGT...", digits, or
                    comma-separated integers) that begins every frame
  --start-prior F   start priors: one line per frame, or one line for all, of
                    POSITION:WEIGHT pairs (default: every frame starts at 0)
  --end E           known (default: the frame ends with its line) | free
  --lookahead K     with --end free: the next frame's first K symbols follow
  --boundaries      after each frame, print its start, end and forward end
                    posteriors (lines "start", "end", "forward" of POS:P pairs)

Channel estimation (docs/receiving.md, "Channel estimation"):
  --estimate        instead of decoding, estimate Pi, Pd, Ps (and for --input
                    llr or logprob the items' scale) from all the frames by EM,
                    starting at --Pi, --Pd, --Ps; prints one JSON line: Pi, Pd,
                    Ps, alphabet, llr_scale, iterations, converged,
                    frames_used, frames_refused, log_likelihoods, events,
                    notes (and substitution, substitution_counts with a
                    matrix). Frames are lines (with --sync-word, each begins
                    with it), or with --framing stream one stream decoded
                    frame after frame from position 0 at each iteration
                    (--lookahead applies)
  --iterations I    at most I EM iterations (default 100)
  --tolerance X     stop when no estimate moves by more than X, relative
                    (default 1e-4)
  --fix NAMES       keep these at their initial values: a comma list of Pi,
                    Pd, Ps, llr_scale
  --llr-scale C     the initial LLR scale (default 1)
  --substitution-matrix
                    over --alphabet > 2: estimate the full A x A substitution
                    matrix (P(received y | sent x)) instead of one Ps

Stream framing (docs/receiving.md, docs/bsid_decode.md):
  --framing F       lines (default): one frame per line, as above; stream: the
                    input is one continuous stream of 0s and 1s (line breaks and
                    spaces are ignored), decoded frame after frame
  --lookahead K     the next frame's symbols weighed after each frame (default:
                    0 with a sync word, 2 without)
  --start POS       the first frame's first bit (default 0)
  --unsynchronized  acquire the first frame (at a start tag or by search)
  --start-tags FILE bit positions of start tags (whitespace separated)
  --tag-offset D    a frame starts at its tag + D (default -G: tags on the bit
                    after the sync word)
  --acquire-window W  half width in bits of the start prior at a tag (default 4)
  --sync-threshold T  the least log-likelihood ratio of a frame in sync (default 0)
  --no-search       re-acquire only at start tags
  --boundaries      after each frame's line, a line "frame INDEX STATUS START END
                    START_DRIFT END_DRIFT END_PROBABILITY LOG_LIKELIHOOD_RATIO"

Input (stdin): one frame per line, as the characters 0 and 1 (with --input llr,
as numbers separated by spaces); an empty line is an empty frame. Output (stdout): one line per frame, N*q numbers (%.17g,
symbol-major: the q values of symbol 0, then symbol 1, ...), or
"erasure <reason>" for a refused frame.
)";

// bsid_decode's options, as typed; those without a value are flags.
const std::vector<bsid::command_line_option> options = { { "--codebook" },
                                                         { "-N" },
                                                         { "--Pi" },
                                                         { "--Pd" },
                                                         { "--Ps" },
                                                         { "--alphabet" },
                                                         { "--backend" },
                                                         { "--precision" },
                                                         { "--storage" },
                                                         { "--Pr" },
                                                         { "--mtau" },
                                                         { "--mn" },
                                                         { "--priors" },
                                                         { "--threads" },
                                                         { "--batch" },
                                                         { "--log-priors" },
                                                         { "--sync-word" },
                                                         { "--start-prior" },
                                                         { "--end" },
                                                         { "--lookahead" },
                                                         { "--boundaries", false },
                                                         { "--framing" },
                                                         { "--start" },
                                                         { "--unsynchronized", false },
                                                         { "--start-tags" },
                                                         { "--tag-offset" },
                                                         { "--acquire-window" },
                                                         { "--sync-threshold" },
                                                         { "--no-search", false },
                                                         { "--input" },
                                                         { "--estimate", false },
                                                         { "--iterations" },
                                                         { "--tolerance" },
                                                         { "--fix" },
                                                         { "--llr-scale" },
                                                         { "--substitution-matrix",
                                                           false },
                                                         { "--log-level" } };

/*
 * The options bsid_decode shares with the blocks, read into a
 * receiver_options through the blocks' table (receiver_option_table(), where
 * "--sync-word" is "sync_word"), each integer in the range it takes here:
 * --lookahead at most N. --no-search and --unsynchronized are the negations
 * of the table's search and synchronized_at_start. bsid_decode's --framing
 * (lines or stream), --start, --tag-offset and --llr-scale are its own.
 */
bsid::receiver_options read_receiver_options(const bsid::command_line& cl, long long N)
{
    struct shared {
        const char* name;
        long long lo, hi;
    };
    const shared options[] = { { "--backend", 0, 0 },
                               { "--precision", 0, 0 },
                               { "--storage", 0, 0 },
                               { "--Pr", 0, 0 },
                               { "--sync-word", 0, 0 },
                               { "--lookahead", 0, N },
                               { "--acquire-window", 0, 65536 },
                               { "--sync-threshold", 0, 0 },
                               { "--input", 0, 0 } };
    const auto& table = bsid::receiver_option_table();
    bsid::receiver_options ro;
    for (const shared& o : options) {
        if (!cl.has(o.name))
            continue;
        const std::string text = cl.value(o.name);
        const std::string name = bsid::table_name(o.name);
        const bsid::option_type type = table.find(name).type;
        const auto out_of_range = [&] {
            die(std::string("option ") + o.name + ": " + text + " is out of range [" +
                std::to_string(o.lo) + ", " + std::to_string(o.hi) + "]");
        };
        try {
            table.read(ro, name, text);
        } catch (const bsid::option_type_error&) {
            die(std::string("option ") + o.name + ": '" + text + "' is not " +
                (type == bsid::option_type::integer ? "an integer" : "a number"));
        } catch (const std::invalid_argument&) {
            out_of_range(); // an integer beyond its field's type
        }
        if (type == bsid::option_type::integer) {
            const long long v = std::get<long long>(table.get(ro, name));
            if (v < o.lo || v > o.hi)
                out_of_range();
        }
    }
    if (cl.has("--no-search"))
        table.set(ro, "search", false);
    if (cl.has("--unsynchronized"))
        table.set(ro, "synchronized_at_start", false);
    return ro;
}

int run(int argc, char** argv)
{
    // a line that cannot be read (out of memory for it, an I/O error) is an
    // error, not the end of the input: getline rethrows what stopped it
    std::cin.exceptions(std::ios::badbit);
    bsid::command_line cl;
    try {
        cl = bsid::read_command_line(argc, argv, options);
    } catch (const bsid::command_line_error& e) {
        die(std::string(e.what()) + " (see --help)");
    }
    if (cl.help) {
        std::cout << usage;
        return 0;
    }
    std::map<std::string, std::string> opt = cl.values();
    if (opt.count("--log-level")) {
        try {
            bsid::set_log_level(bsid::parse_log_level(opt["--log-level"]));
        } catch (const std::exception& e) {
            die(std::string("--log-level: ") + e.what());
        }
    }
    for (const char* req : { "--codebook", "-N", "--Pi", "--Pd", "--Ps" }) {
        if (!opt.count(req))
            die(std::string("missing ") + req + " (see --help)");
    }

    const std::string framing = opt.count("--framing") ? opt["--framing"] : "lines";
    if (framing != "lines" && framing != "stream")
        die("--framing '" + framing + "' is not one of lines, stream");
    const bool stream = framing == "stream";
    for (const char* k :
         { "--end", "--start-prior", "--priors", "--log-priors", "--batch" }) {
        if (stream && opt.count(k))
            die(std::string(k) + " does not apply to --framing stream");
    }
    for (const char* k : { "--start",
                           "--unsynchronized",
                           "--start-tags",
                           "--tag-offset",
                           "--acquire-window",
                           "--sync-threshold",
                           "--no-search" }) {
        if (!stream && opt.count(k))
            die(std::string(k) + " needs --framing stream");
    }
    if (opt.count("--start") && opt.count("--unsynchronized"))
        die("give --start or --unsynchronized, not both");
    const bool estimate = opt.count("--estimate") > 0;
    for (const char* k : { "--iterations",
                           "--tolerance",
                           "--fix",
                           "--llr-scale",
                           "--substitution-matrix" }) {
        if (!estimate && opt.count(k))
            die(std::string(k) + " needs --estimate");
    }
    if (estimate) {
        for (const char* k : { "--start-prior",
                               "--end",
                               "--boundaries",
                               "--batch",
                               "--start",
                               "--unsynchronized",
                               "--start-tags",
                               "--tag-offset",
                               "--acquire-window",
                               "--sync-threshold",
                               "--no-search" }) {
            if (opt.count(k))
                die(std::string(k) + " does not apply to --estimate");
        }
        if (!stream && opt.count("--lookahead"))
            die("--lookahead needs --framing stream");
    }

    std::shared_ptr<bsid::frame_decoder> fdec;
    bsid::map_decoder* dec = nullptr;                          // fdec's primary backend
    std::vector<std::optional<bsid::position_weights>> starts; // --start-prior lines
    bsid::end_mode end = bsid::end_mode::known;
    int lookahead = 0;
    std::vector<std::vector<double>> priors;
    bool log_priors = false; // --log-priors: priors holds natural logs
    size_t batch = 256;
    bsid::input_kind input = bsid::input_kind::bits;
    int alphabet = 2;
    try {
        alphabet = opt.count("--alphabet")
                       ? int(integer("--alphabet", opt["--alphabet"], 2, 256))
                       : 2;
        const bsid::codebook cb = bsid::codebook::from_spec(opt["--codebook"], alphabet);
        const bsid::channel_params ch(number("--Pi", opt["--Pi"]),
                                      number("--Pd", opt["--Pd"]),
                                      number("--Ps", opt["--Ps"]),
                                      alphabet);
        const long long N = integer("-N", opt["-N"], 1, 1 << 30);
        const bsid::receiver_options ro = read_receiver_options(cl, N);
        input = bsid::parse_input_kind(ro.input.kind);
        bsid::decoder_config cfg = bsid::make_decoder_config(cb, int(N), ch, ro.decoding);
        if (opt.count("--mtau"))
            cfg.mtau = range("--mtau", opt["--mtau"]);
        if (opt.count("--mn"))
            cfg.mn = range("--mn", opt["--mn"]);
        if (opt.count("--threads")) {
            cfg.threads = int(integer("--threads", opt["--threads"], 0, 4096));
        }
        if (opt.count("--batch"))
            batch = size_t(integer("--batch", opt["--batch"], 1, 1 << 20));
        if (input == bsid::input_kind::logprob && alphabet == 2)
            die("--input logprob is for --alphabet > 2; over bits give LLRs, "
                "lp(1) - lp(0) (--input llr)");
        if (input == bsid::input_kind::llr && alphabet != 2)
            die("--input llr takes soft bits; over --alphabet " +
                std::to_string(alphabet) +
                " give A log-probabilities per item (--input logprob)");
        const auto sync = bsid::parse_sync_word(ro.framing.sync_word, alphabet);
        fdec = std::make_shared<bsid::frame_decoder>(cfg, sync);
        dec = &fdec->primary();
        if (stream && opt.count("--estimate"))
            return run_estimate(
                *fdec, opt, input, priors, log_priors, true, ro.framing.lookahead);
        if (stream) {
            // the blocks' stream options, then bsid_decode's own: --start (a
            // first start other than 0) and --tag-offset (any offset)
            bsid::stream_options so =
                bsid::make_stream_options(ro.framing, fdec->sync_word().size(), input);
            if (opt.count("--start")) {
                so.first_start = bsid::position_weights{
                    { integer("--start",
                              opt["--start"],
                              0,
                              std::numeric_limits<long long>::max()) },
                    { 1.0 }
                };
            }
            if (opt.count("--tag-offset"))
                so.tag_offset =
                    integer("--tag-offset", opt["--tag-offset"], -(1LL << 40), 1LL << 40);
            std::vector<long long> tags;
            if (opt.count("--start-tags"))
                tags = read_start_tags(opt["--start-tags"]);
            return run_stream(fdec, so, tags, opt.count("--boundaries") > 0);
        }
        if (opt.count("--end"))
            end = bsid::parse_end_mode(opt["--end"]);
        if (opt.count("--lookahead")) {
            lookahead = ro.framing.lookahead;
            if (end != bsid::end_mode::free)
                die("--lookahead needs --end free");
        }
        if (opt.count("--start-prior"))
            starts = read_start_priors(opt["--start-prior"]);
        if (opt.count("--priors") && opt.count("--log-priors")) {
            die("give --priors or --log-priors, not both");
        }
        if (opt.count("--log-priors")) {
            log_priors = true;
            opt["--priors"] = opt["--log-priors"];
        }
        if (opt.count("--priors")) {
            priors = read_priors(opt["--priors"], size_t(N) * size_t(cb.q()));
            // validate every row now: bad priors make an invalid file
            for (size_t k = 0; k < priors.size(); ++k) {
                try {
                    dec->validate_priors(priors[k].data(), log_priors);
                } catch (const std::invalid_argument& e) {
                    die("priors file '" + opt["--priors"] + "', line " +
                        std::to_string(k + 1) + ": " + e.what());
                }
            }
        }
    } catch (const bsid::io_error& e) {
        die(e.what());
    } catch (const std::bad_alloc&) {
        // the decoder itself (its drift limits and tables grow with N)
        die("out of memory: the decoder's working memory for N = " + opt["-N"] +
            " does not fit; try a smaller N");
    } catch (const std::exception& e) {
        die(e.what());
    }

    if (estimate)
        return run_estimate(*fdec,
                            opt,
                            input,
                            priors,
                            log_priors,
                            false,
                            bsid::stream_options::auto_lookahead);

    const size_t NQ = size_t(dec->N()) * size_t(dec->q());
    // Posteriors are held for the frames of one batch that will be decoded
    // (not for erasures), and a batch holds at most 256 MiB of them.
    const size_t max_held =
        std::max<size_t>(1, (size_t(256) << 20) / (sizeof(double) * NQ));
    const bool logprob = input == bsid::input_kind::logprob;
    const bool soft = input == bsid::input_kind::llr || logprob;
    std::vector<std::string> lines;
    // --input llr: each line's LLRs; logprob: its A log-probabilities per item
    std::vector<std::vector<double>> llrs;
    std::vector<std::string> bad; // per line: why its characters are not a frame, or ""
    // frame k's received items, and how many
    auto set_items = [&](auto& v, size_t k) {
        if (logprob)
            v.logprob = llrs[k].data();
        else if (soft)
            v.llr = llrs[k].data();
        else
            v.bits = reinterpret_cast<const uint8_t*>(lines[k].data());
    };
    auto items = [&](size_t k) {
        return logprob ? llrs[k].size() / size_t(alphabet)
               : soft  ? llrs[k].size()
                       : lines[k].size();
    };
    size_t decodable = 0; // lines of this batch that pass the length check

    auto write_post = [&](std::string& out, const double* p) {
        write_posteriors(out, p, NQ);
    };

    // does N fit the frames? (their lengths; a warning goes to stderr)
    const bsid::decoder_config& dcfg = fdec->config();
    bsid::setup_watch watch("bsid_decode",
                            (long long)fdec->sync_word().size() + fdec->tau(),
                            dcfg.N,
                            dcfg.cb.n(),
                            dcfg.ch);
    size_t frame_index = 0;
    auto flush = [&]() {
        std::vector<bsid::frame_result> results(lines.size());
        std::vector<bsid::frame_view> views;
        std::vector<size_t> decoded;
        for (size_t k = 0; k < lines.size(); ++k) {
            if (!bad[k].empty()) {
                results[k] = { bsid::frame_status::invalid_input, bad[k] };
                continue;
            }
            results[k] = fdec->check_length(items(k));
            if (!results[k].ok())
                continue; // refused before any memory is spent on it
            const double* pri = nullptr;
            if (!priors.empty()) {
                const size_t idx = priors.size() == 1 ? 0 : frame_index + k;
                if (idx >= priors.size()) {
                    die("priors file has " + std::to_string(priors.size()) +
                        " lines but there are more frames");
                }
                pri = priors[idx].data();
            }
            bsid::frame_view v;
            set_items(v, k);
            v.rho = items(k);
            v.priors = pri;
            v.log_priors = log_priors;
            views.push_back(v);
            decoded.push_back(k);
        }
        std::vector<std::vector<double>> posts(views.size(), std::vector<double>(NQ));
        std::vector<double*> outs;
        for (auto& p : posts)
            outs.push_back(p.data());
        const auto got = fdec->decode_batch(views, outs); // W weighed, if any
        std::vector<size_t> post_of(lines.size(), SIZE_MAX);
        for (size_t j = 0; j < decoded.size(); ++j) {
            results[decoded[j]] = got[j];
            post_of[decoded[j]] = j;
            if (got[j].ok())
                watch.add_received_length(views[j].rho);
        }
        std::string out;
        for (size_t k = 0; k < lines.size(); ++k) {
            if (!results[k].ok()) {
                out += "erasure " + results[k].reason + "\n";
            } else {
                write_post(out, posts[post_of[k]].data());
            }
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        frame_index += lines.size();
        lines.clear();
        llrs.clear();
        bad.clear();
        decodable = 0;
    };

    // boundaries as probabilities: every frame through the frame decoder's requests
    const bool frames_mode =
        end != bsid::end_mode::known || !starts.empty() || opt.count("--boundaries");
    const bool print_bounds = opt.count("--boundaries") > 0;
    auto flush_frames = [&]() {
        std::vector<bsid::frame_request> req;
        std::vector<size_t> which;
        for (size_t k = 0; k < lines.size(); ++k) {
            if (!bad[k].empty())
                continue;
            bsid::frame_request r;
            set_items(r, k);
            r.L = items(k);
            const size_t idx = frame_index + k;
            if (!priors.empty()) {
                if (priors.size() > 1 && idx >= priors.size())
                    die("priors file has " + std::to_string(priors.size()) +
                        " lines but there are more frames");
                r.priors = priors[priors.size() == 1 ? 0 : idx].data();
                r.log_priors = log_priors;
            }
            if (!starts.empty()) {
                if (starts.size() > 1 && idx >= starts.size())
                    die("start prior file has " + std::to_string(starts.size()) +
                        " lines but there are more frames");
                r.start = starts[starts.size() == 1 ? 0 : idx];
            }
            r.end = end;
            r.lookahead = lookahead;
            req.push_back(std::move(r));
            which.push_back(k);
        }
        std::vector<bsid::frame_decode_result> got;
        try {
            got = fdec->decode_batch(req);
        } catch (const std::invalid_argument& e) {
            die(std::string("frames ") + std::to_string(frame_index + 1) + " to " +
                std::to_string(frame_index + lines.size()) + ": " + e.what());
        }
        std::vector<const bsid::frame_decode_result*> res(lines.size(), nullptr);
        for (size_t j = 0; j < which.size(); ++j)
            res[which[j]] = &got[j];
        std::string out;
        char buf[64];
        auto pairs = [&](const char* name,
                         const std::vector<long long>& pos,
                         const std::vector<double>& p,
                         bool ok) {
            out += name;
            for (size_t j = 0; ok && j < pos.size(); ++j) {
                std::snprintf(buf, sizeof buf, " %lld:%.17g", pos[j], p[j]);
                out += buf;
            }
            out += '\n';
        };
        for (size_t k = 0; k < lines.size(); ++k) {
            const bsid::frame_decode_result* r = res[k];
            const bool ok = r && r->result.ok();
            if (!ok) {
                out += "erasure " + (r ? r->result.reason : bad[k]) + "\n";
            } else {
                write_post(out, r->posteriors.data());
            }
            if (print_bounds) {
                static const std::vector<long long> none_p;
                static const std::vector<double> none_w;
                pairs("start",
                      ok ? r->start.positions : none_p,
                      ok ? r->start.weights : none_w,
                      ok);
                pairs("end",
                      ok ? r->end_positions : none_p,
                      ok ? r->end_posterior : none_w,
                      ok);
                pairs("forward",
                      ok ? r->end_positions : none_p,
                      ok ? r->end_forward : none_w,
                      ok);
            }
            if (out.size() >= (1 << 20)) {
                std::fwrite(out.data(), 1, out.size(), stdout);
                out.clear();
            }
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        frame_index += lines.size();
        lines.clear();
        llrs.clear();
        bad.clear();
        decodable = 0;
    };

    std::string line;
    bits_given_as_llrs guard; // --input llr given bits
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back(); // CRLF files
        // the characters '0' and '1' become the bits 0 and 1; any other
        // character makes the frame an erasure (invalid input); with --input
        // llr, the numbers of the line are the frame's LLRs
        std::string why;
        if (soft) {
            llrs.push_back(llr_line(line, why, guard, frame_index + lines.size() + 1));
            line.clear(); // its numbers are held in llrs
            if (logprob && llrs.back().size() % size_t(alphabet) != 0 && why.empty())
                why = std::to_string(llrs.back().size()) +
                      " log-probabilities are not a whole number of items of " +
                      std::to_string(alphabet);
        } else if (alphabet != 2) {
            const auto l = letters_line(line, alphabet, why);
            line.assign(l.begin(), l.end()); // the letters' values, one per char
        }
        for (size_t t = 0; t < line.size() && !soft && alphabet == 2; ++t) {
            const char c = line[t];
            if (c != '0' && c != '1') {
                if (why.empty()) {
                    char b[96];
                    std::snprintf(b,
                                  sizeof b,
                                  "character 0x%02x at position %zu is not '0' or '1'",
                                  unsigned((unsigned char)c),
                                  t);
                    why = b;
                }
                continue;
            }
            line[t] = char(c - '0');
        }
        if (why.empty() &&
            (frames_mode ||
             fdec->check_length(logprob ? llrs.back().size() / size_t(alphabet)
                                : soft  ? llrs.back().size()
                                        : line.size())
                 .ok()))
            ++decodable;
        lines.push_back(std::move(line));
        bad.push_back(std::move(why));
        if (lines.size() == batch || decodable == max_held) {
            if (soft)
                guard.check();
            frames_mode ? flush_frames() : flush();
        }
    }
    if (soft)
        guard.check();
    if (!lines.empty())
        frames_mode ? flush_frames() : flush();
    std::fflush(stdout);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        die("out of memory: a frame's N q posteriors and the decoder's working memory do "
            "not "
            "fit; try a smaller --batch, --storage local, or a smaller N");
    } catch (const std::ios_base::failure& e) {
        die(std::string("cannot read the input: ") + e.what());
    } catch (const std::exception& e) {
        die(e.what());
    }
}
