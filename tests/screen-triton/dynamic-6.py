# Triton's private extension module and its compiler, reached by attribute
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


def run(x, y, n):
    triton._C.libtriton
    tl.math.inspect.getsource(k)
    k[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
