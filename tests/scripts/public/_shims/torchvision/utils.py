"""torchvision.utils.make_grid / save_image for (B, C, H, W) tensors."""

import math

import numpy as np
from PIL import Image


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, pad_value=0.0):
    arr = tensor.detach().cpu().numpy().astype(np.float32)
    if arr.ndim == 3:
        arr = arr[None]
    if arr.shape[1] == 1:
        arr = np.repeat(arr, 3, axis=1)
    if normalize:
        lo, hi = value_range if value_range is not None else (arr.min(), arr.max())
        arr = (np.clip(arr, lo, hi) - lo) / max(hi - lo, 1e-5)
    n, c, h, w = arr.shape
    cols = min(nrow, n)
    rows = int(math.ceil(n / cols))
    grid = np.full((c, rows * (h + padding) + padding, cols * (w + padding) + padding), pad_value)
    for k in range(n):
        y, x = divmod(k, cols)
        top, left = y * (h + padding) + padding, x * (w + padding) + padding
        grid[:, top : top + h, left : left + w] = arr[k]
    return grid


def save_image(tensor, fp, nrow=8, padding=2, normalize=False, value_range=None, **kwargs):
    grid = make_grid(tensor, nrow, padding, normalize, value_range)
    img = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    Image.fromarray(img).save(fp)
