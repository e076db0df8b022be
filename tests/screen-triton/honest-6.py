# honest: constants unpacked from a tuple (BLOCK, WARPS = 1024, 4) at module level
import torch
import triton
import triton.language as tl

BLOCK, WARPS = 1024, 4


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, tl.where(x != x, x, 0.0)), mask=mask)


def run(x, y, n):
    grid = (triton.cdiv(n, BLOCK),)
    relu_kernel[grid](x, y, n, BLOCK=BLOCK, num_warps=WARPS)
