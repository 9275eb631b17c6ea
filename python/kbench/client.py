"""kbench.Client: one gRPC channel to kbenchd and a typed call for every RPC of
kbench.v1.KbenchService. Unary calls carry `timeout`; streams (watch, artifact downloads) have
none unless given, since a job may queue and run for minutes and the server ends them at its
terminal state."""

import hashlib
import logging
import sys
import time
import uuid

import grpc

from . import config as config_mod
from .boards import HistoryEntry, JobDiff, Leaderboard
from .errors import JobFailedError, KbenchError, UnavailableError, from_rpc_error
from .results import Artifact, Job, job_list
from .spec import enum_value, make_spec, shape_of
from .sweeps import Sweep
from .tabular import TabularList
from .v1 import (fleet_pb2, history_pb2, service_pb2, service_pb2_grpc, sweep_pb2, types_pb2,
                 usage_pb2, variants_pb2)

__version__ = "0.1.0"
# A list of 1000 jobs with their results is larger than gRPC's 4 MiB default (as kbctl).
MAX_RECEIVE_BYTES = 256 << 20
# A submit refused UNAVAILABLE (kbenchd draining for a restart, or not listening yet) is sent
# again with its idempotency key, as kbctl does (client/submit_retry.h): 10 attempts, waits
# doubling from 0.25 s to 4 s, about 28 s in all: a default drain and a start with room to spare.
SUBMIT_ATTEMPTS = 10
SUBMIT_FIRST_BACKOFF_SECONDS = 0.25
SUBMIT_MAX_BACKOFF_SECONDS = 4.0
log = logging.getLogger("kbench")


class Client:
    """Connects as kbctl would (kbench.config.resolve): explicit arguments, then $KBENCH_SERVER
    and $KBENCH_TOKEN, then the config file's `context` (else its current one). No connection is
    made until the first call. Use as a context manager, or call close()."""

    def __init__(self, context=None, *, server=None, token=None, ca_file=None, tls=False,
                 timeout=30.0):
        self.connection = config_mod.resolve(server=server, token=token, ca_file=ca_file,
                                              tls=tls, context=context)
        self.timeout = timeout
        # A submit retried across a restart must find the channel trying to connect again, not
        # failing at once while it waits out gRPC's own back-off (1 s, growing 1.6x): kbctl's.
        options = [("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
                   ("grpc.primary_user_agent", f"kbench-python/{__version__}"),
                   ("grpc.initial_reconnect_backoff_ms", 200),
                   ("grpc.max_reconnect_backoff_ms", 2000)]
        c = self.connection
        if c.tls:
            roots = None
            if c.ca_file:
                with open(c.ca_file, "rb") as f:
                    roots = f.read()
            self._channel = grpc.secure_channel(
                c.server, grpc.ssl_channel_credentials(root_certificates=roots), options)
        else:
            self._channel = grpc.insecure_channel(c.server, options)
        # Plain metadata, as kbctl sends it: call credentials refuse plaintext channels, and a
        # loopback kbenchd with an auth file has no TLS (resolve refuses any other address).
        self._metadata = (("authorization", f"Bearer {c.token}"),) if c.token else ()
        self._stub = service_pb2_grpc.KbenchServiceStub(self._channel)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._channel.close()

    def __repr__(self):
        return f"kbench.Client(server={self.connection.server!r})"

    def _call(self, method, request):
        try:
            return getattr(self._stub, method)(request, timeout=self.timeout,
                                               metadata=self._metadata)
        except grpc.RpcError as e:
            raise from_rpc_error(e, self.connection.server) from None

    def _stream(self, method, request, timeout=None):
        try:
            yield from getattr(self._stub, method)(request, timeout=timeout,
                                                   metadata=self._metadata)
        except grpc.RpcError as e:
            raise from_rpc_error(e, self.connection.server) from None

    def _submit(self, method, request):
        """A submit, sent again while kbenchd answers UNAVAILABLE: the request's idempotency key
        makes a repeat return the first one's job (or sweep), never a second."""
        wait = SUBMIT_FIRST_BACKOFF_SECONDS
        for attempt in range(1, SUBMIT_ATTEMPTS + 1):
            try:
                return self._call(method, request)
            except UnavailableError as e:
                if attempt == SUBMIT_ATTEMPTS:
                    raise
                log.warning("kbench: %s; submitting again (key %s) in %.2f s, attempt %d of %d",
                            e.details, request.idempotency_key, wait, attempt + 1,
                            SUBMIT_ATTEMPTS)
                self._await_channel(wait)
                wait = min(2 * wait, SUBMIT_MAX_BACKOFF_SECONDS)

    def _await_channel(self, seconds):
        """Waits up to `seconds` for the channel to connect, asking it to: a channel left alone
        after a refused connection answers later calls from its failure for a while."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=seconds)
        except grpc.FutureTimeoutError:
            pass

    def _paged(self, method, request, items, limit):
        """Up to `limit` items of a paged list, following next_page_token."""
        out = []
        while len(out) < limit:
            response = self._call(method, request)
            out += getattr(response, items)
            if not response.next_page_token:
                break
            request.page_token = response.next_page_token
        return out[:limit]

    # Catalogue, devices and fleet.
    def kernels(self):
        """The catalogue: kbench.v1.KernelInfo messages (name, dims, variants, abi, ...)."""
        return list(self._call("ListKernels", service_pb2.ListKernelsRequest()).kernels)

    def devices(self):
        """kbench.v1.DeviceInfo messages (id, kind, name, state, queue_depth, ...)."""
        return list(self._call("ListDevices", service_pb2.ListDevicesRequest()).devices)

    def nodes(self):
        return list(self._call("ListNodes", fleet_pb2.ListNodesRequest()).nodes)

    def usage(self, owner=""):
        """kbench.v1.GetUsageResponse: each owner's GPU time, share, jobs and limits."""
        return self._call("GetUsage", usage_pb2.GetUsageRequest(owner=owner))

    # Jobs.
    def submit(self, spec, idempotency_key=None):
        """Queues a kbench.v1.JobSpec (see kbench.make_spec). A retry with the same key returns
        the job the first submit created; one is drawn when none is given, and the submit is
        sent again while kbenchd is unavailable (restarting), as kbctl does."""
        request = service_pb2.SubmitJobRequest(
            spec=spec, idempotency_key=idempotency_key or uuid.uuid4().hex)
        return Job.from_proto(self._submit("SubmitJob", request).job)

    def bench(self, kernel, variants=(), *, wait=True, progress=False, timeout=None,
              idempotency_key=None, **spec_fields):
        """Submits a benchmark (several variants: a compare, sampled interleaved) and, unless
        wait=False, waits for its result (at most `timeout` seconds when given). spec_fields
        are make_spec's (shape, dtype, device, mode, params, seed, stopping, placements,
        user_kernels, ...)."""
        job = self.submit(make_spec(kernel, variants, **spec_fields), idempotency_key)
        return self.wait(job.id, progress=progress, timeout=timeout) if wait else job

    def compare(self, kernel, variants, **kwargs):
        """bench() of several variants in one job; each result's speedup_vs_first is over the
        first variant's median."""
        return self.bench(kernel, variants, **kwargs)

    def get(self, job_id):
        return Job.from_proto(self._call("GetJob", service_pb2.GetJobRequest(job_id=job_id)).job)

    def watch(self, job_id, timeout=None):
        """Yields the job (a Job, with .progress while it runs) at each change the server
        streams; ends after its terminal state. `timeout` (seconds) bounds the whole stream:
        past it, a KbenchError with code DEADLINE_EXCEEDED (the job runs on)."""
        request = service_pb2.WatchJobRequest(job_id=job_id)
        for update in self._stream("WatchJob", request, timeout):
            yield Job.from_proto(update.job)

    def wait(self, job_id, *, progress=False, check=True, timeout=None):
        """Watches the job to its end and returns it. progress=True prints each update to
        stderr; a callable receives each Job. check=True raises JobFailedError for a job that
        failed or was cancelled. `timeout` as watch's."""
        job = None
        for job in self.watch(job_id, timeout):
            if callable(progress):
                progress(job)
            elif progress:
                print(_progress_line(job), file=sys.stderr)
        job = self.get(job_id) if job is None or not job.done else job
        if check and job.state != "SUCCEEDED":
            raise JobFailedError(job)
        return job

    def cancel(self, job_id):
        return Job.from_proto(
            self._call("CancelJob", service_pb2.CancelJobRequest(job_id=job_id)).job)

    def delete(self, job_id):
        """Removes a finished job with its artifacts; returns how many artifacts went."""
        request = service_pb2.DeleteJobRequest(job_id=job_id)
        return self._call("DeleteJob", request).artifacts_removed

    def list_jobs(self, *, state=None, kernel="", device="", limit=50, full=False):
        """Newest first, up to `limit` jobs (paged through as needed)."""
        request = service_pb2.ListJobsRequest(
            state=enum_value(types_pb2.JobState, "JOB_STATE_", state, "state"), kernel=kernel,
            device=device, page_size=min(limit, 1000),
            view=service_pb2.JOB_VIEW_FULL if full else service_pb2.JOB_VIEW_SUMMARY)
        jobs = self._paged("ListJobs", request, "jobs", limit)
        return job_list(jobs, caption=f"{len(jobs)} jobs")

    def diff(self, baseline, candidate):
        """Two jobs' (ids or Jobs) medians per variant, compared here. A first look only:
        kbctl diff's verdicts (SAME / FASTER / SLOWER / UNSURE against the key's between-job
        noise, docs/verdicts.md) are computed by kbctl, not by kbenchd."""
        def job(j):
            j = self.get(j) if isinstance(j, str) else j
            if j.result is None:
                raise ValueError(f"job {j.id} has no result ({j.state})")
            return j
        return JobDiff.of(job(baseline), job(candidate))

    # Artifacts.
    def artifacts(self, job_id):
        """The job's (or a sweep's) artifacts: Artifact(name, size_bytes, sha256, ...)."""
        if job_id.startswith("s-"):
            return self.get_sweep(job_id).artifacts
        return self.get(job_id).artifacts

    def download(self, job_id, name, path=None):
        """The artifact's bytes (written to `path` too when given), checked against the sha256
        the server announced in its first chunk."""
        request = service_pb2.GetArtifactRequest(job_id=job_id, name=name)
        info, chunks = None, []
        for chunk in self._stream("GetArtifact", request):
            if chunk.HasField("info"):
                info = Artifact.from_proto(chunk.info)
            chunks.append(chunk.data)
        data = b"".join(chunks)
        if info is not None and info.sha256 and hashlib.sha256(data).hexdigest() != info.sha256:
            raise KbenchError(grpc.StatusCode.DATA_LOSS,
                              f"{name}: sha256 of the bytes received differs from the server's")
        if path is not None:
            with open(path, "wb") as f:
                f.write(data)
        return data

    # Sweeps.
    def submit_sweep(self, kernel, axes, *, zip=(), variants=(), idempotency_key=None,
                     **spec_fields):
        """Queues one job per point. axes maps an axis ("rows", a param, "dtype", "variants")
        to its values as kbctl writes them: "256,1024", "256:4096:*2" or "1:9:+4"."""
        spec = sweep_pb2.SweepSpec(base=make_spec(kernel, variants, **spec_fields),
                                   axes=[sweep_pb2.SweepAxis(name=k, values=str(v))
                                         for k, v in axes.items()], zip=list(zip))
        request = sweep_pb2.SubmitSweepRequest(
            spec=spec, idempotency_key=idempotency_key or uuid.uuid4().hex)
        return Sweep.from_proto(self._submit("SubmitSweep", request).sweep)

    def get_sweep(self, sweep_id, with_jobs=False):
        response = self._call("GetSweep",
                              sweep_pb2.GetSweepRequest(sweep_id=sweep_id, with_jobs=with_jobs))
        return Sweep.from_proto(response.sweep, response.jobs)

    def wait_sweep(self, sweep_id, *, poll_seconds=0.5, timeout=None):
        """Polls until the sweep is DONE or CANCELLED; returns it with its jobs."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            sweep = self.get_sweep(sweep_id)
            if sweep.done:
                return self.get_sweep(sweep_id, with_jobs=True)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"sweep {sweep_id} still {sweep.state} after {timeout} s")
            time.sleep(poll_seconds)

    def cancel_sweep(self, sweep_id):
        request = sweep_pb2.CancelSweepRequest(sweep_id=sweep_id)
        return Sweep.from_proto(self._call("CancelSweep", request).sweep)

    def delete_sweep(self, sweep_id):
        return self._call("DeleteSweep", sweep_pb2.DeleteSweepRequest(sweep_id=sweep_id))

    def list_sweeps(self, limit=20):
        response = self._call("ListSweeps", sweep_pb2.ListSweepsRequest(page_size=limit))
        return TabularList([Sweep.from_proto(s) for s in response.sweeps], f"{limit} sweeps")

    # Results over time.
    def history(self, kernel, *, variant="", shape=None, dtype=None, device="", mode=None,
                limit=50, include_unclean=False):
        """One operation's indexed results, newest first (HistoryEntry, table-able).

        Results whose clean stamp found contamination on the device are left out unless
        include_unclean (as kbctl history --include-unclean)."""
        request = history_pb2.ListHistoryRequest(
            kernel=kernel, variant=variant, shape=shape_of(shape),
            dtype=enum_value(types_pb2.DType, "DTYPE_", dtype, "dtype"), device=device,
            mode=enum_value(types_pb2.MeasureMode, "MEASURE_MODE_", mode, "mode"),
            page_size=min(limit, 1000), include_unclean=include_unclean)
        entries = self._paged("ListHistory", request, "entries", limit)
        return TabularList([HistoryEntry.from_proto(e) for e in entries], f"history of {kernel}")

    def leaderboard(self, kernel, shapes, *, dtype="f32", device_model, mode=None,
                    include_unranked=False, by="time", include_unclean=False):
        """Each variant's counted results per shape, ranked by the geometric mean of their
        time (by="time") or of their energy per launch (by="energy": measured results only)."""
        if by not in ("time", "energy"):
            raise ValueError(f"by: {by!r} is not a ranking; give 'time' or 'energy'")
        request = history_pb2.GetLeaderboardRequest(
            kernel=kernel, shapes=[history_pb2.Shape(dims=shape_of(s)) for s in shapes],
            dtype=enum_value(types_pb2.DType, "DTYPE_", dtype, "dtype"),
            device_model=device_model,
            mode=enum_value(types_pb2.MeasureMode, "MEASURE_MODE_", mode, "mode"),
            include_unranked=include_unranked, by_energy=(by == "energy"),
            include_unclean=include_unclean)
        return Leaderboard.from_proto(self._call("GetLeaderboard", request))

    # Registered user variants (variants.proto): kbench.v1.RegisteredVariant messages.
    def add_variant(self, operation, kernel):
        """Registers a kbench.v1.UserKernel (kernel.name, e.g. "@mine", names the variant)."""
        request = variants_pb2.AddVariantRequest(operation=operation, kernel=kernel)
        return self._call("AddVariant", request).variant

    def get_variant(self, operation, name, include_code=False):
        request = variants_pb2.GetVariantRequest(operation=operation, name=name,
                                                 include_code=include_code)
        return self._call("GetVariant", request).variant

    def list_variants(self, operation=""):
        request = variants_pb2.ListVariantsRequest(operation=operation)
        return list(self._call("ListVariants", request).variants)

    def delete_variant(self, operation, name):
        request = variants_pb2.DeleteVariantRequest(operation=operation, name=name)
        self._call("DeleteVariant", request)


def _progress_line(job):
    p = job.progress
    if p is None or job.done:
        return f"{job.id} {job.state}"
    return (f"{job.id} {job.state} {p.phase} {p.variant} samples={p.samples} "
            f"noise={p.noise:.4f} elapsed={p.elapsed_seconds:.1f}s")
