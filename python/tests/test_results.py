"""A job's status code without a daemon: read from Job.error_status, or from the name an older
kbenchd sets alone in Job.error_code."""

import unittest

import grpc

from kbench.errors import JobFailedError
from kbench.results import Job
from kbench.v1 import types_pb2


def failed_job(**fields):
    return Job.from_proto(types_pb2.Job(id="j-1", state=types_pb2.JOB_STATE_FAILED, error="boom",
                                        **fields))


class StatusCodeTest(unittest.TestCase):
    def test_the_code_is_read_from_error_status(self):
        job = failed_job(error_status=types_pb2.STATUS_CODE_RESOURCE_EXHAUSTED)
        self.assertEqual(job.error_code, "RESOURCE_EXHAUSTED")
        self.assertEqual(JobFailedError(job).code, grpc.StatusCode.RESOURCE_EXHAUSTED)

    def test_an_older_servers_name_is_read_where_error_status_is_unset(self):
        job = failed_job(error_code="INTERNAL")
        self.assertEqual(job.error_code, "INTERNAL")
        self.assertEqual(JobFailedError(job).code, grpc.StatusCode.INTERNAL)

    def test_a_name_that_is_no_code_is_unknown(self):
        self.assertEqual(JobFailedError(failed_job(error_code="NO_SUCH_CODE")).code,
                         grpc.StatusCode.UNKNOWN)

    def test_every_status_code_has_grpcs_number(self):
        for name, number in types_pb2.StatusCode.items():
            self.assertEqual(grpc.StatusCode[name[len("STATUS_CODE_"):]].value[0], number)


if __name__ == "__main__":
    unittest.main()
