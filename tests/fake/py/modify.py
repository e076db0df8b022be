# expect: verify inputs_modified
# computes in place in its input, then copies
def scale(x, y, n, alpha):
    x *= alpha
    x += 1
    y[:] = x
