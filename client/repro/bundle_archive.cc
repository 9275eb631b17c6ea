// The bundle's tar.gz through libarchive, and its manifest of checksums.
#include "client/repro/bundle_archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <ctime>
#include <memory>

#include "absl/strings/str_cat.h"
#include "client/artifact_download.h"
#include "client/errors.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace kbench::client {
namespace {

struct ArchiveCloser {
  void operator()(archive* a) const { archive_free(a); }  // archive_free closes first
};
using ArchivePtr = std::unique_ptr<archive, ArchiveCloser>;

absl::Status ArchiveError(archive* a, const std::string& path, const std::string& what) {
  const char* why = archive_error_string(a);
  return LocalError(absl::StatusCode::kInvalidArgument,
                    absl::StrCat(path, ": ", what, ": ", why != nullptr ? why : "unknown error"));
}

std::string BundleManifestJson(const BundleMembers& members, const std::string& job_id,
                               const std::string& kbench_version) {
  nlohmann::json doc = {{"format", kBundleFormat},
                        {"version", kBundleVersion},
                        {"job_id", job_id},
                        {"kbench_version", kbench_version},
                        {"members", nlohmann::json::array()}};
  for (const auto& [name, bytes] : members) {
    doc["members"].push_back(
        {{"name", name}, {"size", bytes.size()}, {"sha256", Sha256Hex(bytes)}});
  }
  return doc.dump(2) + "\n";
}

absl::Status AddBundleMember(archive* a, const std::string& path, const std::string& name,
                             const std::string& bytes) {
  std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(),
                                                                      archive_entry_free);
  archive_entry_set_pathname(entry.get(), name.c_str());
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(bytes.size()));
  archive_entry_set_filetype(entry.get(), AE_IFREG);
  archive_entry_set_perm(entry.get(), 0644);
  archive_entry_set_mtime(entry.get(), std::time(nullptr), 0);  // when it was bundled
  if (archive_write_header(a, entry.get()) != ARCHIVE_OK) {
    return ArchiveError(a, path, absl::StrCat("cannot write ", name));
  }
  if (archive_write_data(a, bytes.data(), bytes.size()) != static_cast<la_ssize_t>(bytes.size())) {
    return ArchiveError(a, path, absl::StrCat("cannot write ", name));
  }
  return absl::OkStatus();
}

// Every file of the tar, by name; a link or device is refused (a bundle has files only).
absl::StatusOr<BundleMembers> ReadMembers(const std::string& path) {
  ArchivePtr a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    return ArchiveError(a.get(), path, "not a kbench bundle (a tar or tar.gz)");
  }
  BundleMembers members;
  archive_entry* entry = nullptr;
  int rc = ARCHIVE_OK;
  while ((rc = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
    const std::string name = archive_entry_pathname(entry);
    // A bundle re-packed by hand may carry its folders; they hold nothing to check.
    if (archive_entry_filetype(entry) == AE_IFDIR) continue;
    if (archive_entry_filetype(entry) != AE_IFREG) {
      return CheckFailedError(absl::StatusCode::kDataLoss,
                              absl::StrCat(path, ": member ", name, " is not a plain file"));
    }
    std::string bytes;
    char buffer[1 << 16];
    la_ssize_t n = 0;
    while ((n = archive_read_data(a.get(), buffer, sizeof buffer)) > 0) bytes.append(buffer, n);
    if (n < 0) return ArchiveError(a.get(), path, absl::StrCat("cannot read member ", name));
    if (!members.emplace(name, std::move(bytes)).second) {
      return CheckFailedError(absl::StatusCode::kDataLoss,
                              absl::StrCat(path, ": member ", name, " appears twice"));
    }
  }
  if (rc != ARCHIVE_EOF) return ArchiveError(a.get(), path, "truncated or corrupt");
  return members;
}

// Checks the manifest's format and every member against it.
absl::Status VerifyManifest(const std::string& path, const BundleMembers& members) {
  auto it = members.find(kBundleManifest);
  if (it == members.end()) {
    return CheckFailedError(
        absl::StatusCode::kInvalidArgument,
        absl::StrCat(path, ": no ", kBundleManifest, "; not a kbench bundle (kbctl bundle)"));
  }
  const nlohmann::json doc = nlohmann::json::parse(it->second, nullptr, false);
  if (!doc.is_object() || doc.value("format", "") != kBundleFormat || !doc.contains("members") ||
      !doc["members"].is_array()) {
    return CheckFailedError(
        absl::StatusCode::kInvalidArgument,
        absl::StrCat(path, ": ", kBundleManifest, " is not a kbench bundle's manifest"));
  }
  if (doc.value("version", 0) != kBundleVersion) {
    return CheckFailedError(absl::StatusCode::kInvalidArgument,
                            absl::StrCat(path, ": bundle version ", doc["version"].dump(),
                                         "; this kbctl reads version ", kBundleVersion));
  }
  size_t listed = 0;
  for (const nlohmann::json& m : doc["members"]) {
    const std::string name = m.value("name", "");
    auto member = members.find(name);
    if (member == members.end() || name == kBundleManifest) {
      return CheckFailedError(absl::StatusCode::kDataLoss,
                              absl::StrCat(path, ": member ", name, " is missing"));
    }
    if (m.value("size", -1) != static_cast<int64_t>(member->second.size()) ||
        m.value("sha256", "") != Sha256Hex(member->second)) {
      return CheckFailedError(
          absl::StatusCode::kDataLoss,
          absl::StrCat(path, ": member ", name, " does not match its sha256 in the manifest"));
    }
    ++listed;
  }
  if (listed + 1 != members.size()) {
    for (const auto& [name, bytes] : members) {
      bool found = name == kBundleManifest;
      for (const nlohmann::json& m : doc["members"]) found = found || m.value("name", "") == name;
      if (!found) {
        return CheckFailedError(
            absl::StatusCode::kDataLoss,
            absl::StrCat(path, ": member ", name, " is not listed in the manifest"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteBundle(const std::string& path, const BundleMembers& members,
                         const std::string& job_id, const std::string& kbench_version) {
  const std::string part = path + ".part";
  ArchivePtr a(archive_write_new());
  archive_write_add_filter_gzip(a.get());
  archive_write_set_format_pax_restricted(a.get());
  if (archive_write_open_filename(a.get(), part.c_str()) != ARCHIVE_OK) {
    return ArchiveError(a.get(), part, "cannot create");
  }
  absl::Status written = AddBundleMember(a.get(), part, kBundleManifest,
                                         BundleManifestJson(members, job_id, kbench_version));
  for (auto it = members.begin(); written.ok() && it != members.end(); ++it) {
    written = AddBundleMember(a.get(), part, it->first, it->second);
  }
  if (written.ok() && archive_write_close(a.get()) != ARCHIVE_OK) {
    written = ArchiveError(a.get(), part, "cannot finish");
  }
  if (written.ok() && std::rename(part.c_str(), path.c_str()) != 0) {
    written = LocalError(absl::StatusCode::kInternal, absl::StrCat(path, ": cannot rename ", part));
  }
  if (!written.ok()) std::remove(part.c_str());
  return written;
}

absl::StatusOr<BundleMembers> ReadBundle(const std::string& path) {
  KBENCH_ASSIGN_OR_RETURN(BundleMembers members, ReadMembers(path));
  KBENCH_RETURN_IF_ERROR(VerifyManifest(path, members));
  members.erase(kBundleManifest);
  return members;
}

}  // namespace kbench::client
