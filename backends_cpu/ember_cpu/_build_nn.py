"""C kernels for im2col/col2im, pooling, softmax and normalisation (a ``_build.py`` extension).

``generate()`` returns the C source (it may include "em_common.h") and the cdef
declarations of the functions the Python wrappers in ``ops_nn.py`` call.
"""


def generate():
    return "", []
