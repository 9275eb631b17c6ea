// FetchPages: one page, every page with --all, and a server that repeats a page token.
#include "client/pages.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {
namespace {

// A server with five jobs, two per page; `stuck` answers every token with "p1".
struct FakeLister {
  bool stuck = false;
  std::vector<std::string> tokens_seen;
  absl::StatusOr<v1::ListJobsResponse> operator()(const v1::ListJobsRequest& request) {
    tokens_seen.push_back(request.page_token());
    const int start = request.page_token().empty() ? 0 : std::stoi(request.page_token().substr(1));
    v1::ListJobsResponse page;
    for (int i = start; i < start + 2 && i < 5; ++i)
      page.add_jobs()->set_id("j" + std::to_string(i));
    if (start + 2 < 5) page.set_next_page_token(stuck ? "p1" : "p" + std::to_string(start + 2));
    return page;
  }
};

absl::StatusOr<v1::ListJobsResponse> Fetch(FakeLister& lister, bool all) {
  return FetchPages<v1::ListJobsResponse>(
      v1::ListJobsRequest(), all, "ListJobs",
      [&](const v1::ListJobsRequest& r) { return lister(r); },
      [](const v1::ListJobsResponse& page, v1::ListJobsResponse* collected) {
        collected->mutable_jobs()->MergeFrom(page.jobs());
      });
}

TEST(FetchPages, ReturnsTheFirstPageAndItsTokenWithoutAll) {
  FakeLister lister;
  absl::StatusOr<v1::ListJobsResponse> r = Fetch(lister, false);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->jobs_size(), 2);
  EXPECT_EQ(r->next_page_token(), "p2");
  EXPECT_EQ(lister.tokens_seen, std::vector<std::string>({""}));
}

TEST(FetchPages, FollowsEveryTokenWithAll) {
  FakeLister lister;
  absl::StatusOr<v1::ListJobsResponse> r = Fetch(lister, true);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->jobs_size(), 5);
  EXPECT_EQ(r->jobs(4).id(), "j4");
  EXPECT_EQ(r->next_page_token(), "");
  EXPECT_EQ(lister.tokens_seen, std::vector<std::string>({"", "p2", "p4"}));
}

TEST(FetchPages, StopsAServerThatRepeatsItsToken) {
  FakeLister lister;
  lister.stuck = true;
  absl::StatusOr<v1::ListJobsResponse> r = Fetch(lister, true);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("ListJobs returned the page token it was given (\"p1\")"),
            std::string::npos)
      << r.status();
  EXPECT_EQ(lister.tokens_seen.size(), 2u);
}

}  // namespace
}  // namespace kbench::client
