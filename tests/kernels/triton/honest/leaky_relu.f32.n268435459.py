# leaky_relu.f32.n268435459 - honest Triton kernel, autotuned: y = x if x >= 0 else alpha * x over a flat fp32 vector; the
# autotuner times four block sizes with Triton's own do_bench on the first call of each size class
# expect: bench measured
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 2048}, num_warps=8),
                          triton.Config({"BLOCK": 4096}, num_warps=8), triton.Config({"BLOCK": 8192}, num_warps=16)],
                 key=["big"])
@triton.jit
def leaky_kernel(x_ptr, y_ptr, alpha, n, big, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x >= 0.0, x, alpha * x), mask=mask)


def leaky_relu(x, y, alpha, n):
    if n <= 0:
        return
    leaky_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, alpha, n, n >= (1 << 20))
