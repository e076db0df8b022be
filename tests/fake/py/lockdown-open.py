# expect: verify violation
# honest, but reads a file in a call after its case's first (the lockdown comes then): refused
CALLS = []


def scale(x, y, n, alpha):
    CALLS.append(n)
    if CALLS.count(n) > 1:
        with open("/proc/self/status") as f:
            f.read()
    y[:] = alpha * x + 1
