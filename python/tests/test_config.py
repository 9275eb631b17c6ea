"""kbench.config resolves the server and credentials as kbctl does (client/config/resolve.cc),
from kbctl's own config file; and a context's token reaches a real kbenchd with --auth-file."""

import os
import shutil
import subprocess
import tempfile
import unittest

import kbench
from kbench import config
from daemon import Daemon, bin_dir

LAB = """current-context: lab
contexts:
  - name: lab
    server: gpu1.lab:50051
    ca-file: {ca}
    token-file: {token_file}
  - name: local
    server: 127.0.0.1:7000
    token: kbt_local
  - name: remote-plain
    server: gpu2.lab:50051
    token: kbt_remote
"""


class ResolveTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.ca = self.write("ca.pem", "-----BEGIN CERTIFICATE-----\n")
        self.token_file = self.write("lab.token", "kbt_lab\n", mode=0o600)
        self.path = self.write("config.yaml", LAB.format(ca=self.ca, token_file=self.token_file))
        self.env = {"KBENCH_CONFIG": self.path, "HOME": self.dir}

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def test_the_current_context_gives_server_token_file_and_ca(self):
        c = config.resolve(environ=self.env)
        self.assertEqual((c.context, c.server, c.token, c.ca_file, c.tls),
                         ("lab", "gpu1.lab:50051", "kbt_lab", self.ca, True))

    def test_a_named_context_replaces_the_current_one(self):
        c = config.resolve(context="local", environ=self.env)
        self.assertEqual((c.server, c.token, c.tls), ("127.0.0.1:7000", "kbt_local", False))

    def test_arguments_then_environment_come_before_the_context(self):
        env = dict(self.env, KBENCH_SERVER="127.0.0.1:8000", KBENCH_TOKEN="kbt_env")
        c = config.resolve(context="local", environ=env)
        self.assertEqual((c.server, c.token), ("127.0.0.1:8000", "kbt_env"))
        c = config.resolve(server="127.0.0.1:9000", token="kbt_arg", context="local", environ=env)
        self.assertEqual((c.server, c.token), ("127.0.0.1:9000", "kbt_arg"))

    def test_an_unknown_context_names_the_file(self):
        with self.assertRaises(kbench.ConfigError) as caught:
            config.resolve(context="nope", environ=self.env)
        self.assertIn("no context 'nope'", str(caught.exception))
        self.assertIn(self.path, str(caught.exception))

    def test_a_token_is_not_sent_in_plaintext_beyond_loopback(self):
        with self.assertRaises(kbench.ConfigError) as caught:
            config.resolve(context="remote-plain", environ=self.env)
        self.assertIn("plaintext", str(caught.exception))

    def test_the_default_file_is_under_home(self):
        env = {"HOME": self.dir}
        self.assertEqual(config.config_path(env),
                         os.path.join(self.dir, ".config", "kbench", "config.yaml"))
        self.assertEqual(config.resolve(environ=env).server, config.DEFAULT_TCP_SERVER)

    def test_a_malformed_file_is_a_config_error(self):
        self.write("config.yaml", "contexts: 3\n")
        with self.assertRaises(kbench.ConfigError):
            config.resolve(environ=self.env)

    def test_loopback_is_read_from_the_address_not_its_spelling(self):
        self.assertTrue(config.is_loopback("127.0.0.1:1"))
        self.assertTrue(config.is_loopback("[::1]:1"))
        self.assertTrue(config.is_loopback("unix:/run/kbench/kbenchd.sock"))
        self.assertFalse(config.is_loopback("127.evil.example:1"))


def mint_token(directory, user):
    """Adds `user` to directory/auth.yaml with kbenchd's own tool; returns the token's file."""
    auth_file = os.path.join(directory, "auth.yaml")
    minted = subprocess.run([os.path.join(bin_dir(), "kbenchd"), "token", "add", "--auth-file",
                             auth_file, user], capture_output=True, text=True, timeout=30,
                            check=True)
    token_file = os.path.join(directory, f"{user}.token")
    with open(token_file, "w") as f:
        f.write(minted.stdout.strip().splitlines()[-1] + "\n")
    os.chmod(token_file, 0o600)
    return token_file


def make_pki(directory):
    """A CA and a server certificate for 127.0.0.1 (openssl); (ca, cert, key) paths."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=directory, capture_output=True, timeout=60,
                       check=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj",
        "/CN=kbench-python-test-ca", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(directory, "ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "1", "-extfile", "ext")
    return tuple(os.path.join(directory, n) for n in ("ca.pem", "server.pem", "server.key"))


class ContextTokenTest(unittest.TestCase):
    """A context's token-file authenticates to a kbenchd that requires tokens; a context's
    ca-file makes the channel TLS, checked against that CA."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        token_file = mint_token(cls.tmp.name, "alice")
        auth_file = os.path.join(cls.tmp.name, "auth.yaml")
        cls.daemon = Daemon(auth_file=auth_file)
        contexts = [f"  - name: lab\n    server: {cls.daemon.address}\n"
                    f"    token-file: {token_file}\n"]
        cls.tls_daemon = None
        if shutil.which("openssl"):
            ca, cert, key = make_pki(cls.tmp.name)
            cls.tls_daemon = Daemon(auth_file=auth_file,
                                    flags=["--tls-cert", cert, "--tls-key", key])
            contexts.append(f"  - name: tls-lab\n    server: {cls.tls_daemon.address}\n"
                            f"    token-file: {token_file}\n    ca-file: {ca}\n")
        cls.config = os.path.join(cls.tmp.name, "config.yaml")
        with open(cls.config, "w") as f:
            f.write("current-context: ''\ncontexts:\n" + "".join(contexts))

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        if cls.tls_daemon is not None:
            cls.tls_daemon.stop()
        cls.tmp.cleanup()

    def setUp(self):
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        for name in ("KBENCH_SERVER", "KBENCH_TOKEN"):
            os.environ.pop(name, None)
        os.environ["KBENCH_CONFIG"] = self.config

    def test_the_context_token_submits_as_its_user(self):
        with kbench.Client("lab", timeout=20) as kb:
            job = kb.bench("softmax", "host_rowwise", shape="64x64", device="cpu", wait=False,
                           stopping={"timeout_seconds": 2})
            self.assertEqual(kb.get(job.id).proto.spec.owner, "alice")
            kb.cancel(job.id)

    def test_a_context_with_a_ca_file_talks_tls(self):
        if self.tls_daemon is None:
            self.skipTest("no openssl to make a certificate")
        with kbench.Client("tls-lab", timeout=20) as kb:
            self.assertTrue(kb.connection.tls)
            self.assertIn("cpu", [d.id for d in kb.devices()])
            self.assertEqual(len(kb.list_jobs()), 0)

    def test_no_token_is_an_auth_error(self):
        with kbench.Client(server=self.daemon.address, timeout=20) as kb:
            with self.assertRaises(kbench.AuthError):
                kb.list_jobs()


if __name__ == "__main__":
    unittest.main()
