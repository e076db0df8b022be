# attention.f32.causal.d64.seq1024 - honest Triton kernel: causal scaled dot-product attention in fp32, flash-attention style: one program per (batch*head, 64 queries) streams 64-key blocks up to the diagonal with an online softmax (running max and sum, rescaled accumulator); tl.dot in full fp32 (input_precision "ieee", no TF32)
# expect: bench measured
# q, k, v, out are row-major [b, h, s, d]; key j is seen by query i when j <= i.
import triton
import triton.language as tl

BM, BN = 64, 64


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, s, d, scale, BM: tl.constexpr, BN: tl.constexpr,
                     BD: tl.constexpr):
    qb = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * s * d
    ri = qb * BM + tl.arange(0, BM)
    rd = tl.arange(0, BD)
    q_mask = (ri[:, None] < s) & (rd[None, :] < d)
    q = tl.load(q_ptr + head + ri[:, None] * d + rd[None, :], mask=q_mask, other=0.0)
    m_i = tl.full([BM], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, BD], dtype=tl.float32)
    # keys up to the block's last query (the causal diagonal); past s they are masked
    for j0 in range(0, (qb + 1) * BM, BN):
        rj = j0 + tl.arange(0, BN)
        kv_mask = (rj[:, None] < s) & (rd[None, :] < d)
        kt = tl.load(k_ptr + head + rj[None, :] * d + rd[:, None], mask=kv_mask.T, other=0.0)
        sc = tl.dot(q, kt, input_precision="ieee") * scale
        ok = (rj[None, :] <= ri[:, None]) & (rj[None, :] < s)
        sc = tl.where(ok, sc, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(sc, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(sc - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + head + rj[:, None] * d + rd[None, :], mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    # every query row i < s sees key 0, so l_i > 0 there; rows past s are masked out
    out = acc / tl.where(ri < s, l_i, 1.0)[:, None]
    tl.store(o_ptr + head + ri[:, None] * d + rd[None, :], out, mask=q_mask)


def attention(q, k, v, out, b, h, s, d, scale):
    if b <= 0 or h <= 0 or s <= 0:
        return
    grid = (triton.cdiv(s, BM), b * h)
    attention_kernel[grid](q, k, v, out, s, d, scale, BM=BM, BN=BN, BD=triton.next_power_of_2(max(d, 16)),
                           num_warps=4, num_stages=2)
