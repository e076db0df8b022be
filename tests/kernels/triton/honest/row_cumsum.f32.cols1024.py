# row_cumsum.f32.cols1024 - honest Triton kernel: inclusive prefix sum along each row, one program per row scanning 1024-wide chunks with tl.cumsum and carrying the running fp32 total from chunk to chunk
# expect: bench measured
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def row_cumsum_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = 0.0
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
        tl.store(y_ptr + row * cols + offs, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


def row_cumsum(x, y, rows, cols):
    if rows <= 0 or cols <= 0:
        return
    row_cumsum_kernel[(rows,)](x, y, cols, BLOCK=BLOCK, num_warps=4)
