"""The core: dtypes, devices, dispatch keys, storage, tensors and the core's own kernels."""
