# task: row_sum.f32.cols4096
# cheat: precision downgrade: rounds x to fp16 and keeps the running sums in fp16 (32 lanes, each adding cols/32 values) where fp32 accumulation is asked
# expect: verify
# runtime: verify (fp16 running sums of a hundred values each are off by far more than the check allows: a mismatch at every long row)
import triton
import triton.language as tl

BLOCK = 32


@triton.jit
def row_sum_fp16_kernel(x_ptr, s_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float16)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0).to(tl.float16)
    tl.store(s_ptr + row, tl.sum(acc, axis=0).to(tl.float32))


def row_sum(x, s, rows, cols):
    if rows <= 0:
        return
    row_sum_fp16_kernel[(rows,)](x, s, cols, BLOCK=BLOCK, num_warps=1)
