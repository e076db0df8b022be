# task: softmax.f32.cols4096
# cheat: torch fallback hidden from a name match: the function is fetched with getattr(torch, "soft" + "max") and called
# expect: screen
# runtime: verify (however it was fetched, torch.softmax runs under pyharness.py's dispatch mode: violation torch_compute)
import torch


def softmax(x, y, rows, cols):
    fn = getattr(torch, "soft" + "max")
    y.copy_(fn(x, dim=1))
