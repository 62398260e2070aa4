"""The core: the bottom layer of the house (docs/architecture.md).

Owns dtypes and type promotion (``dtype``), devices (``device``), dispatch keys
(``dispatch_key``), storage, Tensor's data model (``tensor``: shape, strides, storage,
version, autograd fields), the device contract (``backend``: ``DeviceBackend``,
``Capabilities``), memory formats, printing, and ``ops.yaml``, the one declaration of
every operator.

May import: nothing in ember above it (numpy only). What Tensor's methods need from the
layers above (indexing, autograd, factories, device lookup) arrives through the slots in
``providers`` (Note [Registration points]); the methods bound from ``ops.yaml`` are
attached by ``ember.operators.registration``.
"""
