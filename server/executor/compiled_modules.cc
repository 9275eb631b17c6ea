// The compiled user modules an executor keeps across jobs (compiled_modules.h).
#include "server/executor/compiled_modules.h"

namespace kbench::executor {

const internal::v1::CompileReply* CompiledModules::Find(const std::string& key) {
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return &it->second->reply;
}

const internal::v1::CompileReply& CompiledModules::Put(const std::string& key,
                                                       const std::string& owner,
                                                       internal::v1::CompileReply reply) {
  if (const auto it = by_key_.find(key); it != by_key_.end()) Erase(it->second);
  Entry entry{key, owner, reply.ByteSizeLong(), std::move(reply)};
  bytes_ += entry.bytes;
  owner_bytes_[owner] += entry.bytes;
  entries_.push_front(std::move(entry));
  by_key_[key] = entries_.begin();
  EvictWhile([&] { return OwnerBytes(owner) <= owner_limit_; },
             [&](const Entry& e) { return e.owner == owner; }, key);
  EvictWhile([&] { return bytes_ <= total_limit_; }, [](const Entry&) { return true; }, key);
  return by_key_.at(key)->reply;
}

size_t CompiledModules::OwnerBytes(const std::string& owner) const {
  const auto it = owner_bytes_.find(owner);
  return it == owner_bytes_.end() ? 0 : it->second;
}

template <typename Over, typename Fits>
void CompiledModules::EvictWhile(const Fits& fits, const Over& over, const std::string& keep) {
  for (auto it = entries_.end(); !fits() && it != entries_.begin();) {
    --it;
    if (it->key == keep || !over(*it)) continue;
    const auto victim = it++;  // `it` stays valid: it now names the entry after the victim
    Erase(victim);
  }
}

void CompiledModules::Erase(Lru::iterator it) {
  bytes_ -= it->bytes;
  if ((owner_bytes_[it->owner] -= it->bytes) == 0) owner_bytes_.erase(it->owner);
  by_key_.erase(it->key);
  entries_.erase(it);
}

}  // namespace kbench::executor
