#include "server/store/held_writes.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_code_name.h"
#include "common/status_macros.h"
#include "server/common/logging.h"
#include "server/store/file_moves.h"

namespace kbench::store {
namespace {

namespace fs = std::filesystem;
using logging::Field;
using logging::Level;

constexpr char kFinishFile[] = "finish";
constexpr char kArtifactsDir[] = "artifacts";
constexpr char kTypesDir[] = "types";
constexpr char kMagic[] = "kbench-held-finish 2";
// Version 1 (before issue 27) held the status code's name in a field "error_code".
constexpr char kMagicByName[] = "kbench-held-finish 1";

// "NAME LENGTH\nBYTES\n": a field whose bytes may hold anything (a serialized result).
void AppendField(std::string* out, const std::string& name, const std::string& bytes) {
  absl::StrAppend(out, name, " ", bytes.size(), "\n", bytes, "\n");
}

// Reads one AppendField from `bytes` at `*at`, which must carry `name`.
absl::StatusOr<std::string> ReadField(const std::string& bytes, size_t* at,
                                      const std::string& name) {
  const size_t end_of_header = bytes.find('\n', *at);
  if (end_of_header == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("held finish: no field '", name, "'"));
  }
  const std::string header = bytes.substr(*at, end_of_header - *at);
  std::vector<std::string> parts = absl::StrSplit(header, ' ');
  size_t length = 0;
  if (parts.size() != 2 || parts[0] != name || !absl::SimpleAtoi(parts[1], &length) ||
      end_of_header + 1 + length + 1 > bytes.size() || bytes[end_of_header + 1 + length] != '\n') {
    return absl::InvalidArgumentError(
        absl::StrCat("held finish: field '", name, "' is malformed ('", header, "')"));
  }
  *at = end_of_header + 1 + length + 1;
  return bytes.substr(end_of_header + 1, length);
}

// The field "code": an absl::StatusCode's number.
absl::StatusOr<absl::StatusCode> ReadCode(const std::string& bytes, size_t* at) {
  KBENCH_ASSIGN_OR_RETURN(std::string number, ReadField(bytes, at, "code"));
  int code = 0;
  if (!absl::SimpleAtoi(number, &code) || code < 0) {
    return absl::InvalidArgumentError(absl::StrCat("held finish: bad status code '", number, "'"));
  }
  return static_cast<absl::StatusCode>(code);
}

// Version 1's field "error_code": the code's name, "" for OK.
absl::StatusOr<absl::StatusCode> ReadCodeByName(const std::string& bytes, size_t* at,
                                                JobState state) {
  KBENCH_ASSIGN_OR_RETURN(std::string name, ReadField(bytes, at, "error_code"));
  return StatusCodeFromName(name, state == JobState::kFailed);
}

std::string ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace

std::string EncodeHeldFinish(const HeldFinish& finish) {
  std::string out = absl::StrCat(kMagic, "\n");
  AppendField(&out, "state", JobStateName(finish.state));
  AppendField(&out, "finish_time_ns", absl::StrCat(finish.finish_time_ns));
  AppendField(&out, "code", absl::StrCat(static_cast<int>(finish.code)));
  AppendField(&out, "error", finish.error);
  AppendField(&out, "result", finish.result);
  return out;
}

absl::StatusOr<HeldFinish> DecodeHeldFinish(const std::string& bytes) {
  const std::string magic = absl::StrCat(kMagic, "\n");
  const std::string magic_by_name = absl::StrCat(kMagicByName, "\n");
  const bool by_name = bytes.compare(0, magic_by_name.size(), magic_by_name) == 0;
  if (!by_name && bytes.compare(0, magic.size(), magic) != 0) {
    return absl::InvalidArgumentError("held finish: not a held terminal state");
  }
  size_t at = by_name ? magic_by_name.size() : magic.size();
  HeldFinish finish;
  KBENCH_ASSIGN_OR_RETURN(std::string state, ReadField(bytes, &at, "state"));
  KBENCH_ASSIGN_OR_RETURN(finish.state, ParseJobState(state));
  if (!IsTerminal(finish.state)) {
    return absl::InvalidArgumentError(absl::StrCat("held finish: '", state, "' is not terminal"));
  }
  KBENCH_ASSIGN_OR_RETURN(std::string time, ReadField(bytes, &at, "finish_time_ns"));
  if (!absl::SimpleAtoi(time, &finish.finish_time_ns)) {
    return absl::InvalidArgumentError(absl::StrCat("held finish: bad finish time '", time, "'"));
  }
  KBENCH_ASSIGN_OR_RETURN(
      finish.code, by_name ? ReadCodeByName(bytes, &at, finish.state) : ReadCode(bytes, &at));
  KBENCH_ASSIGN_OR_RETURN(finish.error, ReadField(bytes, &at, "error"));
  KBENCH_ASSIGN_OR_RETURN(finish.result, ReadField(bytes, &at, "result"));
  if (at != bytes.size()) return absl::InvalidArgumentError("held finish: trailing bytes");
  return finish;
}

HeldWrites::HeldWrites(std::string dir, std::string node)
    : dir_(std::move(dir)), node_(std::move(node)) {}

std::string HeldWrites::JobDir(const std::string& job_id) const {
  return (fs::path(dir_) / job_id).string();
}

absl::Status HeldWrites::Load() {
  absl::MutexLock lock(&mu_);
  std::error_code error;
  if (dir_.empty() || !fs::exists(dir_, error)) return absl::OkStatus();
  for (const fs::directory_entry& job : fs::directory_iterator(dir_, error)) {
    if (!job.is_directory()) continue;
    if (absl::Status s = LoadJob(job.path().filename().string()); !s.ok()) {
      logging::Log(Level::kError, "a held write is unreadable; dropped",
                   {Field("path", job.path().string()), Field("error", s.ToString())});
    }
  }
  if (error) {
    return absl::ErrnoToStatus(error.value(), absl::StrCat("read held writes under '", dir_, "'"));
  }
  return absl::OkStatus();
}

absl::Status HeldWrites::LoadJob(const std::string& job_id) {
  const fs::path job_dir = JobDir(job_id);
  std::error_code error;
  for (const fs::directory_entry& file : fs::directory_iterator(job_dir / kArtifactsDir, error)) {
    const std::string name = file.path().filename().string();
    // A move or write cut short by a crash: not held, whatever it holds.
    if (absl::EndsWith(name, ".writing")) {
      fs::remove(file.path(), error);
      continue;
    }
    const fs::path type_file = job_dir / kTypesDir / name;
    artifacts_[job_id][name] = HeldArtifact{job_id, name, file.path().string(),
                                            fs::exists(type_file) ? ReadWholeFile(type_file) : ""};
  }
  const fs::path finish_file = job_dir / kFinishFile;
  if (fs::exists(finish_file)) {
    KBENCH_ASSIGN_OR_RETURN(finishes_[job_id], DecodeHeldFinish(ReadWholeFile(finish_file)));
  }
  RemoveJobDirIfEmpty(job_id);
  return absl::OkStatus();
}

absl::StatusOr<HeldArtifact> HeldWrites::HoldArtifact(const std::string& job_id,
                                                      const std::string& name,
                                                      const std::string& source_path,
                                                      const std::string& content_type) {
  absl::MutexLock lock(&mu_);
  if (dir_.empty()) return absl::FailedPreconditionError("no directory to hold artifacts in");
  const fs::path job_dir = JobDir(job_id);
  std::error_code error;
  fs::create_directories(job_dir / kArtifactsDir, error);
  fs::create_directories(job_dir / kTypesDir, error);
  if (error) {
    return absl::ErrnoToStatus(error.value(),
                               absl::StrCat("create '", job_dir.string(), "' to hold artifacts"));
  }
  const std::string path = (job_dir / kArtifactsDir / name).string();
  KBENCH_RETURN_IF_ERROR(MoveFile(source_path, path));
  // Without its type file the artifact is still held (as application/octet-stream after a
  // restart): the bytes matter, the label can be lost.
  if (absl::Status s = WriteFileDurably((job_dir / kTypesDir / name).string(), content_type);
      !s.ok()) {
    logging::LogJob(Level::kWarn, job_id, "held artifact's content type not written",
                    {Field("artifact", name), Field("error", s.ToString())});
  }
  HeldArtifact held{job_id, name, path, content_type};
  artifacts_[job_id][name] = held;
  return held;
}

void HeldWrites::HoldFinish(const std::string& job_id, const HeldFinish& finish) {
  absl::MutexLock lock(&mu_);
  finishes_[job_id] = finish;
  if (dir_.empty()) return;
  std::error_code error;
  fs::create_directories(JobDir(job_id), error);
  absl::Status written =
      error ? absl::ErrnoToStatus(error.value(), absl::StrCat("create '", JobDir(job_id), "'"))
            : WriteFileDurably((fs::path(JobDir(job_id)) / kFinishFile).string(),
                               EncodeHeldFinish(finish));
  if (!written.ok()) {
    logging::LogJob(Level::kError, job_id,
                    "terminal state held in memory only: lost if kbenchd stops before the store "
                    "takes it",
                    {Field("error", written.ToString())});
  }
}

std::vector<HeldArtifact> HeldWrites::Artifacts() {
  absl::MutexLock lock(&mu_);
  std::vector<HeldArtifact> out;
  for (const auto& [job, by_name] : artifacts_) {
    for (const auto& [name, held] : by_name) out.push_back(held);
  }
  return out;
}

std::map<std::string, HeldFinish> HeldWrites::Finishes() {
  absl::MutexLock lock(&mu_);
  return finishes_;
}

std::optional<HeldFinish> HeldWrites::FinishOf(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  auto it = finishes_.find(job_id);
  if (it == finishes_.end()) return std::nullopt;
  return it->second;
}

bool HeldWrites::HoldsArtifactsOf(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  return artifacts_.contains(job_id);
}

int64_t HeldWrites::Count() {
  absl::MutexLock lock(&mu_);
  int64_t count = static_cast<int64_t>(finishes_.size());
  for (const auto& [job, by_name] : artifacts_) count += static_cast<int64_t>(by_name.size());
  return count;
}

int64_t HeldWrites::FinishCount() {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(finishes_.size());
}

void HeldWrites::ReleaseArtifact(const std::string& job_id, const std::string& name) {
  absl::MutexLock lock(&mu_);
  auto job = artifacts_.find(job_id);
  if (job == artifacts_.end()) return;
  std::error_code error;
  // Gone already when the store moved the bytes in.
  fs::remove(job->second[name].path, error);
  fs::remove(fs::path(JobDir(job_id)) / kTypesDir / name, error);
  job->second.erase(name);
  if (job->second.empty()) artifacts_.erase(job);
  RemoveJobDirIfEmpty(job_id);
}

void HeldWrites::ReleaseFinish(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  std::error_code error;
  if (!dir_.empty()) fs::remove(fs::path(JobDir(job_id)) / kFinishFile, error);
  finishes_.erase(job_id);
  RemoveJobDirIfEmpty(job_id);
}

void HeldWrites::RemoveJobDirIfEmpty(const std::string& job_id) {
  if (dir_.empty() || artifacts_.contains(job_id) || finishes_.contains(job_id)) return;
  std::error_code error;
  fs::remove_all(JobDir(job_id), error);
}

}  // namespace kbench::store
