// The six malformed requests of issue 25 (item 4) that kbenchd once answered INTERNAL with no
// message, as raw bytes, each with the refusal it gets now. Shared by the diagnosis's unit test
// (tests/server/api/wire_diagnosis_test.cc) and the integration test against a real kbenchd.
#pragma once

#include <string>
#include <vector>

#include "kbench/v1/service.pb.h"
#include "tests/wire_bytes.h"

namespace kbench::testing {

struct MalformedRequest {
  std::string what;          // for a test's failure message
  std::string method;        // "SubmitJob"
  std::string request_type;  // "kbench.v1.SubmitJobRequest"
  std::string bytes;
  std::string refusal;  // the INVALID_ARGUMENT message in full
};

// A SubmitJobRequest that parses, serialized.
inline std::string WellFormedSubmit() {
  v1::SubmitJobRequest request;
  v1::JobSpec* spec = request.mutable_spec();
  spec->set_kernel("square");
  spec->add_variants("host_loop");
  spec->add_shape(1024);
  spec->set_device("cpu");
  request.set_idempotency_key("retry-1");
  return request.SerializeAsString();
}

inline std::vector<MalformedRequest> IssueTwentyFiveMalformedRequests() {
  using wire::LengthDelimited;
  const std::string submit = WellFormedSubmit();
  // Its last 9 bytes are the idempotency key: 12 fewer end inside spec.
  const std::string cut = submit.substr(0, submit.size() - 12);
  const std::string cut_refusal =
      "request kbench.v1.SubmitJobRequest is truncated: field spec (1) ends past the message "
      "(byte " +
      std::to_string(submit.size() - 9) + " of " + std::to_string(cut.size()) + ")";
  return {
      {"spec.kernel is not UTF-8", "SubmitJob", "kbench.v1.SubmitJobRequest",
       LengthDelimited(1, LengthDelimited(2, "sq\xff")),
       "request kbench.v1.SubmitJobRequest: field spec.kernel (2) is not valid UTF-8 at byte 2"},
      {"a variant is not UTF-8", "SubmitJob", "kbench.v1.SubmitJobRequest",
       LengthDelimited(1, LengthDelimited(2, "square") + LengthDelimited(3, "host_loop") +
                              LengthDelimited(3, "n\xc3(")),
       "request kbench.v1.SubmitJobRequest: field spec.variants[1] (3) is not valid UTF-8 at "
       "byte 1"},
      {"the idempotency key ends inside a character", "SubmitJob", "kbench.v1.SubmitJobRequest",
       LengthDelimited(1, LengthDelimited(2, "square")) + LengthDelimited(2, "key-\xe2\x82"),
       "request kbench.v1.SubmitJobRequest: field idempotency_key (2) is not valid UTF-8 at "
       "byte 4"},
      {"a list filter is overlong UTF-8", "ListJobs", "kbench.v1.ListJobsRequest",
       LengthDelimited(2, "\xc0\xaf"),  // '/' in two bytes
       "request kbench.v1.ListJobsRequest: field kernel (2) is not valid UTF-8 at byte 0"},
      {"100,000 nested unknown groups", "SubmitJob", "kbench.v1.SubmitJobRequest",
       wire::NestedGroups(15, 100000),
       "request kbench.v1.SubmitJobRequest nests groups deeper than 100: the group of field 15 "
       "at byte 100 is 101 deep"},
      {"a request cut short", "SubmitJob", "kbench.v1.SubmitJobRequest", cut, cut_refusal},
  };
}

}  // namespace kbench::testing
