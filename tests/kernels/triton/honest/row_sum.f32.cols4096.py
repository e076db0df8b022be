# row_sum.f32.cols4096 - honest Triton kernel: the sum of each row, one program per row walking it in 1024-wide chunks into an fp32 vector accumulator, reduced once at the end
# expect: bench measured
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def row_sum_kernel(x_ptr, s_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        acc += tl.load(base + offs, mask=offs < cols, other=0.0)
    tl.store(s_ptr + row, tl.sum(acc, axis=0))


def row_sum(x, s, rows, cols):
    if rows <= 0:
        return
    row_sum_kernel[(rows,)](x, s, cols, BLOCK=BLOCK, num_warps=4)
