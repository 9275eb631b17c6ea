"""kbench.Client against a real kbenchd on loopback (cpu device): a job submitted, watched and
fetched; errors as exceptions naming the field; cancel, artifacts, lists, history, diff, sweeps
and leaderboards."""

import hashlib
import importlib.util
import os
import tempfile
import unittest

import kbench
from daemon import Daemon

# Quick cpu jobs: a loose noise target and a short bound, so each ends in about a second.
QUICK = {"max_noise": 0.05, "min_time_seconds": 0.05, "timeout_seconds": 3}
daemon = None
environ_before = None


def setUpModule():
    global daemon, environ_before
    environ_before = dict(os.environ)
    for name in ("KBENCH_SERVER", "KBENCH_TOKEN"):
        os.environ.pop(name, None)
    # No config file of the person running the tests may choose the server or a token.
    os.environ["KBENCH_CONFIG"] = os.path.join(tempfile.gettempdir(), "kbench-py-none.yaml")
    daemon = Daemon()


def tearDownModule():
    if daemon is not None:
        daemon.stop()
    os.environ.clear()
    os.environ.update(environ_before)


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.kb = kbench.Client(server=daemon.address, timeout=20)
        self.addCleanup(self.kb.close)

    def quick_job(self, shape="64x64", **kwargs):
        return self.kb.bench("softmax", "host_rowwise", shape=shape, device="cpu",
                             stopping=QUICK, **kwargs)

    def test_a_cpu_job_streams_progress_then_its_result(self):
        # A second of sampling: kbenchd streams progress every 0.2 s or so, so some arrive
        # mid-measurement however loaded the machine.
        job = self.kb.bench("softmax", "host_rowwise", shape="64x64", device="cpu", wait=False,
                            stopping=dict(QUICK, min_time_seconds=1.0, timeout_seconds=5))
        self.assertIn(job.state, ("QUEUED", "RUNNING"))
        updates = list(self.kb.watch(job.id))
        self.assertEqual(updates[-1].state, "SUCCEEDED")
        self.assertTrue(any(u.progress is not None and u.progress.samples > 0 for u in updates),
                        [u.progress for u in updates])
        done = self.kb.get(job.id)
        result = done.result.variant("host_rowwise")
        self.assertGreater(result.median_seconds, 0)
        self.assertLessEqual(result.ci[0], result.median_seconds)
        self.assertGreaterEqual(result.ci[1], result.median_seconds)
        self.assertTrue(result.correct)
        self.assertEqual(done.shape, [64, 64])
        self.assertEqual(done.rows()[0]["median_seconds"], result.median_seconds)
        self.assertIn("host_rowwise", done._repr_html_())

    def test_wait_reports_each_update_and_returns_the_finished_job(self):
        seen = []
        job = self.quick_job(progress=seen.append)
        self.assertEqual(job.state, "SUCCEEDED")
        self.assertGreater(len(seen), 1)
        self.assertEqual(seen[-1].state, "SUCCEEDED")

    def test_a_bad_shape_is_an_invalid_argument_naming_the_field(self):
        with self.assertRaises(kbench.InvalidArgumentError) as caught:
            self.quick_job(shape="64x64x3")
        self.assertEqual(caught.exception.field, "shape")
        self.assertIn("2 dims", str(caught.exception))

    def test_an_unknown_variant_names_the_variants_field(self):
        with self.assertRaises(kbench.InvalidArgumentError) as caught:
            self.kb.bench("softmax", "no_such_variant", shape="64x64", device="cpu")
        self.assertEqual(caught.exception.field, "variants")

    def test_an_unknown_job_is_not_found(self):
        with self.assertRaises(kbench.NotFoundError):
            self.kb.get("j-0000000000000000")

    def test_waiting_on_a_cancelled_job_raises_with_the_job(self):
        job = self.kb.bench("softmax", "host_rowwise", shape="64x64", device="cpu", wait=False,
                            stopping={"max_noise": 1e-9, "min_time_seconds": 60,
                                      "timeout_seconds": 60})
        self.kb.cancel(job.id)
        with self.assertRaises(kbench.JobFailedError) as caught:
            self.kb.wait(job.id)
        self.assertEqual(caught.exception.job.state, "CANCELLED")

    def test_a_wait_past_its_timeout_is_a_deadline_error(self):
        job = self.kb.bench("softmax", "host_rowwise", shape="64x64", device="cpu", wait=False,
                            stopping={"max_noise": 1e-9, "min_time_seconds": 60,
                                      "timeout_seconds": 60})
        self.addCleanup(self.kb.cancel, job.id)
        with self.assertRaises(kbench.KbenchError) as caught:
            self.kb.wait(job.id, timeout=0.5)
        self.assertEqual(caught.exception.code.name, "DEADLINE_EXCEEDED")

    def test_an_artifact_downloads_with_its_announced_sha256(self):
        job = self.quick_job()
        samples = next(a for a in self.kb.artifacts(job.id) if a.name == "samples.csv")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "samples.csv")
            data = self.kb.download(job.id, "samples.csv", path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), data)
        self.assertEqual(hashlib.sha256(data).hexdigest(), samples.sha256)
        self.assertEqual(len(data), samples.size_bytes)

    def test_a_finished_job_is_listed_and_in_its_history(self):
        job = self.quick_job(shape="96x64")
        self.assertIn(job.id, [j.id for j in self.kb.list_jobs(kernel="softmax", limit=100)])
        history = self.kb.history("softmax", shape="96x64")
        self.assertIn(job.id, [e.job_id for e in history])
        self.assertEqual(history.rows()[0]["shape"], "96x64")
        # The cpu device measures no energy (None, never 0); its stamp sees nothing on a device.
        self.assertIsNone(history[0].joules_per_launch)
        self.assertTrue(history[0].clean)

    def test_diff_of_two_jobs_compares_their_medians(self):
        a, b = self.quick_job(), self.quick_job()
        diff = self.kb.diff(a.id, b)
        self.assertEqual([v.variant for v in diff.variants], ["host_rowwise"])
        change = diff.variants[0]
        expected = 100 * (b.result.variants[0].median_seconds /
                          a.result.variants[0].median_seconds - 1)
        self.assertAlmostEqual(change.change_percent, expected)

    def test_a_sweep_runs_one_job_per_point(self):
        sweep = self.kb.submit_sweep("softmax", {"rows": "32,64"}, variants="host_rowwise",
                                     shape="32x64", device="cpu", stopping=QUICK)
        self.assertEqual(sweep.points_total, 2)
        done = self.kb.wait_sweep(sweep.id, timeout=120)
        self.assertEqual(done.points_done, 2)
        self.assertEqual(sorted(row["rows"] for row in done.rows()), ["32", "64"])
        self.assertTrue(all("median_seconds" in row for row in done.rows()), done.rows())

    def test_the_leaderboard_ranks_counted_results(self):
        self.quick_job(shape="80x64")
        board = self.kb.leaderboard("softmax", ["80x64"], device_model="cpu",
                                    include_unranked=True)
        self.assertIn("host_rowwise", [e.variant for e in board.ranked])
        self.assertEqual(board.ranked[0].rank, 1)
        # The cpu device measures no energy: a board by energy has nobody to rank.
        by_energy = self.kb.leaderboard("softmax", ["80x64"], device_model="cpu",
                                        include_unranked=True, by="energy")
        self.assertEqual(by_energy.ranked, [])
        with self.assertRaises(ValueError):
            self.kb.leaderboard("softmax", ["80x64"], device_model="cpu", by="joules")

    def test_the_catalogue_and_devices_are_listed(self):
        self.assertIn("softmax", [k.name for k in self.kb.kernels()])
        self.assertIn("cpu", [d.id for d in self.kb.devices()])

    @unittest.skipUnless(importlib.util.find_spec("pandas"), "pandas is not installed")
    def test_to_pandas_gives_one_row_per_variant(self):
        frame = self.quick_job().result.to_pandas()
        self.assertEqual(list(frame["variant"]), ["host_rowwise"])


if __name__ == "__main__":
    unittest.main()
