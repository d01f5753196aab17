#!/usr/bin/env python3
#
# Copyright 2026 gr-bsid authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""bsid-sim on a Dask cluster (docs/cluster.md): chunks merged in chunk order
give the counts of one host whatever their order; local clusters of 1 and 2
workers give the same rows and failure dumps as one process; a worker killed
mid-run loses no frame and counts none twice; a scheduler that does not answer
gives a clear error in bounded time; bad options are refused."""

import csv
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from dataclasses import replace

from bsid_sim import cluster
from bsid_sim.engine import PointResult, run_point
from bsid_sim.sweep import point_configs

try:
    import distributed  # noqa: F401 (the cluster tests need it)
    HAVE_DASK = True
except ImportError:
    HAVE_DASK = False

EXE = os.environ.get("BSID_SIM")
# the columns that depend on the machine or the worker layout, not on the frames
TIMING = {"seconds", "frames_per_s", "mbit_per_s", "threads"}


def command(args):
    return ([EXE] if EXE else [sys.executable, "-m", "bsid_sim"]) + args


def run(args, timeout=120):
    return subprocess.run(command(args), capture_output=True, text=True, timeout=timeout)


def configs(**kw):
    """Two points of a fast code: one stopped by --rel-error, one by --max-errors
    (or by max-frames where these are off)."""
    opts = dict(backend="cpu", threads=1, rel_error=0.2, max_errors=0, max_frames=3000,
                seed=7)
    opts.update(kw)
    return point_configs("builtin:ld3-modvec6", 12, sweep="p", values=[0.02, 0.04], **opts)


def counts(rows):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_once(marker, index):
    """A chunk function whose process dies (SIGKILL) the first time it is given
    chunk `index`, as a worker lost mid-run; the marker file makes it once."""
    def chunk(job, i, first, count):
        if i == index and not os.path.exists(marker):
            with open(marker, "w") as fh:
                fh.write(f"killed at chunk {i}, frames {first}..{first + count - 1}\n")
            os.kill(os.getpid(), signal.SIGKILL)
        return cluster.run_chunk(job, i, first, count)
    return chunk


class qa_ordered_merge(unittest.TestCase):
    """The merge rule alone, without Dask: chunks decoded here, given out of
    order and twice."""

    def test_any_order_same_prefix(self):
        for c in configs(max_errors=40) + configs(rel_error=0, max_frames=700):
            want = run_point(c)
            plan = {"threads_by_host": {}, "gpus_per_worker": 0, "local_devices": None}
            job = cluster._job(c, plan)
            sizes = [64, 1, 250, 37, 500, 128, 900, 2000]
            chunks, first = [], 0
            for i, n in enumerate(sizes):
                n = min(n, c.max_frames - first)
                if n <= 0:
                    break
                chunks.append(cluster.run_chunk(job, i, first, n))
                first += n
            rng = random.Random(c.point + 11)
            for trial in range(3):
                order = chunks + chunks[:2]  # two arrive twice (a rerun chunk)
                rng.shuffle(order)
                res = PointResult(config=c)
                merge = cluster.OrderedMerge(res)
                for ch in order:
                    merge.add(ch)
                self.assertEqual(merge.reason, want.stopped_by)
                self.assertEqual(res.frames, want.frames, (c.point, trial))
                for k in ("frame_errors", "symbol_errors", "symbol_errors_sq", "bit_errors",
                          "bit_errors_sq", "erasures_drift", "erasures_other"):
                    self.assertEqual(getattr(res, k), getattr(want, k), k)

    def test_gap_waits(self):
        c = configs(rel_error=0, max_frames=300)[0]
        plan = {"threads_by_host": {}, "gpus_per_worker": 0, "local_devices": None}
        job = cluster._job(c, plan)
        a = cluster.run_chunk(job, 0, 0, 100)
        b = cluster.run_chunk(job, 1, 100, 100)
        res = PointResult(config=c)
        merge = cluster.OrderedMerge(res)
        self.assertEqual(merge.add(b), "")
        self.assertEqual(res.frames, 0)  # chunk 1 waits for chunk 0
        merge.add(a)
        self.assertEqual(res.frames, 200)
        bad = dict(cluster.run_chunk(job, 2, 150, 50))  # does not follow chunk 1
        with self.assertRaises(RuntimeError):
            merge.add(bad)

    def test_no_frames_ends(self):
        # --max-frames 0 (possible from Python): nothing to send, the point ends
        class idle_client:
            def scheduler_info(self):
                return {"workers": {"w": {"nthreads": 1}}}
        c = configs(rel_error=0, max_frames=0)[0]
        plan = {"threads_by_host": {}, "gpus_per_worker": 0, "local_devices": None}
        out = []
        t = threading.Thread(target=lambda: out.append(
            cluster.run_point_cluster(c, idle_client(), plan)), daemon=True)
        t.start()
        t.join(20)
        self.assertFalse(t.is_alive(), "the point never ended")
        self.assertEqual((out[0].frames, out[0].stopped_by), (0, "max-frames"))

    def test_decoder_follows_the_run(self):
        # a worker keeps its decoder between the chunks of a point; a later run on
        # the same cluster, with other threads, gets a decoder of its own
        c = configs(rel_error=0, max_frames=300)[0]
        plan = {"threads_by_host": {}, "gpus_per_worker": 0, "local_devices": None}
        one = cluster.run_chunk(cluster._job(c, plan), 0, 0, 20)
        two = cluster.run_chunk(cluster._job(replace(c, threads=2), plan), 0, 0, 20)
        self.assertEqual((one["threads"], two["threads"]), (1, 2))
        by_host = dict(plan, threads_by_host={socket.gethostname(): 3})
        three = cluster.run_chunk(cluster._job(replace(c, threads=0), by_host), 0, 0, 20)
        self.assertEqual(three["threads"], 3)
        for k in ("symbol_errors", "bit_errors", "status"):
            self.assertEqual(list(one["counts"][k]), list(two["counts"][k]))
            self.assertEqual(list(one["counts"][k]), list(three["counts"][k]))


@unittest.skipUnless(HAVE_DASK, "needs Dask distributed (python3-distributed)")
class qa_sim_cluster(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def sweep(self, workers, dump_dir="", chunk_fn=cluster.run_chunk, chunk_seconds=0.05,
              **kw):
        client = cluster.connect(workers=workers)
        try:
            plan = cluster.check_cluster(client, "cpu", 0, local=True)
            # --threads 0: each worker takes its share of this host's cores
            cs = configs(dump_dir=dump_dir, threads=0, **kw)
            return cluster.run_configs_cluster(cs, client, plan, chunk_fn=chunk_fn,
                                               chunk_seconds=chunk_seconds)
        finally:
            cluster.close(client)

    def dumps(self, d):
        out = {}
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name)) as fh:
                out[name] = json.load(fh)
        return out

    def test_workers_1_and_2_same_counts(self):
        one_dir, two_dir, ref_dir = (os.path.join(self.dir, x) for x in ("w1", "w2", "ref"))
        ref = [run_point(c) for c in configs(dump_dir=ref_dir, max_errors=60)]
        one = self.sweep(1, one_dir, max_errors=60)
        two = self.sweep(2, two_dir, max_errors=60, chunk_seconds=0.02)
        want = counts([r.row() for r in ref])
        self.assertEqual([r["stopped_by"] for r in want], ["max-errors", "max-errors"])
        self.assertEqual(counts([r.row() for r in one]), want)
        self.assertEqual(counts([r.row() for r in two]), want)
        cores = len(os.sched_getaffinity(0))
        self.assertEqual(one[0].threads, cores)
        self.assertEqual(two[0].threads, max(1, cores // 2))
        d = self.dumps(ref_dir)
        self.assertGreater(len(d), 100)
        self.assertEqual(self.dumps(one_dir), d)
        self.assertEqual(self.dumps(two_dir), d)

    def test_killed_worker(self):
        marker = os.path.join(self.dir, "killed")
        want = counts([r.row() for r in self.sweep(2, rel_error=0, max_frames=2000)])
        got = self.sweep(2, chunk_fn=kill_once(marker, 3), rel_error=0, max_frames=2000)
        self.assertTrue(os.path.exists(marker), "the chunk function did not kill its worker")
        self.assertEqual(counts([r.row() for r in got]), want)
        self.assertEqual([r["frames"] for r in want], [2000, 2000])

    def test_no_scheduler(self):
        addr = f"tcp://127.0.0.1:{free_port()}"
        t0 = time.monotonic()
        with self.assertRaises(cluster.ClusterError) as e:
            cluster.connect(addr, timeout=2)
        self.assertLess(time.monotonic() - t0, 20)
        self.assertIn(addr, str(e.exception))
        t0 = time.monotonic()
        r = run(["--codebook", "builtin:ld3-modvec6", "-N", "12", "--cluster", addr,
                 "--connect-timeout", "2", "--progress", "none"], timeout=60)
        self.assertLess(time.monotonic() - t0, 40)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"--cluster {addr}: no Dask scheduler answered within 2 s", r.stderr)

    def test_cli_workers(self):
        base = ["--codebook", "builtin:ld3-modvec6", "-N", "12", "--sweep", "p", "--values",
                "0.02,0.04", "--backend", "cpu", "--rel-error", "0.2", "--seed", "3",
                "--progress", "lines", "--progress-every", "0"]
        rows = []
        for extra in ([], ["--workers", "2"]):
            out = os.path.join(self.dir, f"r{len(rows)}.csv")
            r = run(base + extra + ["--csv", out])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as fh:
                rows.append(counts(list(csv.DictReader(fh))))
            self.assertIn("frames, FER", r.stderr)  # live progress
        self.assertIn("2 Dask workers", r.stdout)
        self.assertEqual(rows[1], rows[0])


class qa_cluster_options(unittest.TestCase):
    BASE = ["--codebook", "builtin:ld3-modvec6", "-N", "12"]

    def refused(self, args, words):
        r = run(self.BASE + args)
        self.assertEqual(r.returncode, 2, r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)

    def test_bad_options(self):
        self.refused(["--workers", "0"], ["--workers", "0 must be at least 1"])
        self.refused(["--workers", "x"], ["--workers", "'x' is not an integer"])
        self.refused(["--workers", "2", "--cluster", "tcp://127.0.0.1:1"],
                     ["--workers K starts a local cluster"])
        self.refused(["--gpus-per-worker", "1"], ["--gpus-per-worker 1 needs --workers"])
        self.refused(["--workers", "2", "--framing", "stream"], ["--framing stream"])
        self.refused(["--workers", "2", "--gpus-per-worker", "1", "--backend", "cpu"],
                     ["cannot go with --backend cpu"])

    def test_client_closed_when_the_check_fails(self):
        # an error or Ctrl-C after the client connects, before the first point,
        # closes it (and with it a local cluster's worker processes)
        from unittest import mock

        from bsid_sim import cli
        for error, status in ((OSError("the scheduler went away"), 1),
                              (KeyboardInterrupt(), None)):
            closed = []

            def check(*args, **kw):
                raise error
            with mock.patch.object(cluster, "connect", lambda *a: "client"), \
                    mock.patch.object(cluster, "check_cluster", check), \
                    mock.patch.object(cluster, "close", closed.append):
                argv = self.BASE + ["--workers", "1", "--progress", "none"]
                if status is None:
                    with self.assertRaises(KeyboardInterrupt):
                        cli.main(argv)
                else:
                    self.assertEqual(cli.main(argv), status)
            self.assertEqual(closed, ["client"], repr(error))

    def test_gpus_per_worker_without_gpu(self):
        have = cluster.gpu_count()
        if have == 0:
            self.refused(["--workers", "1", "--gpus-per-worker", "1"],
                         ["--gpus-per-worker 1", "this host has no usable GPU"])
            self.refused(["--workers", "1", "--backend", "cuda"],
                         ["--backend cuda", "no usable GPU"])
        else:
            self.refused(["--workers", "2", "--gpus-per-worker", str(have)],
                         [f"needs {2 * have} GPUs: this host has {have}"])


if __name__ == "__main__":
    unittest.main()
