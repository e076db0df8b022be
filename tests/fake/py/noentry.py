# expect: verify load_error
# the entry point has another name
def scale_kernel(x, y, n, alpha):
    y[:] = alpha * x + 1
