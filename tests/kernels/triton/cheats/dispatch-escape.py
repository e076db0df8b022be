# task: softmax.f32.cols4096
# cheat: torch's kernels out of the dispatcher's sight: the call leaves torch's dispatch modes (the
#   harness's check among them) and runs torch.softmax, so no torch operator is seen at the dispatcher
# expect: screen
# runtime: verify (the softmax and copy kernels still reach the CUDA driver, and they are not the candidate's: the launch check, violation launches)
import torch
from torch.utils._python_dispatch import _disable_current_modes


def softmax(x, y, rows, cols):
    with _disable_current_modes():
        y.copy_(torch.softmax(x, dim=1))
