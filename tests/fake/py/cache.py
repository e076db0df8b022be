# expect: verify mismatch
# result caching by buffer address: a later call on the same buffers returns the old outputs
SEEN = {}


def scale(x, y, n, alpha):
    key = x.__array_interface__["data"][0], n
    if key in SEEN:
        y[:] = SEEN[key]
        return
    y[:] = alpha * x + 1
    SEEN[key] = y.copy()
