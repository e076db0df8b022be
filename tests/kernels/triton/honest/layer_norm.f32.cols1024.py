# layer_norm.f32.cols1024 - honest Triton kernel: layer norm over the last dimension with gamma and beta, one program per row holding the whole row: the mean (of the values less the row's first one), then the biased variance of the deviations (two passes over registers, sound when the mean is large next to the spread), rsqrt, affine, fp32 throughout
# expect: bench measured
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, g_ptr, b_ptr, y_ptr, eps, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    # shifted by the row's first value: the sums see deviations, not a large mean
    shift = tl.load(x_ptr + row * cols)
    xs = tl.where(mask, x - shift, 0.0)
    d = tl.where(mask, xs - tl.sum(xs, axis=0) / cols, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    rstd = 1.0 / tl.sqrt(var + eps)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * cols + offs, d * rstd * g + b, mask=mask)


def layer_norm(x, gamma, beta, y, eps, rows, cols):
    if rows <= 0 or cols <= 0:
        return
    block = max(triton.next_power_of_2(cols), 128)  # no block narrower than the 4 warps
    layer_norm_kernel[(rows,)](x, gamma, beta, y, eps, cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
