"""placeholder"""


def kernels():
    return {}
