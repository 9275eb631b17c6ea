# Debian packages (`cpack -G DEB` in the build directory, or the `package` target):
#   kbench-client: kbctl;
#   kbench-server: kbenchd, kbench-executor (next to it, where kbenchd looks), the systemd unit,
#                  and the deploy files (Prometheus, Grafana, Kubernetes, container) under
#                  /usr/share/kbench.
# Dependencies on Debian's libraries come from dpkg-shlibdeps. The CUDA 13 runtime libraries are
# not Debian's (NVIDIA's repository has them) and dpkg-shlibdeps cannot name their packages, so
# the CUDA build lists them: kbench-executor links NVRTC, nvJitLink, CUPTI and cuBLAS
# (readelf -d: all four NEEDED), so without any of them it does not start, not even for the cpu
# device (issue 28): Depends, not Recommends. The cpu-only build (KBENCH_CUDA=OFF) links none
# and its description says what it is. A host whose CUDA came from NVIDIA's runfile satisfies
# them with an equivs package (docs/operations.md, "Debian packages").
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kbench)
set(CPACK_PACKAGE_VENDOR "kbench")
set(CPACK_PACKAGE_CONTACT "kbench maintainers <kbench@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL client server)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)

set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME kbench-client)
set(CPACK_COMPONENT_CLIENT_DESCRIPTION
  "kbctl, the command-line client of kbench\n kbctl submits, watches and compares GPU kernel benchmarks and profiles on a kbenchd\n server (gRPC), and prints tables for people or JSON for scripts.")

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME kbench-server)
set(kbench_server_about "kbenchd queues benchmark and profile jobs per device and runs each in a supervised\n kbench-executor process; SQLite or PostgreSQL store, artifacts, Prometheus metrics.")
# gnuplot draws the sweeps' plots (kbenchd runs it; without it a sweep's report has no plots).
set(CPACK_DEBIAN_SERVER_PACKAGE_RECOMMENDS "gnuplot-nox")
if(KBENCH_CUDA)
  set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS
    "cuda-nvrtc-13-0, libnvjitlink-13-0, cuda-cupti-13-0, libcublas-13-0")
  set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "kbenchd, the kbench GPU kernel benchmarking daemon (CUDA 13 build)\n ${kbench_server_about}\n This build serves CUDA GPUs and the cpu device; it needs the NVIDIA driver and\n the CUDA 13 runtime libraries NVRTC, nvJitLink, CUPTI and cuBLAS.")
else()
  set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "kbenchd, the kbench GPU kernel benchmarking daemon (cpu-only build)\n ${kbench_server_about}\n This build has no CUDA backend: it serves the cpu device only and needs no\n NVIDIA library.")
endif()
# The group `kbench` and an auth file the unit's dynamic user can read (deploy/debian/postinst).
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/postinst)
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
