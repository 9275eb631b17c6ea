// "unknown command 'bnech' for 'kbctl'; did you mean 'bench'?" (issue 28, item 3): the word a
// mistyped command line has where a subcommand belongs, and the closest subcommand names, as
// kubectl and git suggest them.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace kbench::client {

// The edit distance (insertions, deletions, substitutions and transpositions of neighbours)
// between `a` and `b`.
int EditDistance(const std::string& a, const std::string& b);

// The names among `candidates` within edit distance 2 of `word` (1 for a word of up to three
// letters), or that start with it,
// closest first; none when `word` is one of them.
std::vector<std::string> SimilarNames(const std::string& word,
                                      const std::vector<std::string>& candidates);

// When `app` failed to parse with `word` (not an option) left over where one of its
// subcommands belongs: "unknown command 'WORD' for 'PATH'", with "; did you mean 'X'?" when a
// subcommand is close. Empty when `app` has no subcommands or `word` names one.
std::string UnknownCommandLine(const CLI::App& app, const std::string& path,
                               const std::vector<std::string>& leftover);

}  // namespace kbench::client
