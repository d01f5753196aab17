#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The bsid-sim command line (docs/simulating.md)."""

import argparse
import math
import os
import re
import sys
import time

import bsid_core

from . import dump, estimate, log_setup, plot, rate, results
from .progress import make_progress, point_name
from .sweep import SWEEPS, point_configs, run_configs
from .values import parse_values

__all__ = ["main", "build_parser"]

EXAMPLES = """\
examples:
  bsid-sim --codebook builtin:ld3-modvec6 -N 500 --sweep p --values 0.001:0.05:x1.25 \\
           --max-time 60 --csv s500.csv --json s500.json --plot s500.png
  bsid-sim --codebook sparse:4:8 -N 50 --Pi 0.01 --Pd 0.01 --Ps 0.001 --max-errors 100
  bsid-sim --plot both.png --results n50.json n500.json      (plot saved results)
  bsid-sim --codebook builtin:ld3-modvec6 -N 50 --Pi 0.03 --Pd 0.03 --max-frames 200 \\
           --dump-failures fails/
  bsid-sim --replay fails/point000-frame000000012.json
  bsid-sim --codebook random:5:16:8:1 --outer ldpc-regular:1000:125:16:3:1 --sweep p \
           --values 0.002:0.006:+0.001 --iterations 10 --max-errors 100 --max-frames 10000
  bsid-sim --codebook builtin:ld3-modvec6 -N 500 --sweep p --values 0.002:0.02:x1.5 \
           --workers 2 --csv s500.csv       (or --cluster tcp://HOST:8786; docs/cluster.md)
  bsid-sim --codebook builtin:ld3-modvec6 -N 500 --Pi 0.02 --Pd 0.01 --Ps 0.005 \
           --estimate --estimate-frames 200 --initial 0.01,0.01,0.01
  bsid-sim --codebook sparse:1:2 -N 1000 --sweep p --values 0.01:0.1:+0.01 \
           --information-rate --rate-frames 200 --csv iid.csv --plot iid.png

Every point stops at the first of: --rel-error at --confidence on both SER and FER,
--max-errors frame errors, --max-frames, --max-time seconds. See docs/simulating.md.
"""


def _int_at_least(lo):
    """An argparse type: an integer >= lo."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if v < lo:
            raise argparse.ArgumentTypeError(
                f"{v} must not be negative" if lo == 0 else f"{v} must be at least {lo}")
        return v
    return parse


class _Once(argparse.Action):
    """Stores an option's value and refuses the option a second time (argparse
    would let the last one win without a word)."""

    def __init__(self, *args, hint="", **kwargs):
        super().__init__(*args, **kwargs)
        self.hint = hint

    def __call__(self, parser, namespace, values, option_string=None):
        old = getattr(namespace, self.dest, None)
        if old is not None:
            raise argparse.ArgumentError(
                self, f"given twice ('{old}', then '{values}'): {self.hint}")
        setattr(namespace, self.dest, values)


_positive_int = _int_at_least(1)
_count = _int_at_least(0)


def _finite(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return v


def _nonneg(text):
    v = _finite(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"{v:g} must not be negative")
    return v


def _probability(text):
    v = _finite(text)
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"{v:g} is not a probability in [0, 1]")
    return v


def _bit_range(text):
    """L or LO:HI (bits, 1 <= LO <= HI) as (LO, HI)."""
    parts = text.split(":")
    try:
        if len(parts) not in (1, 2):
            raise ValueError
        lo, hi = int(parts[0]), int(parts[-1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not L or LO:HI (whole bits)") from None
    if not 1 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"'{text}': a burst is 1 bit or more, LO <= HI")
    return lo, hi


def build_parser():
    p = argparse.ArgumentParser(
        prog="bsid-sim",
        description="Error rates of a codebook over the BSID channel: random messages, "
                    "encode, channel, MAP decoder, symbol decisions; SER, FER and BER with "
                    "confidence intervals, per point of a parameter sweep.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("code and channel")
    g.add_argument("--codebook", metavar="SPEC",
                   help="codebook spec (builtin:NAME, file:PATH, random:n:q:P:seed, "
                        "sparse:n:q); it fixes n and q")
    g.add_argument("-N", type=_positive_int, help="message symbols per frame")
    g.add_argument("--alphabet", metavar="A", type=int, default=2,
                   help="the channel's letters, 2 (bits, the default) to 256, DNA's 4: the "
                        "code (random: and sparse: specs, or a file of that alphabet) and the "
                        "sync word are over them (docs/design.md, \"Letters\")")
    g.add_argument("--sync-word", metavar="W", default="",
                   help="a word of 0s and 1s (over letters: ACGT..., digits or comma-separated "
                        "integers) sent before every frame's codewords and weighed by the "
                        "decoder (docs/frame_boundaries.md)")
    g.add_argument("--sweep", choices=SWEEPS, action=_Once,
                   hint="a run sweeps one parameter",
                   help="the parameter that varies: p (Pi = Pd = p), all (Pi = Pd = Ps = p), "
                        "Pi, Pd, Ps, reads "
                        "(the reads of each frame, --reads) or N (with --information-rate)")
    g.add_argument("--values", metavar="V", action=_Once,
                   hint="give every value in one --values (a comma list)",
                   help="START:STOP:xFACTOR (geometric), START:STOP:+STEP (linear) or a "
                        "comma list")
    for name in ("Pi", "Pd", "Ps"):
        g.add_argument("--" + name, type=_nonneg, default=None,
                       help=f"fixed {name} (default 0)")
    g.add_argument("--reads", type=_positive_int, default=1, metavar="M",
                   help="send each frame through M independent realizations of the channel "
                        "and decode it from all M reads (docs/reads.md; default 1)")
    g.add_argument("--read-method", choices=("joint", "combine"), default=None,
                   help="how the reads are decoded: joint (exact, up to 3 reads) or combine "
                        "(any number); default joint up to 3 reads, combine beyond")
    g = p.add_argument_group("framing (docs/simulating.md, \"Stream framing\")")
    g.add_argument("--framing", choices=("genie", "stream"), default="genie",
                   help="genie: each frame decoded between its true boundaries (default); "
                        "stream: frames sent back to back through one continuous channel "
                        "and decoded by the stream decoder, beside genie framing of the same "
                        "frames")
    g.add_argument("--lookahead", type=_count, default=None,
                   help="stream framing: the next frame's symbols weighed after each frame "
                        "(default: 0 with a sync word, 2 without)")
    g.add_argument("--streams", type=_positive_int, default=None,
                   help="stream framing: independent streams decoded side by side (default "
                        "4; the frames simulated depend on it, not on --threads)")
    g.add_argument("--stream-frames", type=_positive_int, default=None,
                   help="stream framing: frames sent per chunk of a stream (default 8)")
    g.add_argument("--unsynchronized", action="store_true", default=None,
                   help="stream framing: the decoder is not told where the first frame "
                        "starts; it acquires it (docs/receiving.md, \"Acquisition\")")
    g.add_argument("--lead", type=_count, default=None, metavar="BITS",
                   help="stream framing: random bits before the first frame (implies "
                        "--unsynchronized)")
    g.add_argument("--burst-rate", type=_probability, default=None, metavar="P",
                   help="stream framing: the probability that a burst of random bits "
                        "follows a frame (default 0)")
    g.add_argument("--burst-bits", type=_bit_range, default=None, metavar="L|LO:HI",
                   help="stream framing: a burst's length in bits, or a range it is drawn "
                        "from uniformly (default 32)")
    g = p.add_argument_group("decoder")
    g.add_argument("--backend", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto takes the GPU when there is one (default auto)")
    g.add_argument("--precision", choices=("float", "double"), default="float")
    g.add_argument("--storage", choices=("auto", "global", "local"), default="auto")
    g.add_argument("--Pr", type=_finite, default=1e-10,
                   help="drift exclusion probability of the decoder's limits (default 1e-10)")
    g.add_argument("--threads", type=_count, default=0,
                   help="threads for frame generation and the CPU decoder (default 0: all "
                        "cores)")
    g.add_argument("--batch", type=_count, default=0,
                   help="most frames per decoder call (default 0: automatic, up to 1024 on "
                        "the GPU and 4096 on the CPU)")
    g = p.add_argument_group("stopping (per point, whichever comes first)")
    g.add_argument("--confidence", type=_finite, default=0.95,
                   help="confidence level of the intervals (default 0.95)")
    g.add_argument("--rel-error", type=_nonneg, default=0.1,
                   help="stop when the interval half-widths of SER and FER are both at most "
                        "this fraction of the estimates (default 0.1; 0: off)")
    g.add_argument("--max-errors", type=_count, default=0,
                   help="stop after this many frame errors (default 0: no limit)")
    g.add_argument("--max-frames", type=_positive_int, default=100000,
                   help="stop after this many frames (default 100000)")
    g.add_argument("--max-time", type=_nonneg, default=0.0,
                   help="stop after this many seconds (default 0: no limit)")
    g = p.add_argument_group("run and output")
    g.add_argument("--seed", type=_count, default=1,
                   help="frame k of every point is frame k of this seed (default 1)")
    g.add_argument("--label", default="", help="the curve's name in result files and plots")
    g.add_argument("--csv", metavar="FILE", help="results, one row per point ('-': stdout)")
    g.add_argument("--json", metavar="FILE", help="results as JSON ('-': stdout)")
    g.add_argument("--plot", metavar="PNG", help="SER and FER against the swept parameter")
    g.add_argument("--results", metavar="FILE", nargs="+", default=[],
                   help="more result files (CSV or JSON) to draw on the --plot")
    g.add_argument("--title", help="the plot's title")
    g.add_argument("--ber", action="store_true", help="draw the BER on the plot too")
    g.add_argument("--dump-failures", metavar="DIR",
                   help="write every frame in error to DIR (docs/simulating.md)")
    g.add_argument("--dump-max", type=_count, default=1000,
                   help="most frames dumped per point (default 1000)")
    g.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto",
                   help="live progress on stderr: a bar on a terminal (with tqdm), plain "
                        "lines elsewhere (default auto)")
    g.add_argument("--progress-every", type=_nonneg, default=10.0, metavar="S",
                   help="seconds between plain progress lines (default 10)")
    g.add_argument("-q", "--quiet", action="store_true",
                   help="no progress and no summary lines")
    log_setup.add_log_level_argument(g)
    g = p.add_argument_group("channel estimation (docs/simulating.md, \"Channel estimation\")")
    g.add_argument("--estimate", action="store_true",
                   help="instead of error rates, estimate each point's channel from its "
                        "frames (EM over the decoder's lattice) and report the estimate "
                        "against the true channel")
    g.add_argument("--estimate-frames", type=_positive_int, default=200, metavar="K",
                   help="frames per estimate (default 200)")
    g.add_argument("--initial", metavar="PI,PD,PS", default="0.01,0.01,0.01",
                   help="the estimate's initial point (default 0.01,0.01,0.01)")
    g.add_argument("--iterations", type=_positive_int, default=None,
                   help="at most this many EM iterations (default 100); with --outer, the "
                        "passes of the iterative decoder (default 10)")
    g.add_argument("--tolerance", type=_nonneg, default=1e-4,
                   help="stop when no estimate moves by more, relative (default 1e-4)")
    g = p.add_argument_group("information rates (docs/capacity.md)")
    g.add_argument("--information-rate", action="store_true",
                   help="instead of error rates, each point's information rate in bits per "
                        "channel symbol, (log2 P(y|x) - log2 P(y)) / (N n) averaged over "
                        "frames with its 95%% interval; with sparse:1:A, the channel's i.i.d. "
                        "rate")
    g.add_argument("--rate-frames", type=_int_at_least(2), default=200, metavar="K",
                   help="frames per information rate (default 200)")
    g = p.add_argument_group("concatenated codes (docs/concatenated.md)")
    g.add_argument("--outer", metavar="SPEC",
                   help="an outer LDPC code over GF(q): ldpc:FILE (alist) or "
                        "ldpc-regular:n:M:q:wc:seed; the frames carry its codewords, N "
                        "follows from it, and the error rates count its information "
                        "symbols after the iterative decoder (--iterations passes)")
    g.add_argument("--bp-iterations", type=_positive_int, default=50, metavar="B",
                   help="belief-propagation iterations per pass (default 50)")
    g = p.add_argument_group("cluster (docs/cluster.md)")
    g.add_argument("--cluster", metavar="ADDRESS",
                   help="run on the Dask scheduler at ADDRESS (tcp://HOST:8786): each "
                        "point's frames go to its workers in chunks, merged in chunk order "
                        "(the counts are those of one host)")
    g.add_argument("--workers", type=_positive_int, default=None, metavar="K",
                   help="run on a local Dask cluster of K worker processes started here "
                        "(not with --cluster)")
    g.add_argument("--gpus-per-worker", type=_count, default=0, metavar="G",
                   help="each worker decodes with the CUDA backend on G GPUs (default 0: "
                        "--backend decides, one GPU at most)")
    g.add_argument("--connect-timeout", type=_nonneg, default=10.0, metavar="S",
                   help="seconds to wait for the --cluster scheduler and its first worker "
                        "(default 10)")
    g = p.add_argument_group("replay")
    g.add_argument("--replay", metavar="FILE",
                   help="decode a dumped frame again and print the posteriors around its "
                        "errors")
    g.add_argument("--context", type=_count, default=2,
                   help="symbols shown on each side of an error (default 2)")
    p.add_argument("--version", action="version", version=f"bsid-sim {bsid_core.__version__}")
    return p


def _output_file_problem(option, path, replaced):
    """Why `option` cannot write the file `path`, or None. replaced: the file is
    written to a temporary file beside it and renamed over it (results.py), so
    its directory must be writable and it must not be a device or a pipe."""
    if os.path.isdir(path):
        return f"{option} {path}: is a directory"
    d = os.path.dirname(path) or "."
    if not os.path.isdir(d):
        why = "is not a directory" if os.path.lexists(d) else "does not exist"
        return f"{option} {path}: the directory {d} {why}"
    if os.path.lexists(path) and replaced and not os.path.isfile(path):
        return (f"{option} {path}: exists and is not a regular file (result files are "
                f"written anew and renamed over it; '-' writes to stdout)")
    if os.path.lexists(path) and not replaced:
        if not os.access(path, os.W_OK):
            return f"{option} {path}: the file is not writable"
    elif not os.access(d, os.W_OK | os.X_OK):
        return f"{option} {path}: the directory {d} is not writable"
    return None


def _dump_dir_problem(path):
    """Why --dump-failures cannot write to the folder `path`, or None. The folder
    is made (with its parents) at the first failing frame."""
    option = "--dump-failures"
    if os.path.lexists(path):
        if not os.path.isdir(path):
            return f"{option} {path}: exists and is not a directory"
        if not os.access(path, os.W_OK | os.X_OK):
            return f"{option} {path}: the directory is not writable"
        return None
    parent = os.path.dirname(path.rstrip(os.sep))
    while parent and not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    parent = parent or "."
    if not os.path.isdir(parent):
        return f"{option} {path}: cannot be made: {parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{option} {path}: cannot be made: the directory {parent} is not writable"
    return None


# the names dump.write_failure gives its files
_DUMP_NAME = re.compile(r"point[0-9]{3,}-frame[0-9]{9,}\.json\Z")


def _earlier_dumps(path):
    """How many failure dumps the folder `path` holds already."""
    try:
        return sum(1 for name in os.listdir(path) if _DUMP_NAME.match(name))
    except OSError:
        return 0


def _summary(res):
    c = res.config
    fer, ser, ber = res.fer(), res.ser(), res.ber()
    lines = [
        f"{point_name(c)}: {res.frames} frames in {res.seconds:.1f} s "
        f"({res.frames_per_s():.4g} frames/s, {res.mbit_per_s():.4g} Mbit/s), "
        f"stopped by {res.stopped_by}",
        f"    FER {fer[0]:.4e}  [{fer[1]:.4e}, {fer[2]:.4e}]  ({res.frame_errors} frames)",
        f"    SER {ser[0]:.4e}  [{ser[1]:.4e}, {ser[2]:.4e}]  ({res.symbol_errors} symbols)",
        f"    BER {ber[0]:.4e}  [{ber[1]:.4e}, {ber[2]:.4e}]  ({res.bit_errors} bits)",
    ]
    if res.erasures_drift or res.erasures_other:
        lines.append(f"    erasures: {res.erasures_drift} drift out of range, "
                     f"{res.erasures_other} other")
    if c.framing == "stream":
        gfer, gser = res.genie()
        lines.append(f"    genie framing of the same frames: FER {gfer[0]:.4e}, SER "
                     f"{gser[0]:.4e}; wrong MAP ends {res.wrong_ends}, sync lost "
                     f"{res.sync_lost}")
        ok_symbols = max(1, res.ok_frames * c.N)
        lines.append(f"    frames ok {res.ok_frames} with SER "
                     f"{res.ok_symbol_errors / ok_symbols:.4e} (genie framing of them "
                     f"{res.ok_symbol_errors_genie / ok_symbols:.4e}); "
                     f"bursts {res.bursts}, frames out over garbage {res.extra_frames} "
                     f"(expected {res.extra_frames_expected}), of them ok {res.false_ok}; "
                     f"duplicates {res.duplicates}, missed {res.missed}")
    if c.outer is not None and res.frames:
        by_pass = " ".join(f"{f:.3g}" for f in res.fer_by_pass())
        lines.append(f"    after the outer code: FER by pass {by_pass}; mean passes "
                     f"{res.passes / res.frames:.3g}, mean BP iterations "
                     f"{res.bp_iterations / res.frames:.3g}; undetected errors "
                     f"{res.undetected}")
    if res.dumped:
        lines.append(f"    {res.dumped} failing frames dumped to {c.dump_dir}")
    return "\n".join(lines)


def main(argv=None):
    """Runs the command line (sys.argv[1:] by default); returns the exit status."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
        return status
    except BrokenPipeError:
        # the reader of stdout has gone (bsid-sim ... | head -1): not an error. stdout
        # goes to /dev/null so that the flush at exit does not fail again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
        return 0


def _main(argv):
    p = build_parser()
    a = p.parse_args(argv)
    log_setup.configure_logging(a.log_level)

    if a.replay:
        if a.codebook:
            p.error("--replay takes no --codebook: the dump names its code")
        try:
            same, _ = dump.replay(a.replay, backend=None if a.backend == "auto" else a.backend,
                                  context=a.context)
        except (OSError, ValueError, RuntimeError) as e:
            print(f"bsid-sim: error: {e}", file=sys.stderr)
            return 1
        return 0 if same else 1

    if a.plot:
        try:
            plot.require_matplotlib()
        except RuntimeError as e:
            p.error(str(e))
        problem = (_output_file_problem("--plot", a.plot, replaced=False)
                   or plot.format_problem(a.plot))
        if problem:
            p.error(problem)
    if not a.codebook:
        if a.plot and a.results:
            groups = _read_results(a)
            return 1 if groups is None else _plot(a, [], groups)
        p.error("--codebook is required (or --replay FILE, or --plot PNG --results FILE ...)")
    outer = None
    if a.outer:
        if a.estimate:
            p.error("--estimate estimates the channel from the inner code's frames; it "
                    "takes no --outer")
        try:
            outer = bsid_core.ldpc_code.from_spec(a.outer)
        except (ValueError, OSError) as e:
            p.error(f"--outer: {e}")
    elif a.N is None and a.sweep != "N":
        p.error("-N is required with --codebook (or --outer, which sets it)")
    if a.sweep == "N" and not a.information_rate:
        p.error("--sweep N goes with --information-rate (error rates sweep the channel)")
    if a.information_rate:
        if a.estimate or outer is not None:
            p.error("--information-rate measures the inner code alone: it takes no "
                    "--estimate or --outer")
        if a.framing != "genie" or a.sync_word or a.reads > 1 or a.sweep == "reads":
            p.error("--information-rate takes frames of known ends, one read, no sync word: "
                    "it takes no --framing stream, --sync-word or --reads")
        if a.dump_failures or a.cluster is not None or a.workers is not None:
            p.error("--information-rate runs on one host and has no failures to dump")
    if (a.sweep is None) != (a.values is None):
        p.error("--sweep and --values go together")
    if not 0.0 < a.confidence < 1.0:
        p.error(f"--confidence {a.confidence:g} must lie strictly between 0 and 1")
    if not 0.0 < a.Pr < 1.0:
        p.error(f"--Pr {a.Pr:g} must lie strictly between 0 and 1")
    if a.seed >= 1 << 64:
        p.error("--seed must be below 2^64")
    if a.sweep:
        fixed = {"p": ("Pi", "Pd"), "all": ("Pi", "Pd", "Ps"), "Pi": ("Pi",), "Pd": ("Pd",), "Ps": ("Ps",),
                 "reads": (), "N": ("N",)}[a.sweep]
        for name in fixed:
            if getattr(a, name) is not None:
                p.error(f"--{name} cannot be given with --sweep {a.sweep}: the sweep sets it")
        try:
            values = parse_values(a.values)
        except ValueError as e:
            p.error(str(e))
    else:
        values = None
    if a.framing != "stream":
        for name in ("lookahead", "streams", "stream_frames", "unsynchronized", "lead",
                     "burst_rate", "burst_bits"):
            if getattr(a, name) is not None:
                p.error(f"--{name.replace('_', '-')} needs --framing stream")
    if a.burst_bits is not None and not a.burst_rate:
        p.error("--burst-bits needs --burst-rate P (the probability of a burst after a frame)")
    if not 2 <= a.alphabet <= 256:
        p.error(f"--alphabet {a.alphabet}: the letters are 2 to 256")
    if a.alphabet == 2 and set(a.sync_word) - {"0", "1"}:
        p.error(f"--sync-word {a.sync_word!r}: only the characters 0 and 1")
    try:
        cb = bsid_core.codebook.from_spec(a.codebook, alphabet=a.alphabet)
    except (ValueError, OSError) as e:
        p.error(f"--codebook: {e}")
    if a.alphabet != 2:
        # the sync word's letters, checked (and kept as comma-separated integers)
        try:
            W = bsid_core.map_decoder_core(cb, bsid_core.channel_params(
                0, 0, 0, alphabet=a.alphabet), 1, backend="cpu",
                sync_word=a.sync_word).sync_word
        except ValueError as e:
            p.error(f"--sync-word: {e}")
        a.sync_word = ",".join(str(v) for v in W)
    initial = None
    if a.estimate:
        if a.framing != "genie":
            p.error("--estimate takes frames with genie framing (each frame alone; with "
                    "--sync-word, each begins with it)")
        parts = a.initial.split(",")
        try:
            if len(parts) != 3:
                raise ValueError(f"{len(parts)} values")
            initial = bsid_core.channel_params(*[float(v) for v in parts],
                                               alphabet=a.alphabet)
        except (TypeError, ValueError) as e:
            p.error(f"--initial {a.initial!r}: three probabilities Pi,Pd,Ps ({e})")
    try:
        configs = point_configs(
            cb, a.N, a.sweep, values, a.Pi or 0.0, a.Pd or 0.0, a.Ps or 0.0,
            backend=a.backend, precision=a.precision, storage=a.storage, Pr=a.Pr,
            threads=a.threads, batch=a.batch, seed=a.seed, confidence=a.confidence,
            rel_error=a.rel_error, max_errors=a.max_errors, max_frames=a.max_frames,
            max_time=a.max_time, dump_dir=a.dump_failures or "", dump_max=a.dump_max,
            label=a.label or (f"{a.codebook} + {a.outer}" if outer else
                              f"{a.codebook} N={a.N}"), sync_word=a.sync_word,
            framing=a.framing, lookahead=a.lookahead,
            streams=a.streams or 4, stream_frames=a.stream_frames or 8,
            unsynchronized=bool(a.unsynchronized), lead=a.lead or 0,
            burst_rate=a.burst_rate or 0.0, burst_bits=a.burst_bits or (32, 32),
            outer=outer, iterations=a.iterations or 10, bp_iterations=a.bp_iterations,
            reads=a.reads, read_method=a.read_method or "")
    except ValueError as e:
        p.error(str(e))

    cluster = a.cluster is not None or a.workers is not None
    if a.cluster is not None and a.workers is not None:
        p.error("--workers K starts a local cluster; with --cluster ADDRESS the scheduler's "
                "own workers run (start them with dask worker, docs/cluster.md)")
    if a.cluster is not None and not a.cluster.strip():
        p.error("--cluster '': give the scheduler's address (tcp://HOST:8786)")
    if not cluster and a.gpus_per_worker:
        p.error(f"--gpus-per-worker {a.gpus_per_worker} needs --workers K or --cluster ADDRESS")
    if cluster and (a.reads > 1 or a.sweep == "reads"):
        p.error("several reads per frame run on one host: --reads takes no --workers or "
                "--cluster")
    if a.read_method and a.reads == 1 and a.sweep != "reads":
        p.error("--read-method needs --reads M (M > 1) or --sweep reads")
    if cluster and a.framing == "stream":
        p.error("--framing stream runs on one host (its streams are continuous): it takes no "
                "--workers or --cluster")
    if cluster and a.estimate:
        p.error("--estimate runs on one host: it takes no --workers or --cluster")
    if cluster and a.gpus_per_worker and a.backend == "cpu":
        p.error(f"--gpus-per-worker {a.gpus_per_worker} decodes with the CUDA backend: it "
                f"cannot go with --backend cpu")
    if a.workers is not None and (a.gpus_per_worker or a.backend == "cuda"):
        from .cluster import gpu_count
        have = gpu_count()
        need = a.workers * max(1, a.gpus_per_worker)
        what = (f"--gpus-per-worker {a.gpus_per_worker}" if a.gpus_per_worker
                else "--backend cuda")
        if have == 0:
            p.error(f"{what}: this host has no usable GPU (the CUDA backend found none); "
                    f"leave it out to decode on the CPU")
        if a.gpus_per_worker and need > have:
            p.error(f"--gpus-per-worker {a.gpus_per_worker} with --workers {a.workers} needs "
                    f"{need} GPUs: this host has {have}")

    # every output is checked now, not after the simulation
    for option, path in (("--csv", a.csv), ("--json", a.json)):
        if path and path != "-":
            problem = _output_file_problem(option, path, replaced=True)
            if problem:
                p.error(problem)
    if a.dump_failures:
        problem = _dump_dir_problem(a.dump_failures)
        if problem:
            p.error(problem)
        old = _earlier_dumps(a.dump_failures)
        if old:
            print(f"bsid-sim: warning: --dump-failures {a.dump_failures} already holds "
                  f"{old} failure dump{'s' if old != 1 else ''} from an earlier run; new "
                  f"dumps are added beside the old ones, and one of the same point and "
                  f"frame overwrites the old file", file=sys.stderr, flush=True)
    groups = []
    if a.plot and a.results:
        groups = _read_results(a)
        if groups is None:
            return 1

    # human-readable lines go to stdout, unless a result file does
    text = sys.stderr if "-" in (a.csv, a.json) else sys.stdout
    progress = make_progress("none" if a.quiet else a.progress, sys.stderr, a.progress_every)
    if not a.quiet:
        what = (f"{len(configs)} point{'s' if len(configs) != 1 else ''} of {a.sweep}"
                if a.sweep else "1 point")
        print(f"bsid-sim: {a.codebook} (n={cb.n}, q={cb.q}, P={cb.P}), "
              f"N={a.values if a.sweep == 'N' else configs[0].N}, "
              f"{what}, seed {a.seed}, backend {a.backend}, {a.precision}", file=text,
              flush=True)
        if outer is not None:
            print(f"bsid-sim: outer code {outer.spec}: n={outer.n}, k={outer.k} over "
                  f"GF({outer.q}), rate {outer.rate:.4g}; overall rate "
                  f"{configs[0].rate:.4g}; up to {configs[0].iterations} "
                  f"passes of {configs[0].bp_iterations} BP iterations", file=text,
                  flush=True)

    rows = []
    if a.information_rate:
        return _information_rates(a, configs, groups, text)
    if a.estimate:
        for c in configs:
            t0 = time.monotonic()

            def tick(it, ll, ch, c=c, t0=t0):
                # EM on the CPU can take minutes: a line an iteration on
                # stderr once it has run for 2 s (not with --quiet)
                s = time.monotonic() - t0
                if not a.quiet and s >= 2.0:
                    print(f"bsid-sim: {point_name(c)}: EM iteration {it + 1} ({s:.0f} s): "
                          f"log-likelihood {ll:.6g}, then Pi {ch.Pi:.4g}, Pd {ch.Pd:.4g}, "
                          f"Ps {ch.Ps:.4g}", file=sys.stderr, flush=True)
            try:
                row = estimate.estimate_point(c, a.estimate_frames, initial,
                                              a.iterations or 100, a.tolerance,
                                              progress=tick)
            except (RuntimeError, ValueError) as e:
                print(f"bsid-sim: error: {point_name(c)}: {e}", file=sys.stderr)
                return 1
            rows.append(row)
            if not a.quiet:
                print(f"{point_name(c)}: {estimate.summary(row)}", file=text, flush=True)
        if a.json:
            results.write_json(a.json, rows)
        if a.csv:
            results.write_columns_csv(
                a.csv, [{k: r[k] for k in estimate.COLUMNS} for r in rows], estimate.COLUMNS)
        return 0

    def on_point(res):
        rows.append(res.row())
        progress.end(res)
        if not a.quiet:
            print(_summary(res), file=text, flush=True)
        # written after every point: a long sweep keeps what it has done
        if a.csv and a.csv != "-":
            results.write_csv(a.csv, rows)
        if a.json and a.json != "-":
            results.write_json(a.json, rows)

    state = {}

    def on_batch(res, elapsed, eta):
        if res.batches == 1 and state.get("started") is not res.config:
            state["started"] = res.config
            progress.start(res.config, res.config.point, len(configs))
        progress(res, elapsed, eta)

    client = None
    if cluster:
        from . import cluster as dask_cluster
        try:
            client = dask_cluster.connect(a.cluster, a.workers, a.connect_timeout)
            plan = dask_cluster.check_cluster(client, a.backend, a.gpus_per_worker,
                                              local=a.workers is not None,
                                              wait_s=max(a.connect_timeout, 1.0))
            if not a.quiet:
                info = client.scheduler_info()["workers"]
                slots = sum(w.get("nthreads", 1) for w in info.values())
                where = a.cluster or "a local cluster"
                print(f"bsid-sim: {len(info)} Dask worker{'s' if len(info) != 1 else ''} "
                      f"({slots} chunk{'s' if slots != 1 else ''} at a time) on {where}",
                      file=text, flush=True)
        except BaseException as e:
            # whatever ends the run here (Ctrl-C included) closes the client, and
            # the workers of a local cluster with it
            if client is not None:
                dask_cluster.close(client)
            if not isinstance(e, (RuntimeError, OSError)):
                raise
            print(f"bsid-sim: error: {e}", file=sys.stderr)
            return 1

    interrupted = False
    try:
        if client is not None:
            done = dask_cluster.run_configs_cluster(configs, client, plan, on_batch, on_point)
        else:
            done = run_configs(configs, on_batch, on_point)
        interrupted = bool(done) and done[-1].stopped_by == "interrupted"
    except KeyboardInterrupt:
        interrupted = True
    except BrokenPipeError:
        raise
    except (RuntimeError, ValueError, OSError) as e:
        progress.close()
        print(f"bsid-sim: error: {e}", file=sys.stderr)
        return 1
    finally:
        progress.close()
        if client is not None:
            dask_cluster.close(client)
    if a.csv == "-":
        results.write_csv("-", rows)
    if a.json == "-":
        results.write_json("-", rows)
    status = _plot(a, rows, groups) if a.plot else 0
    if interrupted:
        print("bsid-sim: interrupted; the points so far are written", file=sys.stderr)
        return 130
    return status


def _information_rates(a, configs, groups, text):
    """bsid-sim --information-rate: each point's rate, written after every point."""
    rows = []
    for c in configs:
        try:
            row = rate.rate_point(c, a.rate_frames)
        except (RuntimeError, ValueError) as e:
            print(f"bsid-sim: error: {point_name(c)}: {e}", file=sys.stderr)
            return 1
        rows.append(row)
        if not a.quiet:
            print(f"{point_name(c)}, N={c.N}: {rate.summary(row)}", file=text, flush=True)
        # a long sweep keeps what it has done; stdout gets the table once
        if a.csv and a.csv != "-":
            results.write_columns_csv(a.csv, rows, rate.COLUMNS)
        if a.json and a.json != "-":
            results.write_json(a.json, rows)
    if a.csv == "-":
        results.write_columns_csv("-", rows, rate.COLUMNS)
    if a.json == "-":
        results.write_json("-", rows)
    return _plot(a, rows, groups) if a.plot else 0


def _read_results(a):
    """The rows of every --results file; None (with the error printed) if one
    cannot be read."""
    groups = []
    for f in a.results:
        try:
            groups.append(results.read_results(f))
        except (OSError, ValueError) as e:
            print(f"bsid-sim: error: --results: {e}", file=sys.stderr)
            return None
    return groups


def _plot(a, rows, more):
    groups = ([rows] if rows else []) + more
    if not any(groups):
        print("bsid-sim: error: nothing to plot", file=sys.stderr)
        return 1
    if all("rate" in r and "ser" not in r for g in groups for r in g):
        rate.plot_rates(a.plot, groups, title=a.title)
    else:
        plot.plot_results(a.plot, groups, title=a.title,
                          metrics=("ser", "fer", "ber") if a.ber else ("ser", "fer"))
    if not a.quiet:
        print(f"bsid-sim: plot written to {a.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
