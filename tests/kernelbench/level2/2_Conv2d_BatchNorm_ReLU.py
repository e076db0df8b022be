import torch
import torch.nn as nn


class Model(nn.Module):
    """Convolution, batch norm (training mode: the batch's statistics), ReLU."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(4, 4, 72, 72)]


def get_init_inputs():
    return [4, 8, 3]
