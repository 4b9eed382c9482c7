"""The model examples/serve serves: model() is what the Go server calls, once."""

from __future__ import annotations

import torch


def model() -> torch.nn.Module:
    """A small MLP, 16 input features to 4 outputs, in eval mode. Its weights come
    from a fixed seed (no download), and it needs no gradients: its outputs can then
    leave through DLPack (PyTorch refuses to export a tensor that requires grad)."""
    gen = torch.Generator().manual_seed(24)
    layers = [torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32)]
    layers += [torch.nn.ReLU(), torch.nn.Linear(32, 4)]
    m = torch.nn.Sequential(*layers)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    return m.eval().requires_grad_(False)
