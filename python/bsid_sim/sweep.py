#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A sweep: one point per value of the swept parameter."""

import bsid_core

from .engine import PointConfig, run_point

__all__ = ["SWEEPS", "point_configs", "run_configs", "simulate"]

SWEEPS = ("p", "all", "Pi", "Pd", "Ps", "reads", "N")


def point_configs(codebook, N, sweep=None, values=None, Pi=0.0, Pd=0.0, Ps=0.0, **options):
    """The PointConfig of every point, each checked (ValueError names the bad one).

    sweep: None (one point), "p" (Pi = Pd = value), "all" (Pi = Pd = Ps =
    value), "Pi", "Pd", "Ps", "reads"
    (the reads of each frame, docs/reads.md) or "N" (the message symbols per
    frame); the other parameters keep Pi, Pd, Ps, N and options["reads"].
    options: the other PointConfig fields.
    """
    if isinstance(codebook, str):
        codebook = bsid_core.codebook.from_spec(codebook)
    outer = options.get("outer")
    if isinstance(outer, str):
        outer = options["outer"] = bsid_core.ldpc_code.from_spec(outer)
    if outer is not None:
        # a concatenated scheme: N is the inner length of one outer codeword
        need = bsid_core.symbol_mapping(outer.q, outer.n, codebook.q).n_inner
        if N and int(N) != need:
            raise ValueError(f"N = {N}: the outer code {outer.spec} (n = {outer.n} over "
                             f"GF({outer.q})) fills N = {need} symbols of this codebook "
                             f"(q = {codebook.q}); leave N out")
        N = need
        if sweep == "N":
            raise ValueError("an outer code fixes N: it cannot be swept")
        if options.get("iterations", 10) < 1 or options.get("bp_iterations", 50) < 1:
            raise ValueError("iterations and bp_iterations must be at least 1")
    if sweep is None or sweep == "none":
        points = [(Pi, Pd, Ps)]
        sweep = "none"
    else:
        if sweep not in SWEEPS:
            raise ValueError(f"sweep '{sweep}' is not one of {', '.join(SWEEPS)}")
        if not values:
            raise ValueError("a sweep needs at least one value")
        points = []
        for v in values:
            if sweep in ("reads", "N") and (v != int(v) or v < 1):
                what = "reads" if sweep == "reads" else "message symbols"
                raise ValueError(f"{sweep} = {v!r}: a count of {what}, at least 1")
            points.append({"p": (v, v, Ps), "all": (v, v, v), "Pi": (v, Pd, Ps), "Pd": (Pi, v, Ps),
                           "Ps": (Pi, Pd, v), "reads": (Pi, Pd, Ps),
                           "N": (Pi, Pd, Ps)}[sweep])
    configs = []
    for k, (pi, pd, ps) in enumerate(points):
        if sweep == "reads":
            options = dict(options, reads=int(values[k]))
        if sweep == "N":
            N = int(values[k])
        try:
            bsid_core.channel_params(pi, pd, ps)
        except ValueError as e:
            name = f"{sweep} = {values[k]!r}" if sweep != "none" else "the channel"
            raise ValueError(f"{name}: {e}") from None
        configs.append(PointConfig(codebook=codebook, N=int(N), Pi=float(pi), Pd=float(pd),
                                   Ps=float(ps), sweep=sweep, point=k, **options))
    c = configs[0]
    if min(c.N for c in configs) < 1:
        raise ValueError(f"N = {min(c.N for c in configs)} must be at least 1")
    if c.framing not in ("genie", "stream"):
        raise ValueError(f"framing '{c.framing}' is not one of genie, stream")
    if c.outer is not None and c.framing != "genie":
        raise ValueError("an outer code is simulated with genie framing (stream framing "
                         "with an outer code is not supported yet)")
    if c.framing == "stream":
        if c.lookahead is not None and not 0 <= c.lookahead <= c.N:
            raise ValueError(f"lookahead K = {c.lookahead} must lie in [0, N = {c.N}]")
        if c.streams < 1 or c.stream_frames < 1:
            raise ValueError("streams and stream_frames must be at least 1")
        if c.dump_dir:
            raise ValueError("failure dumps replay single frames: they are not made with "
                             "stream framing")
        if c.lead < 0:
            raise ValueError(f"lead = {c.lead}: the random bits before the first frame "
                             "cannot be negative")
        if not 0 <= c.burst_rate <= 1:
            raise ValueError(f"burst_rate = {c.burst_rate} is a probability: it lies in [0, 1]")
        lo, hi = c.burst_bits
        if not 1 <= lo <= hi:
            raise ValueError(f"burst_bits = {lo}:{hi}: a burst is 1 to hi bits, lo <= hi")
    elif c.lead or c.burst_rate or c.unsynchronized:
        raise ValueError("lead, bursts and unsynchronized starts are stream framing's")
    for c in configs:
        if c.reads < 1:
            raise ValueError(f"reads = {c.reads}: at least 1")
        if c.read_method not in ("", "joint", "combine"):
            raise ValueError(f"read method '{c.read_method}' is not one of joint, combine")
        if c.reads > 1:
            if c.framing != "genie" or c.sync_word or c.dump_dir:
                raise ValueError("several reads per frame are simulated with genie framing, "
                                 "without a sync word or failure dumps")
            if c.method == "joint" and c.reads > 3:
                raise ValueError(f"reads = {c.reads}: joint decoding takes at most 3 reads; "
                                 "read method combine takes any number")
    return configs


def simulate(codebook, N, sweep=None, values=None, Pi=0.0, Pd=0.0, Ps=0.0, progress=None,
             on_point=None, **options):
    """Runs a sweep; returns the PointResult of each point (rows: r.row()).

    Example (docs/simulating.md):

        from gnuradio.bsid import sim        # or: import bsid_sim as sim
        res = sim.simulate("builtin:ld3-modvec6", 50, sweep="p",
                           values=sim.parse_values("0.01:0.04:x2"), max_time=5)
        for r in res:
            print(r.row()["Pi"], r.ser())

    progress(result, elapsed, eta) is called after every batch, on_point(result)
    after every point. An interrupted point ends the sweep.
    """
    return run_configs(point_configs(codebook, N, sweep, values, Pi, Pd, Ps, **options),
                       progress, on_point)


def run_configs(configs, progress=None, on_point=None, run=run_point):
    """Runs the points in turn; returns the PointResult of each point that has
    frames. An interrupted point (stopped_by "interrupted") ends the sweep.
    run(config, progress) simulates one point (run_point: on this host)."""
    results = []
    for c in configs:
        r = run(c, progress)
        if r.frames:
            results.append(r)
            if on_point is not None:
                on_point(r)
        if r.stopped_by == "interrupted":
            break
    return results
