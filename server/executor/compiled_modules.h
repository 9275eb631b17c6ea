// The compiled user modules an executor keeps across jobs (issue 24, item 6), bounded: a
// compile costs ~1 s, so keeping them pays, but unbounded they grew for the executor's life
// (each PTX and cubin up to megabytes) and one owner's stream of distinct kernels could crowd
// out everyone else's. At most `total_bytes` in all and `owner_bytes` per owner: a new entry
// evicts its owner's least recently used ones past the owner's share, then anyone's least
// recently used past the total. Device-free; not thread-safe (one job at a time).
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>

#include "kbench/internal/v1/executor.pb.h"

namespace kbench::executor {

class CompiledModules {
 public:
  static constexpr size_t kDefaultTotalBytes = size_t{512} << 20;
  static constexpr size_t kDefaultOwnerBytes = size_t{128} << 20;

  explicit CompiledModules(size_t total_bytes = kDefaultTotalBytes,
                           size_t owner_bytes = kDefaultOwnerBytes)
      : total_limit_(total_bytes), owner_limit_(owner_bytes) {}

  // The entry under `key`, now the most recently used; null when absent.
  const internal::v1::CompileReply* Find(const std::string& key);
  // Keeps `reply` under `key` for `owner`, then evicts as the header says (never the new entry,
  // even when it alone is over a limit: the job that compiled it uses it next).
  const internal::v1::CompileReply& Put(const std::string& key, const std::string& owner,
                                        internal::v1::CompileReply reply);

  size_t bytes() const { return bytes_; }
  size_t OwnerBytes(const std::string& owner) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string key;
    std::string owner;
    size_t bytes = 0;
    internal::v1::CompileReply reply;
  };
  using Lru = std::list<Entry>;  // most recently used first

  // Drops the least recently used entries that `over` selects until `fits` holds; never `keep`.
  template <typename Over, typename Fits>
  void EvictWhile(const Fits& fits, const Over& over, const std::string& keep);
  void Erase(Lru::iterator it);

  const size_t total_limit_;
  const size_t owner_limit_;
  size_t bytes_ = 0;
  Lru entries_;
  std::map<std::string, Lru::iterator> by_key_;
  std::map<std::string, size_t> owner_bytes_;
};

}  // namespace kbench::executor
