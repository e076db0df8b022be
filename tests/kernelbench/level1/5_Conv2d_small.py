import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3x3 convolution, no padding, with a bias: its weight and bias are the module's parameters."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        return self.conv(x)


batch_size = 4
in_channels = 3
out_channels = 8
kernel_size = 3
height = 96
width = 80


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
