"""Exceptions of the kbench Python client: a failed RPC as a KbenchError carrying the gRPC code,
the server's message and the request field it names; config and job failures apart."""

import re

import grpc

# kbenchd's messages name the field first ("shape: softmax takes 2 dims ..."; STYLE.md: messages
# name the field and the value that was wrong), so the field is read from that prefix.
_FIELD_PREFIX = re.compile(r"^([A-Za-z_][\w.\[\]@-]*): ")


class KbenchError(Exception):
    """A call to kbenchd failed. `code` is the grpc.StatusCode, `field` the request field the
    server named ("" when its message names none), `details` its message."""

    def __init__(self, code, details, server=""):
        self.code = code
        self.details = details or ""
        self.server = server
        match = _FIELD_PREFIX.match(self.details)
        self.field = match.group(1) if match else ""
        super().__init__(f"{code.name}: {self.details}")


class InvalidArgumentError(KbenchError, ValueError):
    """The request was refused as malformed; `field` says which part."""


class NotFoundError(KbenchError, LookupError):
    """No job, sweep, artifact or variant of that id."""


class FailedPreconditionError(KbenchError):
    """The request is valid but not now (e.g. deleting a running job)."""


class AuthError(KbenchError, PermissionError):
    """UNAUTHENTICATED or PERMISSION_DENIED: a missing, wrong or too weak token."""


class ResourceExhaustedError(KbenchError):
    """A quota or limit of the caller's was reached."""


class UnavailableError(KbenchError, ConnectionError):
    """kbenchd could not be reached (or is draining)."""


_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.OUT_OF_RANGE: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.UNAUTHENTICATED: AuthError,
    grpc.StatusCode.PERMISSION_DENIED: AuthError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
}


def from_rpc_error(error, server=""):
    """The KbenchError subclass for a grpc.RpcError, with a hint where the address is the likely
    cause (as kbctl gives one)."""
    code = error.code()
    details = error.details() or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        details += f" (is kbenchd listening on {server}? pass server= or set KBENCH_SERVER)"
    return _BY_CODE.get(code, KbenchError)(code, details, server)


class ConfigError(ValueError):
    """The config file, a context or the credentials cannot be used."""


# grpc.StatusCode by number: kbench.v1.StatusCode numbers the codes as gRPC does.
_CODE_BY_NUMBER = {c.value[0]: c for c in grpc.StatusCode}


class JobFailedError(RuntimeError):
    """wait() found the job FAILED or CANCELLED; `job` is the Job, `code` the grpc.StatusCode it
    ended with (UNKNOWN where it names none) and `error_code` that code's name (e.g.
    "RESOURCE_EXHAUSTED")."""

    def __init__(self, job):
        self.job = job
        self.code = _job_code(job)
        self.error_code = job.error_code
        super().__init__(f"job {job.id} {job.state}: {job.error_code} {job.error}".rstrip())


def _job_code(job):
    """The grpc.StatusCode a Job (results.Job) ended with: its message's error_status, or the code
    error_code names where an older kbenchd sets only that."""
    number = job.proto.error_status
    if number:
        return _CODE_BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)
    return grpc.StatusCode.__members__.get(job.error_code, grpc.StatusCode.UNKNOWN)
