import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B for a rectangular A (M x K) and B (K x N)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 384
K = 256
N = 320


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
