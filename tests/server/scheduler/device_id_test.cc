// The one device id parser: canonical forms in, everything else refused with the forms listed.
#include "server/common/device_id.h"

#include <gtest/gtest.h>

namespace kbench {
namespace {

TEST(ParseDeviceId, AcceptsTheThreeForms) {
  EXPECT_EQ(*ParseDeviceId("cpu"), DeviceId::Cpu());
  EXPECT_EQ(*ParseDeviceId("cuda:0"), DeviceId::Cuda(0));
  EXPECT_EQ(*ParseDeviceId("cuda:17"), DeviceId::Cuda(17));
  EXPECT_EQ(*ParseDeviceId("cuda:any"), DeviceId::AnyCuda());
}

TEST(ParseDeviceId, PrintsWhatItParses) {
  for (const char* text : {"cpu", "cuda:0", "cuda:1023", "cuda:any"}) {
    EXPECT_EQ(ParseDeviceId(text)->ToString(), text);
  }
}

TEST(ParseDeviceId, RefusesAnythingElse) {
  for (const char* text : {"", "CPU", "cuda", "cuda:", "cuda:-1", "cuda:+1", "cuda: 1", "cuda:01",
                           "cuda:1024", "cuda:99999999999", "cuda:1x", "gpu:0", " cpu"}) {
    absl::StatusOr<DeviceId> id = ParseDeviceId(text);
    EXPECT_EQ(id.status().code(), absl::StatusCode::kInvalidArgument) << "'" << text << "'";
  }
}

TEST(ParseDeviceId, QuotesOnlyAPrefixOfAHugeValue) {
  const std::string huge(1 << 20, 'x');
  absl::StatusOr<DeviceId> id = ParseDeviceId(huge);
  ASSERT_FALSE(id.ok());
  EXPECT_LT(id.status().message().size(), 200u);
}

}  // namespace
}  // namespace kbench
