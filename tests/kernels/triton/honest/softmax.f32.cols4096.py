# softmax.f32.cols4096 - honest Triton kernel: row-wise softmax, one program per row holding the whole row (the next power of two of cols, masked with -inf): max, exp, sum and divide in fp32, one read and one write
# expect: bench measured
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    e = tl.where(mask, e, 0.0)
    tl.store(y_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)


def softmax(x, y, rows, cols):
    if rows <= 0 or cols <= 0:
        return
    block = max(triton.next_power_of_2(cols), 128)  # no block narrower than the 4 warps
    softmax_kernel[(rows,)](x, y, cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
