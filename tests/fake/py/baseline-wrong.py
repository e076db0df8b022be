# a Python baseline that forgets the + 1: verify --baseline must find it
# wrong and say so where the build shows it (a spec's fault, not data)
def baseline(x, y, n, alpha):
    return alpha * x


def baseline_compile(x, y, n, alpha):
    return alpha * x
