// Raw-bytes calls through gRPC's generic stub (raw_call.h).
#include "tests/integration/raw_call.h"

#include <memory>
#include <vector>

namespace kbench::testing {
namespace {

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string BytesOf(grpc::ByteBuffer& buffer) {
  std::string bytes;
  std::vector<grpc::Slice> slices;
  if (buffer.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices) {
      bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
  }
  return bytes;
}

}  // namespace

grpc::Status RawCall(grpc::GenericStub& stub, const std::string& method_path,
                     const std::string& bytes, std::chrono::milliseconds timeout,
                     std::string* first_reply) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&ctx, method_path, &cq);
  void* tag = nullptr;
  bool ok = false;
  call->StartCall(reinterpret_cast<void*>(1));
  cq.Next(&tag, &ok);
  const grpc::ByteBuffer request = ToBuffer(bytes);
  call->WriteLast(request, grpc::WriteOptions(), reinterpret_cast<void*>(2));
  cq.Next(&tag, &ok);
  grpc::ByteBuffer reply;
  if (first_reply != nullptr) first_reply->clear();
  bool first = true;
  do {
    call->Read(&reply, reinterpret_cast<void*>(3));
    cq.Next(&tag, &ok);
    if (ok && first && first_reply != nullptr) *first_reply = BytesOf(reply);
    if (ok) first = false;
  } while (ok);
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(4));
  cq.Next(&tag, &ok);
  return status;
}

}  // namespace kbench::testing
