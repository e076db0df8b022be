# task: softmax.f32.cols4096
# cheat: torch fallback hidden from a name match: the function is fetched with getattr(torch, "soft" + "max") and called
# expect: screen
# runtime: accepted (correct at run time, as torch-fallback.py: only the screen refuses it, here by refusing getattr on torch with a computed name)
import torch


def softmax(x, y, rows, cols):
    fn = getattr(torch, "soft" + "max")
    y.copy_(fn(x, dim=1))
