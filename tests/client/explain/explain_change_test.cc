// ExplainChange on synthetic profiles: pairing kernels, ranking what changed, wording the
// findings, and saying what was not measured instead of printing zeros.
#include "client/explain/explain_change.h"

#include <string>

#include "gtest/gtest.h"

namespace kbench::client::explain {
namespace {

constexpr char kSoftmax[] = "void kb::softmax_kernel<float>(float const*, float*, long)";
constexpr char kReduce[] = "void kb::reduce_kernel(float const*, float*, long)";

// One CUPTI row: `calls` launches of `mean_us` each.
v1::ProfileKernelRow* AddRow(v1::ProfileResult* p, const std::string& name, int calls,
                             double mean_us, int registers, int64_t local_bytes) {
  v1::ProfileKernelRow* row = p->add_kernels();
  row->set_name(name);
  row->set_calls(calls);
  row->set_mean_seconds(mean_us * 1e-6);
  row->set_total_seconds(calls * mean_us * 1e-6);
  row->set_registers_per_thread(registers);
  row->set_local_bytes_per_thread(local_bytes);
  row->set_theoretical_occupancy(1.0);
  return row;
}

v1::NcuMetrics* AddNcu(v1::ProfileResult* p, const std::string& name, double dram_bytes) {
  v1::NcuMetrics* m = p->add_ncu();
  m->set_kernel(name);
  m->set_dram_bytes(dram_bytes);
  m->set_l2_bytes(3e8);
  m->set_instructions_executed(1e6);
  m->set_achieved_occupancy_percent(88);
  m->set_local_load_bytes(0);
  m->set_local_store_bytes(0);
  return m;
}

// The brief's case: a kernel built to spill (registers 64 → 32, 24 B of local memory a thread)
// moves 38 % more DRAM bytes and takes 24 % longer.
struct SpillProfiles {
  v1::ProfileResult baseline;
  v1::ProfileResult candidate;
  SpillProfiles() {
    AddRow(&baseline, kSoftmax, 10, 41, 64, 0);
    AddRow(&candidate, kSoftmax, 10, 51, 32, 24);
    AddNcu(&baseline, kSoftmax, 1e8);
    AddNcu(&candidate, kSoftmax, 1.38e8)->set_instructions_executed(1.01e6);  // +1 %: noise
  }
};

TEST(ExplainChange, RanksWhatTheSpillingKernelMovedBeforeTheResourcesThatCausedIt) {
  SpillProfiles p;
  const v1::VariantExplanation e = ExplainChange(p.baseline, p.candidate, std::nullopt);
  ASSERT_EQ(e.findings_size(), 1) << e.DebugString();
  EXPECT_EQ(e.findings(0),
            "+38 % DRAM bytes in softmax_kernel; spills 0 → 24 B; registers 64 → 32 "
            "(time +24 %, 41.00 us → 51.00 us a call)");
  ASSERT_EQ(e.changes_size(), 3);
  EXPECT_EQ(e.changes(0).quantity(), "dram_bytes");
  EXPECT_NEAR(e.changes(0).change_percent(), 38, 1e-9);
  EXPECT_EQ(e.changes(1).quantity(), "local_bytes_per_thread");
  EXPECT_EQ(e.changes(2).quantity(), "registers");
  EXPECT_DOUBLE_EQ(e.changes(2).baseline(), 64);
  EXPECT_DOUBLE_EQ(e.changes(2).candidate(), 32);
  // Spills from none weigh more than halving the registers.
  EXPECT_GT(e.changes(1).weight(), e.changes(2).weight());
  EXPECT_EQ(e.changes(0).kernel(), kSoftmax);
  EXPECT_TRUE(e.not_measured().empty()) << e.DebugString();
}

TEST(ExplainChange, LeavesOutChangesUnderTwoPercent) {
  SpillProfiles p;
  const v1::VariantExplanation e = ExplainChange(p.baseline, p.candidate, std::nullopt);
  for (const v1::KernelChange& c : e.changes()) EXPECT_NE(c.quantity(), "instructions");
}

TEST(ExplainChange, PutsTheKernelWhoseTimeChangedMostFirst) {
  v1::ProfileResult b, c;
  AddRow(&b, kReduce, 10, 10, 32, 0);
  AddRow(&c, kReduce, 10, 11, 40, 0);  // +10 us over the profile
  AddRow(&b, kSoftmax, 10, 41, 64, 0);
  AddRow(&c, kSoftmax, 10, 51, 72, 0);  // +100 us
  const v1::VariantExplanation e = ExplainChange(b, c, std::nullopt);
  ASSERT_EQ(e.findings_size(), 2) << e.DebugString();
  EXPECT_EQ(e.findings(0).rfind("registers 64 → 72 in softmax_kernel", 0), 0u) << e.findings(0);
  EXPECT_EQ(e.findings(1).rfind("registers 32 → 40 in reduce_kernel", 0), 0u) << e.findings(1);
  // Weighted by each kernel's share of the time: softmax's smaller relative change still
  // counts for more.
  EXPECT_GT(e.changes(0).weight(), 0);
  EXPECT_EQ(e.changes(0).kernel(), kSoftmax);
}

TEST(ExplainChange, ReportsKernelsAddedRemovedAndLaunchCounts) {
  v1::ProfileResult b, c;
  AddRow(&b, kSoftmax, 10, 41, 64, 0);
  AddRow(&c, kSoftmax, 20, 41, 64, 0);
  AddRow(&b, kReduce, 10, 5, 32, 0);
  AddRow(&c, "void kb::scale_kernel(float*, long)", 10, 3, 16, 0);
  const v1::VariantExplanation e = ExplainChange(b, c, std::nullopt);
  ASSERT_EQ(e.kernels_added_size(), 1);
  EXPECT_EQ(e.kernels_added(0), "void kb::scale_kernel(float*, long)");
  ASSERT_EQ(e.kernels_removed_size(), 1);
  EXPECT_EQ(e.kernels_removed(0), kReduce);
  ASSERT_EQ(e.findings_size(), 3) << e.DebugString();
  EXPECT_EQ(e.findings(0).rfind("new kernel scale_kernel (10 calls, 3.000 us a call", 0), 0u)
      << e.findings(0);
  EXPECT_EQ(e.findings(1).rfind("kernel reduce_kernel no longer runs (was 10 calls", 0), 0u)
      << e.findings(1);
  EXPECT_EQ(e.findings(2),
            "calls 10 → 20 in softmax_kernel (time +0.0 %, 41.00 us → 41.00 us a call)");
}

TEST(ExplainChange, SaysNsightComputeWasMissingInsteadOfPrintingZeros) {
  SpillProfiles p;
  p.candidate.clear_ncu();
  const v1::VariantExplanation e = ExplainChange(p.baseline, p.candidate, std::nullopt);
  ASSERT_EQ(e.not_measured_size(), 1) << e.DebugString();
  EXPECT_EQ(e.not_measured(0),
            "DRAM and L2 bytes, local-memory traffic, instructions, achieved occupancy, stall "
            "reasons: no Nsight Compute metrics in the candidate's profile");
  // CUPTI's resources are still compared; nothing ncu measures is.
  ASSERT_EQ(e.changes_size(), 2) << e.DebugString();
  EXPECT_EQ(e.changes(0).quantity(), "local_bytes_per_thread");
  EXPECT_EQ(e.changes(1).quantity(), "registers");
  EXPECT_EQ(e.findings(0).find("DRAM"), std::string::npos) << e.findings(0);
}

TEST(ExplainChange, SaysWhenAProfileRecordedNoKernel) {
  SpillProfiles p;
  const v1::VariantExplanation e = ExplainChange(p.baseline, v1::ProfileResult(), std::nullopt);
  ASSERT_GE(e.not_measured_size(), 1);
  EXPECT_EQ(e.not_measured(0), "kernels: the candidate's profile recorded none");
  ASSERT_EQ(e.kernels_removed_size(), 1);
}

TEST(ExplainChange, ReportsAStallReasonWhoseShareMoved) {
  SpillProfiles p;
  auto stall = [](v1::NcuMetrics* m, const char* name, double share) {
    v1::NcuMetrics::StallReason* s = m->add_top_stall_reasons();
    s->set_name(name);
    s->set_share(share);
  };
  stall(p.baseline.mutable_ncu(0), "long_scoreboard", 0.30);
  stall(p.baseline.mutable_ncu(0), "wait", 0.25);
  stall(p.candidate.mutable_ncu(0), "long_scoreboard", 0.62);
  stall(p.candidate.mutable_ncu(0), "wait", 0.20);  // -5 points: under the threshold
  const v1::VariantExplanation e = ExplainChange(p.baseline, p.candidate, std::nullopt);
  ASSERT_EQ(e.findings_size(), 1);
  EXPECT_NE(e.findings(0).find("long_scoreboard stalls 30 % → 62 % of stalls"), std::string::npos)
      << e.findings(0);
  EXPECT_EQ(e.findings(0).find("wait stalls"), std::string::npos) << e.findings(0);
}

TEST(ExplainChange, AddsTheSassOpcodeDiffLast) {
  SpillProfiles p;
  const std::string before = "        /*0000*/  FFMA R1, R2, R3, R4 ;\n";
  const std::string after = "        /*0000*/  STL [R1], R2 ;\n        /*0010*/  LDL R2, [R1] ;\n";
  const v1::VariantExplanation e = ExplainChange(p.baseline, p.candidate, SassTexts{before, after});
  ASSERT_EQ(e.findings_size(), 2);
  EXPECT_EQ(e.findings(1), "SASS: -1 FFMA, +1 LDL, +1 STL");
  EXPECT_EQ(e.sass_changes_size(), 3);
}

}  // namespace
}  // namespace kbench::client::explain
