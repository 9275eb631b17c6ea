# kbench_logging: structured, leveled logs (text or JSON lines) on spdlog, for every part of
# kbenchd. Included once from server/CMakeLists.txt (and, guarded, from server/metrics, which
# logs through it).
if(NOT TARGET kbench_logging)
  add_library(kbench_logging STATIC ${CMAKE_CURRENT_LIST_DIR}/logging.cc)
  target_link_libraries(kbench_logging
    PUBLIC absl::status absl::statusor absl::strings
    PRIVATE absl::synchronization spdlog::spdlog nlohmann_json::nlohmann_json kbench_status)
endif()
