# hgemm.f16.nt.mn4096.k4096 - honest Triton kernel: C = A * B^T in f16 with tl.dot on tensor cores, fp32 accumulator, 128x128x32 tiles grouped along M for L2 reuse, masked edges for any M, N, K; C rounded to f16 once
# expect: bench measured
# A is row-major [M, K]; B holds the row-major [N, K] array (B(k, n) = B[n*K + k]).
import triton
import triton.language as tl

BM, BN, BK, GROUP = 128, 128, 32, 8


@triton.jit
def hgemm_nt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    GROUP: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP * grid_n
    first_m = (pid // width) * GROUP
    group_m = min(grid_m - first_m, GROUP)
    pid_m = first_m + (pid % width) % group_m
    pid_n = (pid % width) // group_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_rows = a_ptr + rm.to(tl.int64)[:, None] * K
    b_cols = b_ptr + rn.to(tl.int64)[None, :] * K
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        k = k0 + rk
        a = tl.load(a_rows + k[None, :], mask=(rm[:, None] < M) & (k[None, :] < K), other=0.0)
        b = tl.load(b_cols + k[:, None], mask=(k[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c = c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def hgemm(A, B, C, M, N, K):
    if M <= 0 or N <= 0:
        return
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    hgemm_nt_kernel[grid](A, B, C, M, N, K, BM=BM, BN=BN, BK=BK, GROUP=GROUP, num_warps=8, num_stages=3)
