# row max: a program per row, the block size a power of two from cols (a
# constexpr known only at launch), strides from the tensor
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, m_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + offs, mask=offs < cols, other=float("-inf"))
        acc = tl.maximum(acc, v)
    tl.store(m_ptr + row, tl.max(acc, axis=0))


def run(x, y, n):
    rows, cols = 1, n
    block = min(triton.next_power_of_2(cols), 4096)
    row_max_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=block)
