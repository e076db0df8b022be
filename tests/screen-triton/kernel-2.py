# no @triton.jit kernel at all
import torch


def run(x, y, n):
    pass
