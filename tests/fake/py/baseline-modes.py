# a Python baseline wrong only while bench times it ("open-tf32": TF32
# on) and right as the oracle ("open": full f32): verify --baseline and
# bench's checks must run it as the oracle
import sys

TIMED = sys.argv[-1] == "open-tf32"


def baseline(x, y, n, alpha):
    return alpha * x + (2 if TIMED else 1)
