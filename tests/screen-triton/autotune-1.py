# too many autotuning configs
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64 * (i + 1)}) for i in range(40)], key=["n"])
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def run(x, y, n):
    k[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
