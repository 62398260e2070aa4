# Vendored for ember's test corpus (tests/scripts/test_public_programs.py) from
# https://github.com/tkipf/pygcn, pygcn/__init__.py, at commit
# 1600b5b748b3976413d1e307540ccc62605b4d6d
# (MIT licence; its text is in LICENCE at the top of this program's folder).
# Changed: nothing (the test writes a synthetic data/cora and passes a short --epochs).
from __future__ import print_function
from __future__ import division

from .layers import *
from .models import *
from .utils import *