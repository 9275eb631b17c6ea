// A test-only kbench-executor whose cpu device runs a cheating softmax/host_rowwise, chosen by
// the KBENCH_TEST_CHEAT environment variable (kbenchd passes its environment on): the
// integration tests start kbenchd with --executor-path pointing here to prove that every check
// of issue 10, item 5 fails a job end to end. Never installed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/catalogue.h"
#include "server/executor/executor_loop.h"

namespace {

using kbench::kernels::HostRunFn;
using kbench::kernels::Problem;

// Elements of the problem's one input and output.
int64_t Elements(const Problem& p) { return p.dim(0) * p.dim(1); }

// The honest host variant, for the cheats that compute sometimes.
HostRunFn Honest() {
  return kbench::kernels::FindOperation("softmax")->host_runs.at("host_rowwise");
}

HostRunFn CheatingRun(const std::string& cheat) {
  if (cheat == "zeros") {
    return [](const Problem& p, const std::vector<const float*>&, const std::vector<float*>& out) {
      std::fill(out[0], out[0] + Elements(p), 0.0f);
    };
  }
  if (cheat == "constant") {
    return [](const Problem& p, const std::vector<const float*>&, const std::vector<float*>& out) {
      std::fill(out[0], out[0] + Elements(p), 0.125f);
    };
  }
  if (cheat == "copy") {
    return
        [](const Problem& p, const std::vector<const float*>& in, const std::vector<float*>& out) {
          std::memcpy(out[0], in[0], static_cast<size_t>(Elements(p)) * sizeof(float));
        };
  }
  if (cheat == "replay") {  // computes on its first run, then replays that result
    return [honest = Honest(), stash = std::vector<float>()](
               const Problem& p, const std::vector<const float*>& in,
               const std::vector<float*>& out) mutable {
      if (stash.empty()) {
        honest(p, in, out);
        stash.assign(out[0], out[0] + Elements(p));
      }
      std::copy(stash.begin(), stash.end(), out[0]);
    };
  }
  if (cheat == "skip_when_written") {  // computes only when its output holds the poison (NaN)
    return [honest = Honest()](const Problem& p, const std::vector<const float*>& in,
                               const std::vector<float*>& out) {
      if (std::isnan(out[0][0])) honest(p, in, out);
    };
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const char* cheat = std::getenv("KBENCH_TEST_CHEAT");
  HostRunFn run = CheatingRun(cheat != nullptr ? cheat : "");
  if (run == nullptr) {
    std::fprintf(stderr, "cheating executor: KBENCH_TEST_CHEAT='%s' names no cheat\n",
                 cheat != nullptr ? cheat : "");
    return 2;
  }
  // Created non-const (catalogue.cc allocates it), so this one test-only write is defined.
  auto* softmax =
      const_cast<kbench::kernels::Operation*>(kbench::kernels::FindOperation("softmax"));
  softmax->host_runs["host_rowwise"] = std::move(run);

  std::string device;
  int fd = -1;
  bool discover = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--discover") discover = true;
    if (arg == "--device" && i + 1 < argc) device = argv[++i];
    if (arg == "--fd" && i + 1 < argc) fd = std::atoi(argv[++i]);
  }
  if (discover) return kbench::executor::RunDiscovery(fd);
  return kbench::executor::RunExecutorLoop(device, fd, /*idle_gates=*/{});
}
