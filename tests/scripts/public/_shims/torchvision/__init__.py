"""A stand-in for the parts of ``torchvision`` that the public programs import, written for
this test corpus (torchvision is not installed here, and its datasets download).

It is not third-party code. ``datasets`` serves small synthetic data sets of the real ones'
shapes and types instead of downloading (MNIST from scikit-learn's 8x8 digits, CIFAR-10 as
coloured class patterns, ``FakeData`` as noise); ``transforms`` and ``utils.save_image``
follow torchvision's documented behaviour for the arguments the programs pass. Written in
plain PyTorch, it is converted to ember with the programs, so its tensors are the library's.
"""

from . import datasets, transforms, utils

__all__ = ["datasets", "transforms", "utils"]
