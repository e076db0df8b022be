# expect: verify load_error
# does not parse
def scale(x, y, n, alpha)
    y[:] = alpha * x + 1
