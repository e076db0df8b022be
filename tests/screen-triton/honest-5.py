# a GEMM with tl.dot (y = x x^T over a square view of x), autotuned over
# tile shapes, a grid from a helper, fp32 accumulation
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[
    triton.Config({"BM": 64, "BN": 64, "BK": 32}, num_warps=4, num_stages=3),
    triton.Config({"BM": 128, "BN": 64, "BK": 32}, num_warps=8, num_stages=3),
], key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def grid(M, N):
    return lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))


def run(x, y, n):
    m = int(n ** 0.5)
    matmul_kernel[grid(m, m)](x, x, y, m, m, m, m, 1, 1, m, m, 1)
