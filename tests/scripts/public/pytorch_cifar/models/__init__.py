# Vendored for ember's test corpus (tests/scripts/test_public_programs.py) from
# https://github.com/kuangliu/pytorch-cifar, models/__init__.py, at commit
# 49b7aa97b0c12fe0d4054e670403a16b6b834ddd
# (MIT licence; its text is in LICENSE at the top of this program's folder).
# Changed: nothing.
from .vgg import *
from .dpn import *
from .lenet import *
from .senet import *
from .pnasnet import *
from .densenet import *
from .googlenet import *
from .shufflenet import *
from .shufflenetv2 import *
from .resnet import *
from .resnext import *
from .preact_resnet import *
from .mobilenet import *
from .mobilenetv2 import *
from .efficientnet import *
from .regnet import *
from .dla_simple import *
from .dla import *
