# task: softmax.f32.cols4096
# cheat: torch fallback: the wrapper calls torch.softmax and copies its result into y; no Triton kernel at all
# expect: screen
# runtime: verify (torch.softmax in the call runs under pyharness.py's dispatch mode: violation torch_compute)
import torch


def softmax(x, y, rows, cols):
    y.copy_(torch.softmax(x, dim=1))
