// kbctl -o yaml's conversion (client/format/yaml.h): read back with yaml-cpp, every value keeps
// its type — proto JSON's int64 strings stay strings, and strings YAML would read as numbers,
// booleans or null are quoted.
#include "client/format/yaml.h"

#include <string>

#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace kbench::client {
namespace {

TEST(JsonToYaml, KeepsEveryTypeThroughARoundTrip) {
  const absl::StatusOr<std::string> yaml = JsonToYaml(R"({
    "id": "j-1", "launches": "1976", "clean": true, "watts": 573.8783870484634,
    "count": 3, "empty": "", "word": "no", "nothing": null, "list": [1, "2", {"a": "true"}],
    "none": [], "map": {}, "text": "line one\nline two: with a colon"})");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  const YAML::Node doc = YAML::Load(*yaml);
  EXPECT_EQ(doc["id"].as<std::string>(), "j-1");
  // "1976" is a string in proto JSON (int64): YAML must not make it a number.
  EXPECT_EQ(doc["launches"].Tag(), "!");  // quoted: a non-plain scalar
  EXPECT_EQ(doc["launches"].as<std::string>(), "1976");
  EXPECT_EQ(doc["empty"].Tag(), "!");
  EXPECT_EQ(doc["word"].Tag(), "!");
  EXPECT_EQ(doc["list"][2]["a"].Tag(), "!");
  EXPECT_EQ(doc["count"].Tag(), "?");  // plain: a number
  EXPECT_EQ(doc["count"].as<int>(), 3);
  EXPECT_TRUE(doc["clean"].as<bool>());
  EXPECT_DOUBLE_EQ(doc["watts"].as<double>(), 573.8783870484634);
  EXPECT_TRUE(doc["nothing"].IsNull());
  EXPECT_EQ(doc["list"][1].as<std::string>(), "2");
  EXPECT_TRUE(doc["none"].IsSequence());
  EXPECT_EQ(doc["none"].size(), 0u);
  EXPECT_TRUE(doc["map"].IsMap());
  EXPECT_EQ(doc["text"].as<std::string>(), "line one\nline two: with a colon");
}

TEST(JsonToYaml, RefusesWhatIsNotOneJsonDocument) {
  EXPECT_EQ(JsonToYaml("kbctl: not json").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(JsonToYaml("{} {}").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kbench::client
