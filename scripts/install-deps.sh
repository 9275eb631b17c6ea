#!/usr/bin/env bash
# Installs kbench's build and test dependencies from Debian 12's packages (run as root).
# gnuplot-nox draws the sweeps' plots in kbenchd; chromium (headless) renders the HTML report in a
# test; fonts-dejavu-core gives both a font without the recommended packages. libpq-dev is the
# PostgreSQL store's client; postgresql-15 is the server the fleet tests start (initdb in a
# temporary directory, as the unprivileged postgres user this package creates). python3-grpcio and
# python3-protobuf run the Python client's tests (python/, tests/python).
# libarchive-dev writes and reads kbctl's reproduction bundles (kbctl bundle, kbctl repro FILE).
# The CUDA 13 toolkit (for kbench-executor's CUDA backend) is expected at /usr/local/cuda (or
# CUDACXX set); with --no-cuda its absence is fine (a KBENCH_CUDA=OFF build).
# --client installs only what kbctl's build needs (the `client` preset, KBENCH_CLIENT_ONLY): no
# server, database, browser or CUDA.
# usage: install-deps.sh [--no-cuda | --client]
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake ninja-build pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev prometheus-cpp-dev libsqlite3-dev libssl-dev libgsl-dev
  libgtest-dev libgmock-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  prometheus patchelf python3 python3-yaml python3-numpy dpkg-dev file
  python3-grpcio python3-protobuf
  ccache clang-format libyaml-cpp-dev openssl
  clang libclang-rt-14-dev sqlite3
  gnuplot-nox chromium fonts-dejavu-core
  libpq-dev postgresql-15
  libarchive-dev
)
# kubectl renders deploy/k8s's kustomizations in a test; Debian's kubernetes-client only where no
# kubectl is installed already (another vendor's kubectl package owns the same /usr/bin/kubectl).
command -v kubectl >/dev/null || packages+=(kubernetes-client)
if [[ "${1:-}" == "--client" ]]; then
  packages=(
    build-essential cmake ninja-build pkg-config git ccache
    libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
    libabsl-dev libcli11-dev nlohmann-json3-dev libssl-dev libyaml-cpp-dev libarchive-dev
    libgsl-dev gnuplot-nox
  )
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [[ "${1:-}" != "--no-cuda" && "${1:-}" != "--client" ]] && ! command -v nvcc >/dev/null &&
   [[ ! -x /usr/local/cuda/bin/nvcc && -z "${CUDACXX:-}" ]]; then
  echo "install-deps: the CUDA 13 toolkit is required (nvcc not found in PATH or /usr/local/cuda); pass --no-cuda to build without it" >&2
  exit 1
fi
