# expect: bench measured
# honest (NumPy over the fake device's host memory, as a Triton candidate gets torch tensors)
def scale(x, y, n, alpha):
    y[:] = alpha * x + 1
