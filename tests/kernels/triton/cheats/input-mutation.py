# task: relu
# cheat: input mutation: computes y correctly, then writes relu(x) back into x as well (an in-place relu on an input declared const)
# expect: verify
# runtime: verify (y is right, but the harness hashes the inputs before and after the call: inputs_modified)
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def relu_inplace_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.where(x < 0.0, 0.0, x)
    tl.store(y_ptr + offs, r, mask=mask)
    tl.store(x_ptr + offs, r, mask=mask)


def relu_forward(x, y, n):
    if n > 0:
        relu_inplace_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
