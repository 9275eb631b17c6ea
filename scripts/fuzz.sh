#!/usr/bin/env bash
# libFuzzer runs of tests/fuzz's targets (executor wire framing, submit validation, page tokens),
# a bounded time each (default 20 s), seeded from the checked-in corpus; a crash or a broken
# property fails the script and leaves the reproducer in build/fuzz/crashes/. Skips with a
# message when clang's libFuzzer is missing. Builds in build/fuzz (clang, KBENCH_FUZZ=ON).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
targets=(wire page_token submit_validation)

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  >"$probe/probe.cc"
if ! command -v clang++ >/dev/null ||
   ! clang++ -fsanitize=fuzzer "$probe/probe.cc" -o "$probe/probe" 2>/dev/null; then
  echo "fuzz.sh: clang++ with libFuzzer (-fsanitize=fuzzer) is not available; fuzzing skipped" \
    "(scripts/install-deps.sh installs clang and libclang-rt-14-dev)"
  exit 0
fi

# The layering check's File API query, before the first configure (scripts/build.sh says why).
mkdir -p build/fuzz/.cmake/api/v1/query && : >build/fuzz/.cmake/api/v1/query/codemodel-v2
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DKBENCH_CUDA=OFF -DKBENCH_FUZZ=ON >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target "${targets[@]/%/_fuzzer}"

mkdir -p build/fuzz/crashes
for t in "${targets[@]}"; do
  grown="$probe/$t"  # libFuzzer adds the inputs it finds to the first directory only
  mkdir -p "$grown"
  echo "fuzz.sh: $t for ${seconds} s"
  build/fuzz/tests/fuzz/"${t}_fuzzer" -max_total_time="$seconds" -max_len=4096 \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/crashes/${t}-" "$grown" "tests/fuzz/corpus/$t"
done
