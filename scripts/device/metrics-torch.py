#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The PyTorch workload of metrics-compare.sh: row softmax of an 8192 x 4096 fp32 tensor
# (128 MiB in, 128 MiB out), launched 6 times; profiled with --kernel-name regex:SoftMax (ATen's cunn_SoftMaxForward).
# The result is checked against a softmax built from other kernels (exp, max, sum), so the
# check adds no launch that matches the filter.
import torch

torch.manual_seed(0)
x = torch.randn(8192, 4096, device="cuda")
for _ in range(6):
    y = torch.softmax(x, dim=1)
torch.cuda.synchronize()
e = torch.exp(x.double() - x.double().max(dim=1, keepdim=True).values)
ref = e / e.sum(dim=1, keepdim=True)
err = ((y.double() - ref).norm() / ref.norm()).item()
if not err < 1e-5:
    raise SystemExit(f"softmax check failed: relative error {err:.3e}")
print(f"softmax: ok (6 launches, relative error {err:.2e})")
