// Field-by-field (de)serialisation; nlohmann's exceptions stay inside this file.
#include "server/executor/profile/activity_json.h"

#include "absl/strings/str_cat.h"

namespace kbench::executor::profile {
namespace {

using nlohmann::json;

json Dim3(const int32_t v[3]) { return json::array({v[0], v[1], v[2]}); }
void ReadDim3(const json& j, int32_t v[3]) {
  for (int i = 0; i < 3; ++i) v[i] = j.at(static_cast<size_t>(i)).get<int32_t>();
}

const char* TransferKindName(TransferActivity::Kind k) {
  return k == TransferActivity::Kind::kMemset ? "memset" : "memcpy";
}

}  // namespace

json ActivityLogToJson(const ActivityLog& log) {
  json j;
  j["kernels"] = json::array();
  for (const KernelActivity& k : log.kernels) {
    j["kernels"].push_back({{"name", k.name},
                            {"start_ns", k.start_ns},
                            {"end_ns", k.end_ns},
                            {"device", k.device},
                            {"context", k.context},
                            {"stream", k.stream},
                            {"correlation_id", k.correlation_id},
                            {"grid", Dim3(k.grid)},
                            {"block", Dim3(k.block)},
                            {"registers_per_thread", k.registers_per_thread},
                            {"static_shared_bytes", k.static_shared_bytes},
                            {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                            {"local_bytes_per_thread", k.local_bytes_per_thread}});
  }
  j["transfers"] = json::array();
  for (const TransferActivity& t : log.transfers) {
    j["transfers"].push_back({{"kind", TransferKindName(t.kind)},
                              {"copy_kind", t.copy_kind},
                              {"bytes", t.bytes},
                              {"start_ns", t.start_ns},
                              {"end_ns", t.end_ns},
                              {"device", t.device},
                              {"context", t.context},
                              {"stream", t.stream},
                              {"correlation_id", t.correlation_id}});
  }
  j["api_calls"] = json::array();
  for (const ApiActivity& a : log.api_calls) {
    j["api_calls"].push_back(
        {{"domain", a.domain == ApiActivity::Domain::kRuntime ? "runtime" : "driver"},
         {"name", a.name},
         {"callback_id", a.callback_id},
         {"start_ns", a.start_ns},
         {"end_ns", a.end_ns},
         {"process_id", a.process_id},
         {"thread_id", a.thread_id},
         {"correlation_id", a.correlation_id},
         {"return_value", a.return_value}});
  }
  j["syncs"] = json::array();
  for (const SyncActivity& s : log.syncs) {
    j["syncs"].push_back({{"type", s.type},
                          {"start_ns", s.start_ns},
                          {"end_ns", s.end_ns},
                          {"context", s.context},
                          {"stream", s.stream},
                          {"correlation_id", s.correlation_id}});
  }
  j["overheads"] = json::array();
  for (const OverheadActivity& o : log.overheads) {
    j["overheads"].push_back({{"kind", o.kind},
                              {"start_ns", o.start_ns},
                              {"end_ns", o.end_ns},
                              {"on_thread", o.on_thread},
                              {"process_id", o.process_id},
                              {"thread_id", o.thread_id},
                              {"device", o.device}});
  }
  j["spans"] = json::array();
  for (const HostSpan& s : log.spans) {
    j["spans"].push_back({{"phase", s.phase},
                          {"variant", s.variant},
                          {"iteration", s.iteration},
                          {"start_ns", s.start_ns},
                          {"end_ns", s.end_ns},
                          {"process_id", s.process_id},
                          {"thread_id", s.thread_id}});
  }
  j["functions"] = json::object();
  for (const auto& [name, f] : log.functions) {
    j["functions"][name] = {{"max_threads_per_block", f.max_threads_per_block}};
  }
  j["dropped_records"] = log.dropped_records;
  return j;
}

absl::StatusOr<ActivityLog> ActivityLogFromJson(const json& j) {
  ActivityLog log;
  std::string where = "the document";
  try {
    where = "kernels";
    for (const json& e : j.at("kernels")) {
      KernelActivity& k = log.kernels.emplace_back();
      k.name = e.at("name").get<std::string>();
      k.start_ns = e.at("start_ns").get<uint64_t>();
      k.end_ns = e.at("end_ns").get<uint64_t>();
      k.device = e.at("device").get<uint32_t>();
      k.context = e.value("context", 0u);
      k.stream = e.at("stream").get<uint32_t>();
      k.correlation_id = e.at("correlation_id").get<uint32_t>();
      ReadDim3(e.at("grid"), k.grid);
      ReadDim3(e.at("block"), k.block);
      k.registers_per_thread = e.at("registers_per_thread").get<int32_t>();
      k.static_shared_bytes = e.at("static_shared_bytes").get<int64_t>();
      k.dynamic_shared_bytes = e.at("dynamic_shared_bytes").get<int64_t>();
      k.local_bytes_per_thread = e.at("local_bytes_per_thread").get<int64_t>();
    }
    where = "transfers";
    for (const json& e : j.at("transfers")) {
      TransferActivity& t = log.transfers.emplace_back();
      t.kind = e.at("kind").get<std::string>() == "memset" ? TransferActivity::Kind::kMemset
                                                           : TransferActivity::Kind::kMemcpy;
      t.copy_kind = e.value("copy_kind", "");
      t.bytes = e.at("bytes").get<uint64_t>();
      t.start_ns = e.at("start_ns").get<uint64_t>();
      t.end_ns = e.at("end_ns").get<uint64_t>();
      t.device = e.at("device").get<uint32_t>();
      t.context = e.value("context", 0u);
      t.stream = e.at("stream").get<uint32_t>();
      t.correlation_id = e.at("correlation_id").get<uint32_t>();
    }
    where = "api_calls";
    for (const json& e : j.at("api_calls")) {
      ApiActivity& a = log.api_calls.emplace_back();
      a.domain = e.at("domain").get<std::string>() == "driver" ? ApiActivity::Domain::kDriver
                                                               : ApiActivity::Domain::kRuntime;
      a.name = e.at("name").get<std::string>();
      a.callback_id = e.value("callback_id", 0u);
      a.start_ns = e.at("start_ns").get<uint64_t>();
      a.end_ns = e.at("end_ns").get<uint64_t>();
      a.process_id = e.at("process_id").get<uint32_t>();
      a.thread_id = e.at("thread_id").get<uint32_t>();
      a.correlation_id = e.at("correlation_id").get<uint32_t>();
      a.return_value = e.value("return_value", 0u);
    }
    where = "syncs";
    static const json kEmptyArray = json::array();
    static const json kEmptyObject = json::object();
    const json& syncs = j.contains("syncs") ? j.at("syncs") : kEmptyArray;
    for (const json& e : syncs) {
      SyncActivity& s = log.syncs.emplace_back();
      s.type = e.at("type").get<std::string>();
      s.start_ns = e.at("start_ns").get<uint64_t>();
      s.end_ns = e.at("end_ns").get<uint64_t>();
      s.context = e.value("context", 0u);
      s.stream = e.value("stream", 0u);
      s.correlation_id = e.value("correlation_id", 0u);
    }
    where = "overheads";
    const json& overheads = j.contains("overheads") ? j.at("overheads") : kEmptyArray;
    for (const json& e : overheads) {
      OverheadActivity& o = log.overheads.emplace_back();
      o.kind = e.at("kind").get<std::string>();
      o.start_ns = e.at("start_ns").get<uint64_t>();
      o.end_ns = e.at("end_ns").get<uint64_t>();
      o.on_thread = e.value("on_thread", true);
      o.process_id = e.value("process_id", 0u);
      o.thread_id = e.value("thread_id", 0u);
      o.device = e.value("device", 0u);
    }
    where = "spans";
    for (const json& e : j.at("spans")) {
      HostSpan& s = log.spans.emplace_back();
      s.phase = e.at("phase").get<std::string>();
      s.variant = e.at("variant").get<std::string>();
      s.iteration = e.value("iteration", -1);
      s.start_ns = e.at("start_ns").get<uint64_t>();
      s.end_ns = e.at("end_ns").get<uint64_t>();
      s.process_id = e.at("process_id").get<uint32_t>();
      s.thread_id = e.at("thread_id").get<uint32_t>();
    }
    where = "functions";
    const json& functions = j.contains("functions") ? j.at("functions") : kEmptyObject;
    for (const auto& [name, f] : functions.items()) {
      log.functions[name].max_threads_per_block = f.at("max_threads_per_block").get<int>();
    }
    log.dropped_records = j.value("dropped_records", uint64_t{0});
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("activity json: ", where, ": ", e.what()));
  }
  return log;
}

}  // namespace kbench::executor::profile
