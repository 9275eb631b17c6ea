// Each kernel's resources read from a cubin's ELF sections, on the CPU: what cuFuncGetAttribute
// would say on a device, for compile jobs that run where no GPU is and for cubins submitted as
// such. Registers and frame size from the .nv.info attributes (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE),
// static shared memory from the kernel's .nv.shared.<name> section, the launch bound from
// EIATTR_MAX_THREADS. Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench::executor::usermodule {

struct CubinKernel {
  std::string name;
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t local_bytes_per_thread = 0;  // the stack frame, spills included
  int max_threads_per_block = 0;       // __launch_bounds__, 0 when none
};

// The kernels (entry functions) of an ELF cubin; INVALID_ARGUMENT for a malformed one.
absl::StatusOr<std::vector<CubinKernel>> ReadCubinKernels(absl::string_view elf);

}  // namespace kbench::executor::usermodule
