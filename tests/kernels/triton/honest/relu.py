# relu - honest Triton kernel: y = max(x, 0) over a flat fp32 vector, 1024 elements per program, masked tail; NaN stays NaN (x < 0 is false for it)
# expect: bench measured
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x < 0.0, 0.0, x), mask=mask)


def relu_forward(x, y, n):
    if n <= 0:
        return
    relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=4)
