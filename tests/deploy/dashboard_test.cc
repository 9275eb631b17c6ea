// Checks of deploy/grafana/kbench-dashboard.json and deploy/prometheus/alerts.yml against the
// metrics kbenchd exports: the dashboard parses, has a datasource variable every panel uses,
// each query is valid PromQL (promtool) and names only metrics kbenchd exports.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/metrics/prometheus_metrics.h"
#include "tests/deploy/process.h"
#include "tests/server/metrics/exposition.h"
#include "tests/server/metrics/fake_gpu_source.h"

namespace kbench {
namespace {

using ::kbench::testing::ReadFile;

const std::string kDashboard =
    std::string(KBENCH_SOURCE_DIR) + "/deploy/grafana/kbench-dashboard.json";
const std::string kAlerts = std::string(KBENCH_SOURCE_DIR) + "/deploy/prometheus/alerts.yml";

// Every series name kbenchd can export (histogram _bucket/_sum/_count included): a registry
// with each Metrics call made once and a fake GPU, so the GPU gauges are there too.
std::set<std::string> ExportedSeries() {
  auto state = std::make_shared<kbench::testing::FakeGpuSource::State>();
  state->by_uuid["GPU-1"] = {{0, "GPU-1", "NVIDIA H100 80GB HBM3"}, kbench::testing::FullSample()};
  auto m = metrics::PrometheusMetrics::Create("", [state] {
    return absl::StatusOr<std::unique_ptr<metrics::GpuSource>>(
        std::make_unique<kbench::testing::FakeGpuSource>(state));
  });
  if (!m.ok()) {
    ADD_FAILURE() << m.status();  // and no dereference of the missing registry
    return {};
  }
  (*m)->JobSubmitted(kbench::JobKind::kBenchmark, "cpu");
  (*m)->JobFinished(kbench::JobKind::kBenchmark, "cpu", "failed");
  (*m)->OwnerJobSubmitted("alice");
  (*m)->SetQueueDepth("cpu", 1);
  (*m)->ObserveQueueWait("cpu", 1);
  (*m)->ObserveRunDuration(kbench::JobKind::kBenchmark, "cpu", 1);
  (*m)->ExecutorRestarted("cpu", kbench::ExecutorFailure::kSignal);
  (*m)->ObserveRpc("SubmitJob", "OK", 0.01);
  (*m)->SetArtifactBytes(1);
  (*m)->AddOwnerGpuSeconds("alice", 1);
  (*m)->SetDeviceState("cpu", "ready");
  (*m)->SetJobRunning("cpu", true);
  (*m)->SetFleetNode("gpu-a", true, 0.5);  // a fleet node's series exist once a heartbeat read it
  (*m)->AddGpu("cuda:0", "GPU-1", "", 0);
  return kbench::testing::SeriesNames((*m)->ScrapeText());
}

// Removes a parenthesised label list after `keyword` (by, without, on, ignoring, group_left,
// group_right), whose names are labels, not metrics.
std::string DropLabelLists(std::string expr) {
  for (const char* keyword : {"by", "without", "on", "ignoring", "group_left", "group_right"}) {
    size_t pos = 0;
    const std::string k = keyword;
    while ((pos = expr.find(k, pos)) != std::string::npos) {
      const bool word_start =
          pos == 0 ||
          !(std::isalnum(static_cast<unsigned char>(expr[pos - 1])) || expr[pos - 1] == '_');
      size_t i = pos + k.size();
      while (i < expr.size() && expr[i] == ' ') ++i;
      const char after = pos + k.size() < expr.size() ? expr[pos + k.size()] : '\0';
      if (word_start && (after == ' ' || after == '(') && i < expr.size() && expr[i] == '(') {
        const size_t close = expr.find(')', i);
        if (close == std::string::npos) break;
        expr.erase(pos, close + 1 - pos);
      } else {
        pos += k.size();
      }
    }
  }
  return expr;
}

// The metric names a PromQL expression reads: identifiers outside strings, label matchers,
// ranges and label lists that are not functions, keywords or numbers.
std::set<std::string> MetricNames(const std::string& raw) {
  std::string expr;
  int depth_brace = 0;
  int depth_bracket = 0;
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth_brace;
    } else if (c == '}') {
      --depth_brace;
    } else if (c == '[') {
      ++depth_bracket;
    } else if (c == ']') {
      --depth_bracket;
    } else if (depth_brace == 0 && depth_bracket == 0) {
      expr.push_back(c);
    }
  }
  expr = DropLabelLists(expr);
  static const std::set<std::string> kKeywords = {
      "and",      "or",         "unless",      "bool", "offset", "by",  "without", "on",
      "ignoring", "group_left", "group_right", "inf",  "nan",    "Inf", "NaN"};
  std::set<std::string> names;
  for (size_t i = 0; i < expr.size();) {
    const auto c = static_cast<unsigned char>(expr[i]);
    if (!(std::isalpha(c) || c == '_' || c == ':')) {
      // Skip numbers whole (1e3, 0.5) so that their letters are not read as names.
      if (std::isdigit(c) || c == '.') {
        while (i < expr.size() &&
               (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '.')) {
          ++i;
        }
      } else {
        ++i;
      }
      continue;
    }
    size_t j = i;
    while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) ||
                               expr[j] == '_' || expr[j] == ':')) {
      ++j;
    }
    const std::string token = expr.substr(i, j - i);
    size_t k = j;
    while (k < expr.size() && expr[k] == ' ') ++k;
    const bool is_call = k < expr.size() && expr[k] == '(';
    if (!is_call && !kKeywords.count(token)) names.insert(token);
    i = j;
  }
  return names;
}

// Grafana's variables, replaced by what they stand for so that promtool can parse the query.
std::string Substitute(const std::string& expr) {
  return absl::StrReplaceAll(expr, {{"$__rate_interval", "1m"},
                                    {"$__interval", "1m"},
                                    {"$__range", "1h"},
                                    {"$instance", ".*"},
                                    {"$device", ".*"}});
}

struct Query {
  std::string where;  // panel title and refId, for messages
  std::string expr;
};

void CollectPanels(const nlohmann::json& panels, std::vector<const nlohmann::json*>* out) {
  for (const auto& p : panels) {
    out->push_back(&p);
    if (p.contains("panels")) CollectPanels(p.at("panels"), out);
  }
}

class DashboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kDashboard);
    ASSERT_TRUE(in.good()) << kDashboard;
    ASSERT_NO_THROW(dashboard_ = nlohmann::json::parse(in)) << kDashboard << " is not JSON";
    CollectPanels(dashboard_.at("panels"), &panels_);
    for (const nlohmann::json* p : panels_) {
      if (!p->contains("targets")) continue;
      for (const auto& t : p->at("targets")) {
        queries_.push_back(
            {absl::StrCat("panel \"", p->value("title", ""), "\" ", t.value("refId", "")),
             t.value("expr", "")});
      }
    }
  }

  nlohmann::json dashboard_;
  std::vector<const nlohmann::json*> panels_;
  std::vector<Query> queries_;
};

TEST_F(DashboardTest, HasAPrometheusDatasourceVariable) {
  bool found = false;
  for (const auto& v : dashboard_.at("templating").at("list")) {
    if (v.value("type", "") == "datasource" && v.value("name", "") == "datasource") {
      EXPECT_EQ(v.value("query", ""), "prometheus");
      found = true;
    }
  }
  EXPECT_TRUE(found) << "no templating variable {name: datasource, type: datasource}";
}

TEST_F(DashboardTest, EveryPanelAndQueryUsesTheDatasourceVariable) {
  ASSERT_FALSE(queries_.empty());
  for (const nlohmann::json* p : panels_) {
    if (p->value("type", "") == "row") continue;
    const std::string title = p->value("title", "");
    ASSERT_TRUE(p->contains("datasource")) << title;
    EXPECT_EQ(p->at("datasource").value("uid", ""), "${datasource}") << title;
    ASSERT_TRUE(p->contains("targets")) << title;
    for (const auto& t : p->at("targets")) {
      EXPECT_EQ(t.at("datasource").value("uid", ""), "${datasource}") << title;
    }
  }
}

TEST_F(DashboardTest, PanelIdsAreUniqueAndPlaced) {
  std::set<int> ids;
  for (const nlohmann::json* p : panels_) {
    EXPECT_TRUE(ids.insert(p->at("id").get<int>()).second) << "duplicate id " << p->at("id");
    EXPECT_TRUE(p->contains("gridPos")) << p->value("title", "");
  }
}

TEST_F(DashboardTest, EveryQueryNamesOnlyMetricsKbenchdExports) {
  const std::set<std::string> exported = ExportedSeries();
  ASSERT_GT(exported.size(), 20u);
  std::vector<Query> all = queries_;
  for (const auto& v : dashboard_.at("templating").at("list")) {
    if (v.value("type", "") != "query") continue;
    // label_values(METRIC{...}, LABEL): only the first argument names a metric.
    std::string q = v.at("query").is_string() ? v.at("query").get<std::string>()
                                              : v.at("query").value("query", "");
    ASSERT_TRUE(absl::StartsWith(q, "label_values(")) << q;
    q = q.substr(13, q.rfind(',') - 13);
    all.push_back({absl::StrCat("variable ", v.value("name", "")), q});
  }
  for (const Query& q : all) {
    const std::set<std::string> names = MetricNames(q.expr);
    EXPECT_FALSE(names.empty()) << q.where << " names no metric: " << q.expr;
    for (const std::string& name : names) {
      EXPECT_TRUE(exported.count(name))
          << q.where << " queries \"" << name << "\", which kbenchd does not export: " << q.expr;
    }
  }
}

TEST_F(DashboardTest, ShowsQueueThroughputLatencyFailuresAndGpuHealth) {
  std::set<std::string> used;
  for (const Query& q : queries_) {
    for (const std::string& n : MetricNames(q.expr)) used.insert(n);
  }
  for (const char* needed :
       {"kbench_queue_depth", "kbench_jobs_finished_total", "kbench_jobs_submitted_total",
        "kbench_job_run_duration_seconds_bucket", "kbench_queue_wait_seconds_bucket",
        "kbench_executor_restarts_total", "kbench_rpc_requests_total",
        "kbench_rpc_duration_seconds_bucket", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_SM_CLOCK",
        "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_GPU_TEMP", "kbench_gpu_memory_used_bytes",
        "kbench_gpu_memory_total_bytes"}) {
    EXPECT_TRUE(used.count(needed)) << "no panel shows " << needed;
  }
}

// promtool parses each query as a recording rule: a typo in PromQL fails here, not in Grafana.
TEST_F(DashboardTest, EveryQueryIsValidPromql) {
  const std::string promtool = KBENCH_PROMTOOL;
  ASSERT_FALSE(promtool.empty() || absl::StrContains(promtool, "NOTFOUND"))
      << "promtool not found; install Debian's `prometheus` package";
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     absl::StrCat("kbench_dashboard_rules_", getpid(), ".yml");
  {
    std::ofstream out(file);
    out << "groups:\n  - name: dashboard\n    rules:\n";
    for (size_t i = 0; i < queries_.size(); ++i) {
      // JSON strings are valid YAML double-quoted scalars.
      out << "      - record: dashboard:query_" << i
          << "\n        expr: " << nlohmann::json(Substitute(queries_[i].expr)).dump() << "\n";
    }
  }
  FILE* pipe = popen(absl::StrCat(promtool, " check rules ", file.string(), " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  std::filesystem::remove(file);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr(absl::StrCat(queries_.size(), " rules found")))
      << output;
}

// The alert rules read only kbenchd's series (and Prometheus's own `up`).
TEST(AlertRules, NameOnlyMetricsKbenchdExports) {
  std::set<std::string> exported = ExportedSeries();
  exported.insert("up");
  const std::string text = ReadFile(kAlerts);
  ASSERT_FALSE(text.empty()) << kAlerts;
  // Each `expr:` is either inline or a block scalar (`|`) of the lines indented under it.
  std::vector<std::string> exprs;
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t at = lines[i].find("expr:");
    if (at == std::string::npos) continue;
    std::string rest = lines[i].substr(at + 5);
    rest.erase(0, rest.find_first_not_of(' '));
    if (rest != "|" && rest != "|-") {
      exprs.push_back(rest);
      continue;
    }
    std::string block;
    for (size_t j = i + 1; j < lines.size(); ++j) {
      const size_t indent = lines[j].find_first_not_of(' ');
      if (indent != std::string::npos && indent <= at) break;
      block += lines[j] + " ";
    }
    exprs.push_back(block);
  }
  ASSERT_GE(exprs.size(), 5u);
  for (const std::string& e : exprs) {
    const std::set<std::string> names = MetricNames(e);
    EXPECT_FALSE(names.empty()) << e;
    for (const std::string& name : names) {
      EXPECT_TRUE(exported.count(name))
          << "alert reads \"" << name << "\", which kbenchd does not export: " << e;
    }
  }
}

TEST(MetricNames, FindsMetricsButNotLabelsFunctionsOrKeywords) {
  EXPECT_EQ(MetricNames("histogram_quantile(0.99, sum by (le, method) "
                        "(rate(kbench_rpc_duration_seconds_bucket{instance=~\"a\"}[5m])))"),
            (std::set<std::string>{"kbench_rpc_duration_seconds_bucket"}));
  EXPECT_EQ(MetricNames("max by (instance, device) (a_metric) > 0 unless on (instance) "
                        "sum(b_total) > 1e3"),
            (std::set<std::string>{"a_metric", "b_total"}));
}

}  // namespace
}  // namespace kbench
