// Suggestions for a mistyped subcommand.
#include "client/command_suggestion.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::client {

int EditDistance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus swaps of two neighbours ("bnech" -> "bench").
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> SimilarNames(const std::string& word,
                                      const std::vector<std::string>& candidates) {
  // Two edits make any short word look like any other ("ad" is two from "rm").
  const int max_distance = word.size() <= 3 ? 1 : 2;
  std::vector<std::pair<int, std::string>> close;
  for (const std::string& name : candidates) {
    if (name == word) return {};
    const int distance = EditDistance(word, name);
    if (distance <= max_distance || (word.size() >= 2 && absl::StartsWith(name, word))) {
      close.emplace_back(distance, name);
    }
  }
  std::sort(close.begin(), close.end());
  std::vector<std::string> names;
  for (auto& [distance, name] : close) names.push_back(std::move(name));
  return names;
}

std::string UnknownCommandLine(const CLI::App& app, const std::string& path,
                               const std::vector<std::string>& leftover) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(sub->get_name());
  }
  if (commands.empty()) return "";
  const auto word = std::find_if(leftover.begin(), leftover.end(),
                                 [](const std::string& w) { return !absl::StartsWith(w, "-"); });
  if (word == leftover.end()) return "";
  const std::vector<std::string> similar = SimilarNames(*word, commands);
  if (std::find(commands.begin(), commands.end(), *word) != commands.end()) return "";
  std::string line = absl::StrCat("unknown command '", *word, "' for '", path, "'");
  if (!similar.empty()) {
    absl::StrAppend(&line, "; did you mean ",
                    absl::StrJoin(similar, " or ",
                                  [](std::string* out, const std::string& s) {
                                    absl::StrAppend(out, "'", s, "'");
                                  }),
                    "?");
  }
  return line;
}

}  // namespace kbench::client
