// The device-independent part of a job's environment.
#include "server/executor/device_runner.h"

#include <unistd.h>

namespace kbench::executor {

void DeviceRunner::FillEnvironment(v1::Environment* env) {
  const v1::DeviceInfo& d = info();
  env->set_device_id(d.id());
  env->set_device_name(d.name());
  env->set_device_uuid(d.uuid());
  env->set_sm_count(d.sm_count());
  env->set_driver_version(d.driver_version());
  env->set_runtime_version(d.runtime_version());
  env->set_cpu_threads(d.cpu_threads());
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  env->set_host(host);
  env->set_kbench_version(KBENCH_VERSION);
  FillDeviceEnvironment(env);
}

}  // namespace kbench::executor
