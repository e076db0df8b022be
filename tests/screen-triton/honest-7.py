# honest: a heuristics lambda of arithmetic on the arguments, and an autotuned kernel
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"WARPS": 4}, num_warps=4), triton.Config({"WARPS": 8}, num_warps=8)],
                 key=["n"])
@triton.heuristics(values={"BLOCK": lambda args: min(4096, triton.next_power_of_2(args["n"]))})
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr, WARPS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


def run(x, y, n):
    k[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
