// absl::Status -> grpc::Status; the codes share their numbering.
#include "server/api/status_mapping.h"

#include <string>

namespace kbench::api {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace kbench::api
