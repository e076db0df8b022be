# linear_bias_act.f16.relu.m512 - honest Triton kernel: y = relu(a w^T + bias) in f16, an nn.Linear GEMM with tl.dot (fp32 accumulator, 128x128x32 tiles, masked edges) whose epilogue adds the bias and applies ReLU on the fp32 accumulator before the one rounding to f16
# expect: bench measured
# a is row-major [m, k]; w is row-major [n, k] (nn.Linear's weight); bias has n entries.
import triton
import triton.language as tl

BM, BN, BK = 128, 128, 32


@triton.jit
def linear_relu_kernel(a_ptr, w_ptr, bias_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(0)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_rows = a_ptr + rm.to(tl.int64)[:, None] * K
    w_rows = w_ptr + rn.to(tl.int64)[None, :] * K
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        k = k0 + rk
        a = tl.load(a_rows + k[None, :], mask=(rm[:, None] < M) & (k[None, :] < K), other=0.0)
        w = tl.load(w_rows + k[:, None], mask=(k[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, w, acc)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    acc = tl.maximum(acc + bias[None, :], 0.0)
    y = y_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(y, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear_bias_act(a, w, bias, y, m, n, k):
    if m <= 0 or n <= 0:
        return
    grid = (triton.cdiv(n, BN), triton.cdiv(m, BM))
    linear_relu_kernel[grid](a, w, bias, y, m, n, k, BM=BM, BN=BN, BK=BK, num_warps=8, num_stages=3)
