// The word of each UserKernelForm ("cuda", "ptx", "cubin", "triton"): how the variant store
// labels a registered kernel and how kbctl shows it. Header-only; its users link kbench_proto.
#pragma once

#include <string>

#include "kbench/v1/userkernels.pb.h"

namespace kbench {

// "" for USER_KERNEL_FORM_UNSPECIFIED (and values this build does not know).
inline std::string UserKernelFormName(v1::UserKernelForm form) {
  switch (form) {
    case v1::USER_KERNEL_FORM_CUDA:
      return "cuda";
    case v1::USER_KERNEL_FORM_PTX:
      return "ptx";
    case v1::USER_KERNEL_FORM_CUBIN:
      return "cubin";
    case v1::USER_KERNEL_FORM_TRITON:
      return "triton";
    default:
      return "";
  }
}

// The inverse; UNSPECIFIED for a word that is none of them.
inline v1::UserKernelForm UserKernelFormNamed(const std::string& word) {
  for (v1::UserKernelForm form : {v1::USER_KERNEL_FORM_CUDA, v1::USER_KERNEL_FORM_PTX,
                                  v1::USER_KERNEL_FORM_CUBIN, v1::USER_KERNEL_FORM_TRITON}) {
    if (UserKernelFormName(form) == word) return form;
  }
  return v1::USER_KERNEL_FORM_UNSPECIFIED;
}

}  // namespace kbench
