# expect: verify mismatch
# writes only the first half of the output
def scale(x, y, n, alpha):
    y[:n // 2 + 1] = alpha * x[:n // 2 + 1] + 1
