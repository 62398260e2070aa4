"""``ember.utils.tensorboard``: PyTorch's ``torch.utils.tensorboard`` (``SummaryWriter``).

ember writes TensorBoard event files itself: TFRecord framing with CRC32C checksums
(``_record``), hand-encoded protocol buffers (``_proto``, ``_summary``) and PNG images
through ``zlib``, so neither ``tensorboard`` nor ``protobuf`` is needed to write logs;
TensorBoard itself is only needed to view them. ``writer`` says which ``add_*`` methods
write and which are accepted without writing.

Layer: the PyTorch API band (docs/architecture.md); imports only NumPy and the standard
library at import time (ember tensors are read through their public methods).

Examples:
    >>> import tempfile
    >>> from ember.utils.tensorboard import SummaryWriter
    >>> w = SummaryWriter(tempfile.mkdtemp(), flush_secs=1)
    >>> w.add_text("notes", "first run", 0)
    >>> w.close()
"""

from ember.utils.tensorboard.writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
