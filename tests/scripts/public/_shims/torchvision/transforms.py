"""torchvision.transforms, the subset the public programs use, on PIL images and tensors."""

import numbers

import numpy as np
import torch
from PIL import Image, ImageOps


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    """A PIL image or an HxWxC uint8 array to a CxHxW float tensor in [0, 1]."""

    def __call__(self, pic):
        arr = np.array(pic, copy=True)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        t = torch.from_numpy(arr.transpose(2, 0, 1).copy())
        return t.float().div(255) if t.dtype == torch.uint8 else t.float()


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean, self.std, self.inplace = mean, std, inplace

    def __call__(self, tensor):
        mean = torch.as_tensor(self.mean, dtype=tensor.dtype).view(-1, 1, 1)
        std = torch.as_tensor(self.std, dtype=tensor.dtype).view(-1, 1, 1)
        return (tensor - mean) / std


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


def _size(size):
    return (size, size) if isinstance(size, numbers.Number) else tuple(size)


class Resize:
    """Shorter side to ``size`` (an int) or exactly ``(h, w)``, bilinear, as torchvision."""

    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        w, h = img.size
        if isinstance(self.size, numbers.Number):
            if w <= h:
                ow, oh = self.size, int(self.size * h / w)
            else:
                oh, ow = self.size, int(self.size * w / h)
        else:
            oh, ow = self.size
        return img.resize((ow, oh), Image.BILINEAR)


class CenterCrop:
    def __init__(self, size):
        self.size = _size(size)

    def __call__(self, img):
        w, h = img.size
        th, tw = self.size
        i, j = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
        return img.crop((j, i, j + tw, i + th))


class RandomCrop:
    """Pads with zeros, then crops at offsets drawn with ``torch.randint`` (torchvision's)."""

    def __init__(self, size, padding=None):
        self.size, self.padding = _size(size), padding

    def __call__(self, img):
        if self.padding:
            img = ImageOps.expand(img, border=self.padding, fill=0)
        w, h = img.size
        th, tw = self.size
        i = torch.randint(0, h - th + 1, size=(1,)).item()
        j = torch.randint(0, w - tw + 1, size=(1,)).item()
        return img.crop((j, i, j + tw, i + th))


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(1) < self.p:
            return img.transpose(Image.FLIP_LEFT_RIGHT)
        return img
