#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim on a Dask cluster (docs/cluster.md): a point's frames go out to the
workers in chunks, and the client merges the chunks' per-frame counts strictly
in chunk order, applying the stopping rules of engine.py to the merged prefix.

Chunk c of a point is the frames [first_c, first_c + size_c) of the point's
seed, with first_0 = 0 and first_{c+1} = first_c + size_c: frame k is frame k
of the seed, as in a run on one host (engine.py). So the counts depend only on
the seed and the stopping rule (and the backend and precision), never on the
number of workers, the chunk sizes, the order chunks finish in, or a chunk run
twice after its worker died.
"""

import os
import queue
import tempfile
import threading
import time
import uuid
import zlib

import bsid_core
import numpy as np

from . import dump
from .counting import add, end_batch, eta, stop_in_batch
from .engine import PointResult, channel_of
from .sweep import run_configs

__all__ = ["ClusterError", "OrderedMerge", "connect", "gpu_count", "run_chunk",
           "run_point_cluster", "run_configs_cluster"]

# A chunk aims at this many seconds of one worker: long enough that the
# scheduling cost (milliseconds) vanishes, short enough for live progress and
# little work lost with a worker.
CHUNK_SECONDS = 2.0
# The first chunk of a point, before any rate is known (frames).
FIRST_CHUNK_CPU = 64
FIRST_CHUNK_GPU = 1024
MAX_CHUNK = 1 << 20
# Chunks in flight per worker thread: one running, one queued behind it.
IN_FLIGHT_PER_THREAD = 2
# A chunk whose task raised is run again this many times (Dask's retries);
# a chunk whose worker died is rerun by the scheduler (allowed-failures).
RETRIES = 2
# Seconds the client waits for chunks before it looks at --max-time again.
POLL_SECONDS = 0.5
# A point ends with an error when the cluster has had no worker this long.
NO_WORKER_SECONDS = 120.0
# Frame counts of one decoder call inside a chunk (engine.py's largest batches).
MAX_BATCH_CPU = 4096
MAX_BATCH_GPU = 1024


class ClusterError(RuntimeError):
    """A cluster that cannot run the simulation (no answer, no GPU, ...)."""


def gpu_count(limit=64):
    """The GPUs the CUDA backend of this process can decode on (0 without a
    CUDA build or a usable GPU): devices 0, 1, ... until one is refused."""
    cb = bsid_core.codebook(3, [[3, 4]])
    ch = bsid_core.channel_params(0.1, 0.1, 0)
    n = 0
    while n < limit:
        try:
            bsid_core.map_decoder_core(cb, ch, 2, backend="cuda", device=n)
        except (RuntimeError, ValueError):
            break
        n += 1
    return n


def _host_cores():
    """(host name, cores) of the process this runs in. (Not OMP_NUM_THREADS:
    Dask sets it to 1 in its worker processes.)"""
    import socket
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return socket.gethostname(), n


def _decoder_takes_devices():
    """Whether this build's decoder takes a list of GPUs (devices=)."""
    doc = bsid_core.map_decoder_core.__init__.__doc__ or ""
    return "devices" in doc


# ---------------------------------------------------------------- worker side

_local = threading.local()


def _outer_code(outer):
    """The outer code of a job: (spec, alist text or None). An ldpc:FILE code
    travels as its text, so the file need not exist on the worker."""
    if outer is None:
        return None
    spec, text = outer
    if text is None:
        return bsid_core.ldpc_code.from_spec(spec)
    with tempfile.NamedTemporaryFile("w", suffix=".alist", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        return bsid_core.ldpc_code.from_spec("ldpc:" + path)
    finally:
        os.unlink(path)


def _job_key(job):
    """What a worker's decoder is made from: the point, and the threads and GPUs
    the run gives it (a later run on the same cluster may give others)."""
    cb = job["codebook"]
    outer = job["outer"]
    local = job.get("local_devices")
    return (cb.n, cb.q, cb.alphabet, tuple(tuple(b) for b in cb.books), job["N"], job["Pi"],
            job["Pd"],
            job["Ps"], job["backend"], job["precision"], job["storage"], job["Pr"],
            job["sync_word"], job["seed"], outer[0] if outer else None,
            zlib.crc32(outer[1].encode()) if outer and outer[1] else 0, job["iterations"],
            job["bp_iterations"], job["threads"],
            tuple(sorted((job.get("threads_by_host") or {}).items())),
            job["gpus_per_worker"],
            None if local is None else tuple(sorted((str(k), tuple(v)) for k, v in local.items())))


def _worker_name():
    try:
        from distributed import get_worker
        w = get_worker()
        return w.name, w.address
    except (ImportError, ValueError):
        return None, ""


def _threads_here(job):
    if job["threads"] > 0:
        return job["threads"]
    import socket
    by_host = job.get("threads_by_host") or {}
    if socket.gethostname() in by_host:
        return by_host[socket.gethostname()]
    return _host_cores()[1]


def _devices_here(job):
    """The GPUs this worker decodes on ([] for the CPU)."""
    gpus = job["gpus_per_worker"]
    name, _ = _worker_name()
    local = job.get("local_devices")  # a local cluster: worker i's GPUs
    if gpus > 0:
        if local is not None and name in local:
            return local[name]
        return list(range(gpus))  # its visible GPUs (CUDA_VISIBLE_DEVICES)
    if job["backend"] == "cpu":
        return []
    if local is not None and name in local:
        return local[name]
    have = gpu_count(1)
    if job["backend"] == "cuda" and not have:
        raise RuntimeError("--backend cuda: this worker has no usable GPU")
    return [0] if have else []


def _decoder(job):
    """(decoder, error counter, frame source, threads, devices) of a job, made
    once per worker thread for a point (the next point's replaces it)."""
    key = _job_key(job)
    cached = getattr(_local, "entry", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    _local.entry = None  # the previous point's decoder goes first
    threads = _threads_here(job)
    devices = _devices_here(job)
    ch = bsid_core.channel_params(job["Pi"], job["Pd"], job["Ps"],
                                  alphabet=job["codebook"].alphabet)
    kw = dict(backend="cuda" if devices else "cpu", precision=job["precision"],
              storage=job["storage"], Pr=job["Pr"], threads=threads,
              sync_word=job["sync_word"])
    if len(devices) > 1:
        kw["devices"] = devices
    elif devices:
        kw["device"] = devices[0]
    dec = bsid_core.map_decoder_core(job["codebook"], ch, job["N"], **kw)
    outer = _outer_code(job["outer"])
    counter = dec
    if outer is not None:
        counter = bsid_core.concatenated_decoder_core(
            dec, outer, iterations=job["iterations"], bp_iterations=job["bp_iterations"],
            threads=threads)
    src = bsid_core.frame_source(job["codebook"], ch, job["N"], job["seed"],
                                 sync_word=job["sync_word"], outer=outer)
    entry = (dec, counter, src, threads, devices)
    _local.entry = (key, entry)
    return entry


# the per-frame counts a chunk sends back (counting.stop_in_batch and add read them)
_PER_FRAME = ("symbol_errors", "bit_errors", "status", "wrong_after", "iterations",
              "bp_iterations", "syndrome_ok")


def run_chunk(job, index, first, count):
    """Decodes chunk `index`: frames [first, first + count) of the job's seed.

    Runs on a worker. Returns plain data: the per-frame counts, the rows of the
    first job["dump_max"] failing frames (for --dump-failures), the decoder as
    it ran and the seconds spent.
    """
    t0 = time.perf_counter()
    dec, counter, src, threads, devices = _decoder(job)
    gpu = dec.backend == "cuda"
    step = job["batch"] or (MAX_BATCH_GPU if gpu else MAX_BATCH_CPU)
    parts = []
    for f in range(first, first + count, step):
        batch = src.generate(f, min(step, first + count - f), threads)
        parts.append(counter.count_errors(batch, threads))
    counts = {k: np.concatenate([p[k] for p in parts]) for k in _PER_FRAME if k in parts[0]}
    failures = []
    if job["dump_max"] > 0:
        rows = "info" if job["outer"] is not None else "decisions"
        row_keys = [k for k in ("status", "symbol_errors", "bit_errors", "iterations",
                                "syndrome_ok") if k in counts]
        off = 0
        for p in parts:
            for j in (p["symbol_errors"] > 0).nonzero()[0]:
                if len(failures) >= job["dump_max"]:
                    break
                row = {k: counts[k][off + j] for k in row_keys}
                row[rows] = np.array(p[rows][j])
                failures.append((off + int(j), row))
            off += len(p["symbol_errors"])
    name, address = _worker_name()
    return {"index": index, "first": first, "count": count, "counts": counts,
            "failures": failures, "backend": dec.backend, "storage": dec.storage,
            "threads": threads, "devices": devices, "mtau": tuple(dec.limits["mtau"]),
            "mn": tuple(dec.limits["mn"]), "seconds": time.perf_counter() - t0,
            "worker": address}


# ---------------------------------------------------------------- client side


class _DumpView:
    """What dump.write_failure reads of a result, as one chunk's decoder ran."""

    def __init__(self, chunk):
        self.mtau, self.mn = chunk["mtau"], chunk["mn"]
        self.backend, self.storage = chunk["backend"], chunk["storage"]


class OrderedMerge:
    """Merges chunk results strictly in chunk-index order into a PointResult.

    add(chunk) takes the results in any order; a chunk is counted only when
    every chunk before it has been, and the stopping rules are checked after
    every frame of the merged prefix (counting.stop_in_batch). Once a rule
    holds (reason), later chunks are ignored, as is a chunk that arrives twice.
    """

    def __init__(self, res, src=None):
        self.res = res
        self.src = src          # a frame_source for failure dumps (None: no dumps)
        self.next = 0           # the next chunk index to count
        self.waiting = {}
        self.reason = ""
        self.backends = set()

    def add(self, chunk):
        """Counts what the prefix allows; returns the rule that stopped the
        point ("" to go on)."""
        i = chunk["index"]
        if self.reason or i < self.next or i in self.waiting:
            return self.reason
        self.waiting[i] = chunk
        while not self.reason and self.next in self.waiting:
            self._count(self.waiting.pop(self.next))
            self.next += 1
        if self.reason:
            self.waiting.clear()
        return self.reason

    def _count(self, chunk):
        res, c = self.res, self.res.config
        if chunk["first"] != res.frames:
            raise RuntimeError(f"chunk {chunk['index']} starts at frame {chunk['first']}, "
                               f"not at frame {res.frames} after the chunks before it")
        if not self.backends:
            res.storage, res.threads = chunk["storage"], chunk["threads"]
            res.mtau, res.mn = chunk["mtau"], chunk["mn"]
        self.backends.add(chunk["backend"])
        res.backend = "+".join(sorted(self.backends))
        counts = chunk["counts"]
        upto, reason = stop_in_batch(res, counts)
        if c.dump_dir and self.src is not None:
            view = _DumpView(chunk)
            for j, row in chunk["failures"]:
                if j >= upto or res.dumped >= c.dump_max:
                    break
                one = {k: {j: v} for k, v in row.items()}
                res.dump_files.append(dump.write_failure(c, view, self.src, chunk["first"] + j,
                                                         one, j))
                res.dumped += 1
        add(res, counts, upto)
        if not reason and res.frames >= c.max_frames:
            reason = "max-frames"
        self.reason = reason


def _job(c, plan):
    outer = None
    if c.outer is not None:
        spec = c.outer.spec
        text = c.outer.alist() if not spec.startswith("ldpc-regular:") else None
        outer = (spec, text)
    return {"codebook": c.codebook, "N": c.N, "Pi": c.Pi, "Pd": c.Pd, "Ps": c.Ps,
            "backend": c.backend, "precision": c.precision, "storage": c.storage, "Pr": c.Pr,
            "sync_word": c.sync_word, "seed": c.seed, "outer": outer,
            "iterations": c.iterations, "bp_iterations": c.bp_iterations,
            "threads": c.threads, "batch": c.batch,
            "dump_max": c.dump_max if c.dump_dir else 0, **plan}


def _worker_threads(client):
    """Decoder threads per worker thread at --threads 0: each host's cores
    shared by the Dask worker threads on that host."""
    info = client.scheduler_info()["workers"]
    cores = client.run(_host_cores)  # {address: (host, cores)}
    slots, have = {}, {}
    for addr, (host, n) in cores.items():
        slots[host] = slots.get(host, 0) + info.get(addr, {}).get("nthreads", 1)
        have[host] = n
    return {h: max(1, have[h] // slots[h]) for h in slots}


def _total_threads(client):
    return sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())


def run_point_cluster(c, client, plan, progress=None, chunk_fn=run_chunk,
                      chunk_seconds=CHUNK_SECONDS):
    """Simulates one point on the cluster of `client`; returns a PointResult
    with the same counts as engine.run_point for the same seed and rule.

    plan: what check_cluster() found (threads per host, GPUs). progress: as
    for run_point. chunk_fn: the function the workers run (run_chunk);
    chunk_seconds: the work a chunk aims at, in seconds of one worker thread
    (the chunk sizes change the speed, never the counts).
    """
    if c.framing != "genie":
        raise ValueError("stream framing runs on one host only (its streams are continuous)")
    res = PointResult(config=c, backend="", storage="", threads=1)
    src = None
    if c.dump_dir:
        src = bsid_core.frame_source(c.codebook, channel_of(c), c.N, c.seed,
                                     sync_word=c.sync_word, outer=c.outer)
    merge = OrderedMerge(res, src)
    job = _job(c, plan)
    gpu = plan["gpus_per_worker"] > 0 or c.backend == "cuda"
    size = FIRST_CHUNK_GPU if gpu else FIRST_CHUNK_CPU
    rate = None                     # frames per second of one worker thread
    pending = {}
    finished = queue.Queue()        # futures as they finish (their done callbacks)
    run_id = uuid.uuid4().hex       # task keys are the scheduler's, shared by its clients
    next_index = next_first = 0
    t0 = time.perf_counter()
    reason = ""
    try:
        alone_since = None
        while True:
            slots = _total_threads(client)
            if slots:
                alone_since = None
            elif alone_since is None:
                alone_since = time.perf_counter()
            elif time.perf_counter() - alone_since > NO_WORKER_SECONDS:
                raise ClusterError(f"{_name(c)}: the cluster has had no worker for "
                                   f"{NO_WORKER_SECONDS:g} s; the point is not finished")
            bound = IN_FLIGHT_PER_THREAD * max(1, slots)
            while len(pending) < bound and next_first < c.max_frames:
                if rate:
                    size = int(min(MAX_CHUNK, max(1, rate * chunk_seconds)))
                count = min(size, c.max_frames - next_first)
                fut = client.submit(chunk_fn, job, next_index, next_first, count,
                                    key=f"bsid-sim-{run_id}-p{c.point}-c{next_index}",
                                    retries=RETRIES, pure=False)
                pending[fut] = next_index
                fut.add_done_callback(finished.put)
                next_index += 1
                next_first += count
            if not pending and next_first >= c.max_frames:
                # every chunk counted without a rule holding: only when there were
                # no frames to send (max_frames 0)
                end_batch(res, "max-frames", t0, None)
                break
            done = []
            try:
                done.append(finished.get(timeout=POLL_SECONDS))
                while True:
                    done.append(finished.get_nowait())
            except queue.Empty:
                pass
            counted = False
            for fut in done:
                if pending.pop(fut, None) is None:
                    continue
                if fut.status == "error":
                    raise RuntimeError(f"{_name(c)}: a chunk failed on the cluster: "
                                       f"{fut.exception()}")
                if fut.status == "cancelled":
                    # by another client or a scheduler that restarted: its frames
                    # cannot be counted, and the chunks after it must wait for them
                    raise RuntimeError(f"{_name(c)}: a chunk was cancelled on the cluster "
                                       f"(another client, or the scheduler restarted)")
                chunk = fut.result()
                if chunk["seconds"] > 0:
                    r = chunk["count"] / chunk["seconds"]
                    rate = r if rate is None else 0.5 * (rate + r)
                frames = res.frames
                reason = merge.add(chunk)
                counted = counted or res.frames != frames
                if reason:
                    break
            elapsed = time.perf_counter() - t0
            if not reason and c.max_time > 0 and elapsed >= c.max_time:
                reason = "max-time"
            if counted or reason:
                if end_batch(res, reason, t0, progress if res.frames else None):
                    break
            elif progress is not None and res.frames:
                progress(res, elapsed, eta(res, elapsed))
    except KeyboardInterrupt:
        res.seconds = time.perf_counter() - t0
        res.stopped_by = "interrupted"
    finally:
        if pending:
            client.cancel(list(pending), force=True)
    return res


def _name(c):
    from .progress import point_name
    return point_name(c)


def connect(address=None, workers=None, timeout=10.0):
    """A Dask client: of the scheduler at `address`, or of a local cluster of
    `workers` processes of one thread each. Raises ClusterError with the
    address when no scheduler answers within `timeout` seconds."""
    try:
        import distributed
    except ImportError:
        raise ClusterError("the cluster needs Dask distributed (Debian: python3-distributed)") \
            from None
    import logging
    if address:
        try:
            return distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise ClusterError(f"--cluster {address}: no Dask scheduler answered within "
                               f"{timeout:g} s ({e})") from None
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    try:
        return distributed.Client(cluster, set_as_default=False)
    except BaseException:
        cluster.close()  # its worker processes go with it
        raise


def close(client):
    """Closes the client and, for a local cluster, its workers (even when the
    client fails to close)."""
    cluster = client.cluster
    try:
        client.close()
    finally:
        if cluster is not None:
            cluster.close()


def check_cluster(client, backend="auto", gpus_per_worker=0, local=False, wait_s=30.0):
    """What the workers can do, checked before the first frame: the plan every
    chunk carries. Raises ClusterError (naming the worker) when
    --gpus-per-worker asks for GPUs that a worker lacks."""
    if gpus_per_worker > 0 and backend == "cpu":
        raise ClusterError(f"--gpus-per-worker {gpus_per_worker} decodes with the CUDA "
                           f"backend: it cannot go with --backend cpu")
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except (TimeoutError, OSError) as e:
        raise ClusterError(f"the Dask scheduler has no worker (waited {wait_s:g} s: {e})") \
            from None
    if gpus_per_worker > 1 and not _decoder_takes_devices():
        raise ClusterError(f"--gpus-per-worker {gpus_per_worker}: this build's decoder runs "
                           f"on one GPU; give --gpus-per-worker 1 and start a worker per GPU")
    plan = {"threads_by_host": _worker_threads(client), "gpus_per_worker": gpus_per_worker,
            "local_devices": None}
    if gpus_per_worker > 0 or backend != "cpu":
        gpus = client.run(gpu_count)  # {address: GPUs}
        if gpus_per_worker > 0 or backend == "cuda":
            need = max(1, gpus_per_worker)
            short = sorted(a for a, n in gpus.items() if n < need)
            if local and short:
                raise ClusterError(f"--gpus-per-worker {gpus_per_worker}: this host has "
                                   f"{min(gpus.values())} usable GPU(s) (the CUDA backend "
                                   f"found none)" if not min(gpus.values()) else
                                   f"--gpus-per-worker {gpus_per_worker}: this host has "
                                   f"{min(gpus.values())} usable GPUs, fewer than {need}")
            if short:
                raise ClusterError(f"--gpus-per-worker {gpus_per_worker}: worker(s) "
                                   f"{', '.join(short)} have fewer than {need} usable GPUs")
        if local:
            have = min(gpus.values()) if gpus else 0
            names = sorted(client.scheduler_info()["workers"].values(),
                           key=lambda w: str(w.get("name")))
            per = max(1, gpus_per_worker)
            if have and gpus_per_worker * len(names) > have:
                raise ClusterError(f"--gpus-per-worker {gpus_per_worker} with "
                                   f"--workers {len(names)}: this host has {have} GPUs")
            if have:
                plan["local_devices"] = {w["name"]: [(k * per + j) % have for j in range(per)]
                                         for k, w in enumerate(names)}
    return plan


def run_configs_cluster(configs, client, plan, progress=None, on_point=None,
                        chunk_fn=run_chunk, chunk_seconds=CHUNK_SECONDS):
    """sweep.run_configs on the cluster: the points in turn, each
    spread over the workers."""
    def run(c, progress):
        return run_point_cluster(c, client, plan, progress, chunk_fn, chunk_seconds)
    return run_configs(configs, progress, on_point, run)
