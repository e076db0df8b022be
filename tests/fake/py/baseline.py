# the Python baseline for tests/fake's tasks: it returns its output, which
# pyharness.py copies into the output buffer after the call's time
def baseline(x, y, n, alpha):
    return alpha * x + 1


def baseline_compile(x, y, n, alpha):
    # stands for torch.compile of the same computation (bench times it beside baseline)
    return alpha * x + 1
