# autotuned, a grid from a lambda, a workspace allocated with torch.empty
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4)],
                 key=["n"])
@triton.jit
def partial_kernel(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(part_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


def run(x, y, n):
    part = torch.empty(triton.cdiv(n, 256), device=x.device, dtype=torch.float32)
    partial_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, part, n)
    scale_kernel[(triton.cdiv(n, 512),)](x, y, n, 2.0, BLOCK=512)
