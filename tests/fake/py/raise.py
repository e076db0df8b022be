# expect: verify crash
# raises in the call (its traceback is the teacher's feedback)
def scale(x, y, n, alpha):
    raise ValueError("block size %d does not divide n" % 128)
