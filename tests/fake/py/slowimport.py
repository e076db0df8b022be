# expect: bench measured
# honest, but its module takes 2 s to load: that happens in the lease (after go), never before it
import time

time.sleep(2)


def scale(x, y, n, alpha):
    y[:] = alpha * x + 1
