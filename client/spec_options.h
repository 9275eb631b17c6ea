// The flags that describe a job (bench, compare, profile share them) and their translation into
// a SubmitJobRequest, so that every submitting subcommand parses and validates them alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "client/user_kernel_flags.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {

class Session;

enum class SubmitCommand { kBench, kCompare, kProfile, kCompile };

// Raw flag text; parsed by BuildSubmitRequest so that errors name the flag and the value. An
// optional is unset when the flag was absent ("--shape ''" is given, and wrong).
struct SpecFlags {
  std::string kernel;
  std::string variant;                // bench: --variant
  std::vector<std::string> variants;  // compare, profile: --variants (comma-separated, repeatable)
  std::optional<std::string> shape;
  std::optional<std::string> dtype;
  std::optional<std::string> device;
  // A multi-GPU job (issue 30): the devices named, or a count ("2", "all").
  std::optional<std::string> devices;
  std::optional<std::string> gpus;
  std::optional<std::string> mode;
  std::optional<std::string> max_noise;
  std::optional<std::string> min_samples;
  std::optional<std::string> min_time;
  std::optional<std::string> timeout_s;
  std::optional<std::string> placements;  // bench, compare
  std::optional<std::string> seed;
  std::optional<std::string> priority;
  std::string owner;
  std::vector<std::string> params;
  std::string idempotency_key;
  std::optional<std::string> iterations;
  bool ncu = false;
  bool sanitize = false;  // bench, compare: user kernels under compute-sanitizer first
  bool ranked = false;    // bench, compare: the ranked protocol (issue 23)
  bool no_wait = false;
  // bench, compare, compile: a user's own kernel (issue 10).
  UserKernelFlags user;
};

// Adds the positional OP and the flags `command` takes to `app`, bound to `flags`.
void AddSpecFlags(CLI::App* app, SubmitCommand command, SpecFlags* flags);

// The request the flags describe. Needs no server: the shape may stay empty and the variants
// may be {"all"}; ResolveWithCatalogue fills those in. `default_owner` is used when --owner is
// absent (kbctl passes $USER).
absl::StatusOr<v1::SubmitJobRequest> BuildSubmitRequest(const SpecFlags& flags,
                                                        SubmitCommand command,
                                                        const std::string& default_owner);

// True when the request needs the catalogue entry: no shape given, or variants "all".
bool NeedsCatalogue(const v1::SubmitJobRequest& request);
// Fills the kernel's default shape when none was given and expands "all" into the variants
// that run on the requested device kind and dtype. Errors (INVALID_ARGUMENT, exit code 3 like
// the server's own verdict) name the kernel and what it has.
absl::Status ResolveWithCatalogue(const v1::KernelInfo& kernel, v1::SubmitJobRequest* request);
// Looks up request->spec().kernel() on the server and calls ResolveWithCatalogue when needed.
absl::Status ResolveDefaults(Session& session, v1::SubmitJobRequest* request);

}  // namespace kbench::client
