import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer whose weight alone (1 GiB) is past retort's cap on a
    verify case: a constructor size is divided to fit, the input's size
    with it where it is the same global."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


batch_size = 8
in_features = 4096
out_features = 65536


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
