# expect: verify mismatch
# forgets the + 1
def scale(x, y, n, alpha):
    y[:] = alpha * x
