// A bounds-checked reader of the few ELF sections of a cubin that hold kernel resources.
#include "server/executor/usermodule/cubin_resources.h"

#include <cstring>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace kbench::executor::usermodule {
namespace {

// NVIDIA's ELF attribute ids (cuobjdump -elf names them EIATTR_*).
constexpr uint8_t kEiattrMaxThreads = 0x05;
constexpr uint8_t kEiattrFrameSize = 0x11;
constexpr uint8_t kEiattrRegCount = 0x2f;
constexpr uint8_t kEifmtSval = 0x04;
constexpr int64_t kReservedShared = 1024;  // u16 size, then the value; other formats are 4 bytes

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
};

template <typename T>
bool Read(absl::string_view b, uint64_t at, T* out) {
  if (at > b.size() || b.size() - at < sizeof(T)) return false;
  std::memcpy(out, b.data() + at, sizeof(T));
  return true;
}

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("code: malformed cubin: ", what));
}

std::string CString(absl::string_view b, uint64_t at) {
  if (at >= b.size()) return "";
  const size_t end = b.find('\0', at);
  return std::string(b.substr(at, end == absl::string_view::npos ? 0 : end - at));
}

absl::StatusOr<std::vector<Section>> ReadSections(absl::string_view elf) {
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!Read(elf, 0x28, &shoff) || !Read(elf, 0x3a, &shentsize) || !Read(elf, 0x3c, &shnum) ||
      !Read(elf, 0x3e, &shstrndx) || shentsize < 64 || shstrndx >= shnum) {
    return Malformed("section header table");
  }
  std::vector<Section> sections(shnum);
  std::vector<uint32_t> names(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + uint64_t{i} * shentsize;
    Section& s = sections[i];
    if (!Read(elf, h, &names[i]) || !Read(elf, h + 4, &s.type) || !Read(elf, h + 24, &s.offset) ||
        !Read(elf, h + 32, &s.size) || !Read(elf, h + 40, &s.link)) {
      return Malformed(absl::StrCat("section header ", i));
    }
  }
  for (uint16_t i = 0; i < shnum; ++i) {
    sections[i].name = CString(elf, sections[shstrndx].offset + names[i]);
  }
  return sections;
}

absl::string_view Contents(absl::string_view elf, const Section& s) {
  if (s.type == 8 /*SHT_NOBITS*/ || s.offset > elf.size() || elf.size() - s.offset < s.size) {
    return {};
  }
  return elf.substr(s.offset, s.size);
}

// Symbol index -> name, from the symbol table the .nv.info section links to.
std::map<uint32_t, std::string> SymbolNames(absl::string_view elf,
                                            const std::vector<Section>& sections,
                                            const Section& symtab) {
  std::map<uint32_t, std::string> names;
  if (symtab.link >= sections.size()) return names;
  const absl::string_view syms = Contents(elf, symtab);
  const uint64_t strtab = sections[symtab.link].offset;
  for (uint64_t at = 0, index = 0; at + 24 <= syms.size(); at += 24, ++index) {
    uint32_t name = 0;
    Read(syms, at, &name);
    names[static_cast<uint32_t>(index)] = CString(elf, strtab + name);
  }
  return names;
}

// Calls `fn(attribute, value)` for every record of an .nv.info section.
template <typename Fn>
void ForEachAttribute(absl::string_view info, Fn fn) {
  uint64_t at = 0;
  while (at + 4 <= info.size()) {
    const auto format = static_cast<uint8_t>(info[at]);
    const auto attribute = static_cast<uint8_t>(info[at + 1]);
    if (format != kEifmtSval) {
      at += 4;
      continue;
    }
    uint16_t size = 0;
    Read(info, at + 2, &size);
    if (info.size() - at - 4 < size) return;
    fn(attribute, info.substr(at + 4, size));
    at += 4 + uint64_t{size};
  }
}

}  // namespace

absl::StatusOr<std::vector<CubinKernel>> ReadCubinKernels(absl::string_view elf) {
  KBENCH_ASSIGN_OR_RETURN(const std::vector<Section> sections, ReadSections(elf));
  std::map<std::string, CubinKernel> kernels;
  std::map<std::string, int64_t> shared;
  const Section* global_info = nullptr;
  bool reserved_shared = false;
  for (const Section& s : sections) {
    absl::string_view name = s.name;
    if (absl::ConsumePrefix(&name, ".nv.info.")) {
      CubinKernel& k = kernels[std::string(name)];
      k.name = std::string(name);
      ForEachAttribute(Contents(elf, s), [&](uint8_t attribute, absl::string_view v) {
        uint32_t x = 0, y = 0, z = 0;
        if (attribute == kEiattrMaxThreads && Read(v, 0, &x) && Read(v, 4, &y) && Read(v, 8, &z)) {
          k.max_threads_per_block = static_cast<int>(x * y * z);
        }
      });
    } else if (s.name == ".nv.info") {
      global_info = &s;
    } else if (absl::StartsWith(name, ".nv.shared.reserved.")) {
      reserved_shared = true;
    } else if (absl::ConsumePrefix(&name, ".nv.shared.")) {
      shared[std::string(name)] = static_cast<int64_t>(s.size);
    }
  }
  if (global_info != nullptr && global_info->link < sections.size()) {
    const auto symbols = SymbolNames(elf, sections, sections[global_info->link]);
    ForEachAttribute(Contents(elf, *global_info), [&](uint8_t attribute, absl::string_view v) {
      uint32_t symbol = 0, value = 0;
      if (!Read(v, 0, &symbol) || !Read(v, 4, &value)) return;
      const auto name = symbols.find(symbol);
      if (name == symbols.end() || kernels.count(name->second) == 0) return;
      CubinKernel& k = kernels[name->second];
      if (attribute == kEiattrRegCount) k.registers_per_thread = static_cast<int>(value);
      if (attribute == kEiattrFrameSize) k.local_bytes_per_thread = value;
    });
  }
  std::vector<CubinKernel> out;
  for (auto& [name, k] : kernels) {
    if (const auto it = shared.find(name); it != shared.end()) {
      // sm_90+ cubins with a .nv.shared.reserved section count the 1 KiB the system reserves per
      // block inside each kernel's section (ptxas -v reports it without: measured with CUDA 13).
      k.static_shared_bytes = reserved_shared && it->second >= kReservedShared
                                  ? it->second - kReservedShared
                                  : it->second;
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace kbench::executor::usermodule
