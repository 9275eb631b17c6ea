// Paged List RPCs (ListJobs, ListHistory): the first page, or with --all every page to the last.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kbench::client {

// Calls `fetch(request)` and appends each page's items to one response with `append(page,
// &collected)`; with `all`, follows next_page_token until it is empty. The collected response's
// next_page_token is the last page's (empty when nothing is left). A server that answers a page
// token with the same token would loop forever: INTERNAL naming `rpc`.
template <typename Response, typename Request, typename Fetch, typename Append>
absl::StatusOr<Response> FetchPages(Request request, bool all, absl::string_view rpc, Fetch fetch,
                                    Append append) {
  Response collected;
  while (true) {
    absl::StatusOr<Response> page = fetch(request);
    if (!page.ok()) return page.status();
    append(*page, &collected);
    collected.set_next_page_token(page->next_page_token());
    if (!all || page->next_page_token().empty()) return collected;
    if (page->next_page_token() == request.page_token()) {
      return absl::InternalError(absl::StrCat(rpc, " returned the page token it was given (\"",
                                              request.page_token(), "\"); stopping"));
    }
    request.set_page_token(page->next_page_token());
  }
}

}  // namespace kbench::client
