# rms_norm.f16.cols4096 - honest Triton kernel: RMS norm of f16 rows times the f16 weight, one program per row holding the whole row in fp32: the mean of squares, rsqrt(mean + eps), the product with w, one rounding to f16
# expect: bench measured
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, eps, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * cols + offs, (x * rstd * w).to(tl.float16), mask=mask)


def rms_norm(x, w, y, eps, rows, cols):
    if rows <= 0 or cols <= 0:
        return
    block = max(triton.next_power_of_2(cols), 128)  # no block narrower than the 4 warps
    rms_norm_kernel[(rows,)](x, w, y, eps, cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
