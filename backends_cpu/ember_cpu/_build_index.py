"""C kernels for indexing, scatter, nonzero and sort (a ``_build.py`` extension).

``generate()`` returns the C source (it may include "em_common.h") and the cdef
declarations of the functions the Python wrappers in ``ops_index.py`` call.
"""


def generate():
    return "", []
