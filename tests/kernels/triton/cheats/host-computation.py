# task: relu
# cheat: host computation: copies x to the host with .cpu(), computes relu in NumPy there and copies the result back into y
# expect: screen
# runtime: verify (pyharness.py's run-time guard replaces Tensor.cpu() and Tensor.numpy(): the first call is refused, a violation with rule host_compute; without that guard the host's result would be exact and the copies synchronous, a correct, slow kernel)
import numpy
import torch


def relu_forward(x, y, n):
    h = x.cpu().numpy()
    y.copy_(torch.from_numpy(numpy.maximum(h, 0.0)))
