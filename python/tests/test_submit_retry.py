"""A submit sent while kbenchd is not listening yet is sent again with its idempotency key, as
kbctl's is, and lands once kbenchd starts (issue 28's client against a real restart window)."""

import os
import socket
import tempfile
import threading
import time
import unittest
from unittest import mock

import kbench
from daemon import Daemon, bin_dir


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SubmitRetryTest(unittest.TestCase):
    def setUp(self):
        bin_dir()  # skips without a kbenchd
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ["KBENCH_CONFIG"] = os.path.join(tempfile.gettempdir(), "kbench-py-none.yaml")

    def test_a_submit_waits_out_a_kbenchd_that_is_starting(self):
        address = f"127.0.0.1:{free_port()}"
        started = []
        # kbenchd comes up a second after the first attempt was refused.
        starter = threading.Timer(1.0, lambda: started.append(Daemon(listen=address)))
        starter.start()
        self.addCleanup(lambda: [d.stop() for d in started])
        self.addCleanup(starter.cancel)
        with kbench.Client(server=address, timeout=20) as kb:
            began = time.monotonic()
            job = kb.bench("softmax", "host_rowwise", shape="64x64", device="cpu", wait=False,
                           stopping={"timeout_seconds": 2}, idempotency_key="retry-test")
            self.assertGreater(time.monotonic() - began, 0.9)
            self.assertEqual(len(kb.list_jobs()), 1)
            self.assertEqual(kb.get(job.id).proto.idempotency_key, "retry-test")
        starter.join(timeout=60)

    def test_a_kbenchd_that_never_comes_is_unavailable_naming_the_address(self):
        address = f"127.0.0.1:{free_port()}"
        with mock.patch("kbench.client.SUBMIT_ATTEMPTS", 2):
            with kbench.Client(server=address, timeout=5) as kb:
                with self.assertRaises(kbench.UnavailableError) as caught:
                    kb.bench("softmax", "host_rowwise", shape="64x64", device="cpu")
        self.assertIn(address, str(caught.exception))
        self.assertIn("KBENCH_SERVER", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
