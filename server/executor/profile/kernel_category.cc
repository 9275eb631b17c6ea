// The kernel classification rule (see kernel_category.h for the rule in words).
#include "server/executor/profile/kernel_category.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace kbench::executor::profile {
namespace {

// Strips a balanced group that ends `s` ("...(a, (b))" → "..."), walking back from the end.
bool StripTrailingGroup(std::string* s, char open, char close) {
  if (s->empty() || s->back() != close) return false;
  int depth = 0;
  for (size_t i = s->size(); i-- > 0;) {
    if ((*s)[i] == close) ++depth;
    if ((*s)[i] == open && --depth == 0) {
      s->resize(i);
      return true;
    }
  }
  return false;
}

bool HasAny(const std::vector<std::string>& words, const std::set<std::string>& wanted) {
  return std::any_of(words.begin(), words.end(),
                     [&](const std::string& w) { return wanted.contains(w); });
}

}  // namespace

std::string KernelBaseName(const std::string& demangled_name) {
  std::string s(absl::StripAsciiWhitespace(demangled_name));
  StripTrailingGroup(&s, '(', ')');  // the parameter list
  StripTrailingGroup(&s, '<', '>');  // template arguments
  // The last "::" outside brackets separates the name from its scope.
  int depth = 0;
  size_t cut = std::string::npos;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth == 0 && c == ':' && s[i + 1] == ':') cut = i + 2;
  }
  if (cut != std::string::npos) return s.substr(cut);
  // No scope: drop a return type ("void foo" → "foo").
  const size_t space = s.rfind(' ');
  return space == std::string::npos ? s : s.substr(space + 1);
}

std::vector<std::string> KernelNameWords(const std::string& demangled_name) {
  const std::string base = KernelBaseName(demangled_name);
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) words.push_back(absl::AsciiStrToLower(word));
    word.clear();
  };
  for (size_t i = 0; i < base.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(base[i]);
    if (!std::isalpha(c)) {
      flush();
      continue;
    }
    if (std::isupper(c) && !word.empty()) {
      const bool prev_lower = std::islower(static_cast<unsigned char>(word.back()));
      const bool next_lower =
          i + 1 < base.size() && std::islower(static_cast<unsigned char>(base[i + 1]));
      // "RowMax" splits before M; "GEMMKernel" splits before the K of "Kernel".
      if (prev_lower || (next_lower && word.size() > 1 &&
                         std::isupper(static_cast<unsigned char>(word.back())))) {
        flush();
      }
    }
    word.push_back(static_cast<char>(c));
  }
  flush();
  return words;
}

std::string CategorizeKernel(const std::string& operation, const std::string& demangled_name) {
  const std::string base = absl::AsciiStrToLower(KernelBaseName(demangled_name));
  const std::string full = absl::AsciiStrToLower(demangled_name);
  const std::vector<std::string> words = KernelNameWords(demangled_name);

  if (absl::StartsWith(base, "triton_poi")) return kCategoryPointwise;
  if (absl::StartsWith(base, "triton_red") || absl::StartsWith(base, "triton_per")) {
    return kCategoryReduction;
  }
  if (absl::StartsWith(base, "triton_tem")) return kCategoryGemm;

  for (const char* needle :
       {"gemm", "gemv", "matmul", "cutlass", "cublas", "nvjet", "xmma", "hmma", "wgmma"}) {
    if (absl::StrContains(full, needle)) return kCategoryGemm;
  }
  if (HasAny(words, {"mm", "bmm", "addmm"})) return kCategoryGemm;
  if (HasAny(words, {"memcpy", "memset", "copy", "fill"})) return kCategoryCopy;
  if (HasAny(words, {"reduce", "reduction", "sum", "max", "min", "mean", "argmax", "argmin", "norm",
                     "layernorm", "rmsnorm", "logsumexp", "welford", "scan", "histogram"})) {
    return kCategoryReduction;
  }
  if (HasAny(words,
             {"elementwise", "pointwise", "vectorized", "unrolled", "add",    "sub",  "subtract",
              "mul",         "div",       "divide",     "exp",      "square", "gelu", "relu",
              "silu",        "sigmoid",   "tanh",       "erf",      "scale",  "cast", "bias"})) {
    return kCategoryPointwise;
  }
  // A kernel named after a reducing operation and doing no single step of it is the whole.
  if (HasAny(words, {"softmax", "logsoftmax", "attention"})) return kCategoryReduction;

  const std::string op = absl::AsciiStrToLower(operation);
  if (op == "copy") return kCategoryCopy;
  if (op == "square" || op == "add" || op == "gelu") return kCategoryPointwise;
  if (op == "softmax" || absl::StrContains(op, "norm") || absl::StrContains(op, "reduce")) {
    return kCategoryReduction;
  }
  if (op == "matmul" || absl::StrContains(op, "gemm")) return kCategoryGemm;
  return kCategoryOther;
}

}  // namespace kbench::executor::profile
