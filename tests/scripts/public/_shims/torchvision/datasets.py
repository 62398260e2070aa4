"""torchvision.datasets stand-ins: small synthetic data of the real sets' shapes, no download.

- ``MNIST``: scikit-learn's 8x8 handwritten digits (1797 images, 10 classes) scaled to 24x24
  and padded to MNIST's 28x28 grey uint8; the first 1500 are ``train``, the rest ``test``.
- ``CIFAR10``: 32x32 RGB uint8 images whose class sets a colour and a stripe pattern, plus noise
  128 train and 100 test images.
- ``FakeData``: uniform noise images, each drawn from a generator seeded with its index, as
  torchvision's is.

Items are PIL images and int labels, as torchvision's, and ``data`` / ``targets`` are set.
"""

import numpy as np
import torch
from PIL import Image

MNIST_TRAIN = 1500


class _Images:
    def __init__(self, images, labels, transform=None, target_transform=None):
        self.images, self.labels = images, labels
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        img, target = Image.fromarray(self.images[index]), int(self.labels[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


def _digits28():
    from sklearn.datasets import load_digits

    d = load_digits()
    img = np.kron(d.images / 16.0, np.ones((3, 3)))  # 8x8 -> 24x24
    img = np.pad(img, ((0, 0), (2, 2), (2, 2)))
    return (img * 255).round().astype(np.uint8), d.target.astype(np.int64)


class MNIST(_Images):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        images, labels = _digits28()
        part = slice(None, MNIST_TRAIN) if train else slice(MNIST_TRAIN, None)
        super().__init__(images[part], labels[part], transform, target_transform)
        self.data = torch.from_numpy(self.images.copy())
        self.targets = torch.from_numpy(self.labels.copy())


class CIFAR10(_Images):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        n = 128 if train else 100
        rng = np.random.default_rng(0 if train else 1)
        labels = rng.integers(0, 10, n)
        yy, xx = np.mgrid[0:32, 0:32]
        images = np.empty((n, 32, 32, 3), np.float64)
        for k, c in enumerate(labels):
            angle = np.pi * c / 10
            stripes = np.sin((xx * np.cos(angle) + yy * np.sin(angle)) * (0.3 + 0.05 * c))
            colour = np.array([c % 3, (c // 3) % 3, c % 2], np.float64) / 2
            images[k] = 0.2 + 0.5 * colour + 0.2 * stripes[:, :, None]
        images += rng.normal(0, 0.1, images.shape)
        images = (np.clip(images, 0, 1) * 255).astype(np.uint8)
        super().__init__(images, labels, transform, target_transform)
        self.data, self.targets = images, [int(c) for c in labels]


class FakeData(_Images):
    def __init__(
        self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
        target_transform=None, random_offset=0,
    ):  # fmt: skip
        self.size, self.image_size, self.num_classes = size, image_size, num_classes
        self.random_offset = random_offset
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator()
        g.manual_seed(index + self.random_offset)
        img = torch.rand(*self.image_size, generator=g)
        target = int(torch.randint(0, self.num_classes, size=(1,), generator=g)[0])
        arr = (img.numpy() * 255).astype(np.uint8).transpose(1, 2, 0)
        img = Image.fromarray(arr.squeeze(2) if arr.shape[2] == 1 else arr)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
