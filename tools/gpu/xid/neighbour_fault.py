#!/usr/bin/env python3
"""A neighbour's fault on the GPU: launches fault.ptx (a store to an illegal address) in this
process's own context and reports the error it gets. The driver logs an Xid for it, which every
NVML event set registered for the device receives (tools/gpu/xid_proof.sh)."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bench", "agreement"))
import cubin_kernel  # noqa: E402

torch.zeros(1, device="cuda")  # PyTorch's primary context, current on this thread
kernel = cubin_kernel.CubinKernel(os.path.join(os.path.dirname(__file__), "fault.ptx"), "fault")
launch = kernel.launcher((1, 1, 1), (1, 1, 1), [], lambda: 0)
launch()
try:
    torch.cuda.synchronize()
    print("neighbour_fault: the kernel did not fault", file=sys.stderr)
    sys.exit(1)
except RuntimeError as e:
    print("neighbour_fault: faulted as meant:", str(e).splitlines()[0])
