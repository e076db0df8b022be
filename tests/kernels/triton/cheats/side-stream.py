# task: rms_norm.f16.cols4096
# cheat: side stream: launches an honest kernel on a torch.cuda.Stream (non-blocking with the default stream) and returns without waiting, so the timer's events on the default stream do not cover the work
# expect: screen
# runtime: verify (pyharness.py's run-time guard replaces torch.cuda.Stream and torch.cuda.stream: the first call is refused, a violation with rule streams; without that guard the work would finish before the harness's device synchronize, so only bench's times would be wrong)
import torch
import triton
import triton.language as tl

SIDE = []


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, eps, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * cols + offs, (x * rstd * w).to(tl.float16), mask=mask)


def rms_norm(x, w, y, eps, rows, cols):
    if not SIDE:
        SIDE.append(torch.cuda.Stream())
    with torch.cuda.stream(SIDE[0]):
        rms_norm_kernel[(rows,)](x, w, y, eps, cols, BLOCK=max(triton.next_power_of_2(cols), 128), num_warps=4)
