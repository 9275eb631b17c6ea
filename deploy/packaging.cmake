# Debian packages (`cpack -G DEB` in the build directory, or the `package` target):
#   kbench-client: kbctl;
#   kbench-server: kbenchd, kbench-executor (next to it, where kbenchd looks), the systemd unit,
#                  and the deploy files (Prometheus, Grafana, Kubernetes, container) under
#                  /usr/share/kbench.
# Dependencies on Debian's libraries come from dpkg-shlibdeps. The CUDA 13 runtime (cuBLAS,
# CUPTI; the driver) is not Debian's: a GPU host gets it from NVIDIA's repository, hence a
# Recommends and a RUNPATH to the toolkit's default place, not a Depends.
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
set(CPACK_COMPONENT_SERVER_DESCRIPTION
  "kbenchd, the kbench GPU kernel benchmarking daemon\n kbenchd queues benchmark and profile jobs per device and runs each in a supervised\n kbench-executor process; SQLite store, artifacts, Prometheus metrics. GPU hosts need the\n NVIDIA driver and the CUDA 13 runtime libraries (cuBLAS, CUPTI).")
# gnuplot draws the sweeps' plots (kbenchd runs it; without it a sweep's report has no plots).
if(KBENCH_CUDA)
  set(CPACK_DEBIAN_SERVER_PACKAGE_RECOMMENDS "libcublas-13-0, cuda-cupti-13-0, gnuplot-nox")
else()
  set(CPACK_DEBIAN_SERVER_PACKAGE_RECOMMENDS "gnuplot-nox")
endif()

include(CPack)
