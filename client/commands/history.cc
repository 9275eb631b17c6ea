// kbctl history OP / kbctl leaderboard OP: results over time from the server's result index.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/args.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/history_view.h"
#include "client/pages.h"
#include "common/report/history_plot.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// ListHistoryRequest.page_size: at most 1000 (history.proto).
constexpr int64_t kMaxHistoryPageSize = 1000;

struct HistoryFlags {
  std::string kernel;
  std::string variant;
  std::string shape;
  std::string dtype;
  std::string device;
  std::string mode;
  std::string limit;
  std::string page_token;
  bool all = false;
  bool include_unclean = false;
  std::string plot;  // --plot FILE.svg|FILE.png
};

absl::StatusOr<v1::ListHistoryRequest> BuildHistoryRequest(const HistoryFlags& f) {
  v1::ListHistoryRequest request;
  request.set_kernel(f.kernel);
  request.set_variant(f.variant);
  if (!f.shape.empty()) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseShape("--shape", f.shape));
    request.mutable_shape()->Assign(shape.begin(), shape.end());
  }
  if (!f.dtype.empty()) {
    KBENCH_ASSIGN_OR_RETURN(v1::DType dtype, ParseDType("--dtype", f.dtype));
    request.set_dtype(dtype);
  }
  if (!f.mode.empty()) {
    KBENCH_ASSIGN_OR_RETURN(v1::MeasureMode mode, ParseMode("--mode", f.mode));
    request.set_mode(mode);
  }
  request.set_device(f.device);
  if (!f.limit.empty()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t limit, ParseInt("--limit", f.limit, 1, kMaxHistoryPageSize));
    request.set_page_size(static_cast<int32_t>(limit));
  }
  request.set_page_token(f.page_token);
  request.set_include_unclean(f.include_unclean);
  return request;
}

// --plot: the matching results drawn over time into a file, instead of the table.
absl::Status PlotHistory(Session& session, const HistoryFlags& flags,
                         const v1::ListHistoryResponse& history) {
  std::string title = absl::StrCat(flags.kernel, ": median time of each result");
  if (!flags.variant.empty()) absl::StrAppend(&title, ", ", flags.variant);
  if (!flags.device.empty()) absl::StrAppend(&title, " on ", flags.device);
  KBENCH_RETURN_IF_ERROR(report::DrawHistoryPlot(history, title, flags.plot, {}));
  session.Note(absl::StrCat("kbctl: plotted ", history.entries_size(), " results to ", flags.plot,
                            history.next_page_token().empty() ? "" : " (more exist: --all)"));
  return absl::OkStatus();
}

absl::Status RunHistory(Session& session, const HistoryFlags& flags) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListHistoryRequest request, BuildHistoryRequest(flags));
  KBENCH_ASSIGN_OR_RETURN(
      const v1::ListHistoryResponse all,
      FetchPages<v1::ListHistoryResponse>(
          request, flags.all, "ListHistory",
          [&](const v1::ListHistoryRequest& r) { return session.connection().ListHistory(r); },
          [](const v1::ListHistoryResponse& page, v1::ListHistoryResponse* all) {
            all->mutable_entries()->MergeFrom(page.entries());
          }));
  if (!flags.plot.empty()) return PlotHistory(session, flags, all);
  if (session.json()) return session.PrintJson(all);
  if (all.entries().empty()) {
    session.Note("kbctl: no results match");
    return absl::OkStatus();
  }
  session.out() << RenderHistory(all);
  if (!all.next_page_token().empty()) {
    session.Note(
        absl::StrCat("kbctl: more results: --page-token ", all.next_page_token(), " (or --all)"));
  }
  return absl::OkStatus();
}

struct LeaderboardFlags {
  std::string kernel;
  std::string shapes;
  std::string dtype;
  std::string device_model;
  std::string mode;
  std::string by = "time";  // --by time|energy
  bool include_unranked = false;
  bool include_unclean = false;
};

absl::StatusOr<v1::GetLeaderboardRequest> BuildLeaderboardRequest(const LeaderboardFlags& f) {
  v1::GetLeaderboardRequest request;
  request.set_kernel(f.kernel);
  for (absl::string_view text : absl::StrSplit(f.shapes, ',', absl::SkipEmpty())) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ParseShape("--shapes", std::string(text)));
    request.add_shapes()->mutable_dims()->Assign(dims.begin(), dims.end());
  }
  if (request.shapes().empty()) return UsageError("--shapes: give at least one shape");
  KBENCH_ASSIGN_OR_RETURN(v1::DType dtype,
                          ParseDType("--dtype", f.dtype.empty() ? "f32" : f.dtype));
  request.set_dtype(dtype);
  request.set_device_model(f.device_model);
  if (!f.mode.empty()) {
    KBENCH_ASSIGN_OR_RETURN(v1::MeasureMode mode, ParseMode("--mode", f.mode));
    request.set_mode(mode);
  }
  request.set_include_unranked(f.include_unranked);
  request.set_include_unclean(f.include_unclean);
  if (f.by != "time" && f.by != "energy") {
    return UsageError(absl::StrCat("--by: '", f.by, "' is not a ranking; give time or energy"));
  }
  request.set_by_energy(f.by == "energy");
  return request;
}

// Without --device-model: the model of the device a job would run on by default (a GPU when
// the daemon has one), when the daemon's GPUs are of one model; else the user must choose.
absl::StatusOr<std::string> DefaultDeviceModel(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListDevicesResponse list, session.connection().ListDevices());
  std::set<std::string> gpus, cpus;
  for (const v1::DeviceInfo& d : list.devices()) {
    (d.kind() == v1::DEVICE_KIND_CUDA ? gpus : cpus).insert(d.name());
  }
  const std::set<std::string>& models = gpus.empty() ? cpus : gpus;
  if (models.size() == 1) return *models.begin();
  return UsageError(absl::StrCat("--device-model: the daemon's devices are of ", models.size(),
                                 " models (", absl::StrJoin(models, ", "),
                                 "); name one, or a device id standing for its model"));
}

absl::Status RunLeaderboard(Session& session, const LeaderboardFlags& flags) {
  KBENCH_ASSIGN_OR_RETURN(v1::GetLeaderboardRequest request, BuildLeaderboardRequest(flags));
  if (request.device_model().empty()) {
    KBENCH_ASSIGN_OR_RETURN(*request.mutable_device_model(), DefaultDeviceModel(session));
  }
  KBENCH_ASSIGN_OR_RETURN(v1::GetLeaderboardResponse board,
                          session.connection().GetLeaderboard(request));
  if (session.json()) return session.PrintJson(board);
  if (board.ranked().empty() && board.incomplete().empty()) {
    if (request.by_energy()) {
      session.Note(
          "kbctl: no counted results with a measured energy match (energy is measured on CUDA "
          "devices whose NVML has an energy counter; `kbctl result JOB` says why where it is not)");
      return absl::OkStatus();
    }
    session.Note(flags.include_unranked
                     ? "kbctl: no counted results (checked, not impossible, not contended) match"
                     : "kbctl: no ranked runs match (submit them with `kbctl bench|compare "
                       "--ranked`; --include-unranked shows every counted result)");
    return absl::OkStatus();
  }
  session.out() << RenderLeaderboard(board, request.by_energy());
  return absl::OkStatus();
}

void AddLeaderboardCommand(CLI::App& app, Action* action) {
  auto flags = std::make_shared<LeaderboardFlags>();
  CLI::App* cmd = app.add_subcommand(
      "leaderboard",
      "Rank variants by their ranked runs (kbctl bench|compare --ranked): at each shape the "
      "median of a variant's runs with an interval holding every run's, over the shapes their "
      "geometric mean; overlapping intervals are ties, ranks not yet confirmed by kbenchd's own "
      "re-run are provisional; "
      "variants missing a shape are listed apart");
  cmd->add_option("OP", flags->kernel, "Operation")->required();
  cmd->add_option("--shapes", flags->shapes, "Comma-separated shapes, e.g. 1024x1024,4096x4096")
      ->type_name("S1,S2,...")
      ->required();
  cmd->add_option("--dtype", flags->dtype, "Element type (f32, f16, bf16, tf32; default f32)")
      ->type_name("DTYPE");
  cmd->add_option("--device-model", flags->device_model,
                  "Device model as `kbctl devices` names it, or a device id standing for its "
                  "model (default: the model of the daemon's GPUs, or of its cpu without one)")
      ->type_name("MODEL");
  cmd->add_option("--mode", flags->mode, "Only results of this mode (cold, hot, graph)")
      ->type_name("MODE");
  cmd->add_flag("--include-unranked", flags->include_unranked,
                "Every counted result, not only ranked runs: each variant by its best (no "
                "intervals, no ties)");
  cmd->add_option("--by", flags->by,
                  "What ranks: time (default) or energy (joules per launch, measured results "
                  "only)")
      ->type_name("time|energy");
  cmd->add_flag("--include-unclean", flags->include_unclean,
                "Also count results whose clean-measurement stamp found contamination (another "
                "process on the GPU, clocks moved, throttling, heat): left out by default");
  cmd->callback(
      [flags, action] { *action = [flags](Session& s) { return RunLeaderboard(s, *flags); }; });
}

}  // namespace

void AddHistoryCommands(CLI::App& app, Action* action) {
  auto flags = std::make_shared<HistoryFlags>();
  CLI::App* cmd = app.add_subcommand(
      "history",
      "Medians and their 95% intervals of an operation's results over time, newest first");
  cmd->add_option("OP", flags->kernel, "Operation")->required();
  cmd->add_option("--variant", flags->variant, "Only this variant")->type_name("VARIANT");
  cmd->add_option("--shape", flags->shape, "Only this shape, e.g. 4096x4096")->type_name("SHAPE");
  cmd->add_option("--dtype", flags->dtype, "Only this element type")->type_name("DTYPE");
  cmd->add_option("--device", flags->device, "Only this device id (cuda:0) or device model")
      ->type_name("DEVICE");
  cmd->add_option("--mode", flags->mode, "Only this mode (cold, hot, graph)")->type_name("MODE");
  cmd->add_option("--limit", flags->limit, "Results per page, 1 to 1000 (default 50)")
      ->type_name("N");
  cmd->add_option("--page-token", flags->page_token, "Continue after an earlier page")
      ->type_name("TOKEN");
  cmd->add_flag("--all", flags->all, "Follow the page tokens to the last page");
  cmd->add_flag("--include-unclean", flags->include_unclean,
                "Also list results whose clean-measurement stamp found contamination (flagged "
                "unclean; left out by default, as kbctl diff's noise estimate leaves them out)");
  cmd->add_option("--plot", flags->plot,
                  "Draw the results over time (median, 95% CI bars; one line per variant, shape, "
                  "dtype, mode and device model) into FILE.svg or FILE.png, instead of the table")
      ->type_name("FILE");
  cmd->callback(
      [flags, action] { *action = [flags](Session& s) { return RunHistory(s, *flags); }; });
  AddLeaderboardCommand(app, action);
}

}  // namespace kbench::client
