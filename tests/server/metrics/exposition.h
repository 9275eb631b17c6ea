// Test helper: reads Prometheus text exposition (a /metrics body) into samples, so tests can
// ask for one series' value by name and exact label set.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kbench::testing {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Parses every sample line; comment lines (# HELP, # TYPE) are skipped. Label values are
// unescaped (\\, \", \n).
inline std::vector<Sample> ParseExposition(const std::string& text) {
  std::vector<Sample> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name.push_back(line[i++]);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        std::string key;
        while (i < line.size() && line[i] != '=') key.push_back(line[i++]);
        i += 2;  // ="
        std::string value;
        while (i < line.size() && line[i] != '"') {
          if (line[i] == '\\' && i + 1 < line.size()) {
            ++i;
            value.push_back(line[i] == 'n' ? '\n' : line[i]);
          } else {
            value.push_back(line[i]);
          }
          ++i;
        }
        ++i;  // closing quote
        if (i < line.size() && line[i] == ',') ++i;
        s.labels[key] = value;
      }
      ++i;  // }
    }
    while (i < line.size() && line[i] == ' ') ++i;
    std::string value = line.substr(i);
    const size_t space = value.find(' ');  // an optional timestamp follows
    if (space != std::string::npos) value = value.substr(0, space);
    s.value = std::strtod(value.c_str(), nullptr);
    out.push_back(std::move(s));
  }
  return out;
}

// The value of the series `name` with exactly `labels`, if present.
inline std::optional<double> FindSample(const std::string& text, const std::string& name,
                                        const std::map<std::string, std::string>& labels) {
  for (const Sample& s : ParseExposition(text)) {
    if (s.name == name && s.labels == labels) return s.value;
  }
  return std::nullopt;
}

// Every sample of `name`, whatever its labels.
inline std::vector<Sample> SamplesNamed(const std::string& text, const std::string& name) {
  std::vector<Sample> out;
  for (Sample& s : ParseExposition(text)) {
    if (s.name == name) out.push_back(std::move(s));
  }
  return out;
}

// Names of the metric families declared by "# TYPE" lines.
inline std::set<std::string> FamilyNames(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    std::string name;
    words >> name;
    out.insert(name);
  }
  return out;
}

// Every sample name (histograms' _bucket/_sum/_count included): what a PromQL query may name.
inline std::set<std::string> SeriesNames(const std::string& text) {
  std::set<std::string> out;
  for (const Sample& s : ParseExposition(text)) out.insert(s.name);
  return out;
}

}  // namespace kbench::testing
