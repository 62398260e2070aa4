"""Shared helpers for the autograd tests: random float64 inputs in ember and torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import ember

RNG = np.random.default_rng(0)


def sample(shape: tuple[int, ...], domain: str) -> np.ndarray:
    if domain == "pos":
        a = RNG.uniform(0.5, 2.0, shape)
    elif domain == "unit":
        a = RNG.uniform(-0.9, 0.9, shape)
    elif domain == "gt1":
        a = RNG.uniform(1.5, 3.0, shape)
    elif domain == "away":  # away from integers and zero (rounding ops, remainder)
        a = RNG.integers(-3, 3, shape) + RNG.uniform(0.2, 0.4, shape)
    else:
        a = RNG.standard_normal(shape)
    return np.asarray(a, dtype=np.float64)


def pair(arrays: list[np.ndarray]) -> tuple[list[Any], list[Any]]:
    e = [ember.tensor(a).requires_grad_() for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    return e, t


def to_np(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach().tolist(), dtype=np.float64)
