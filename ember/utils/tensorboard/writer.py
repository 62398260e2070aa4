"""``SummaryWriter``: PyTorch's TensorBoard writer, writing real event files without TensorFlow.

A writer owns one event file (``event_file_writer``) per directory it writes to, named as
TensorBoard's own writer names them. Records are framed and checksummed by ``_record`` and
encoded by ``_proto``/``_summary`` (no ``tensorboard``, ``protobuf`` or ``PIL`` needed).
Written: ``add_scalar``, ``add_scalars`` (one sub-directory writer per tag, as torch),
``add_text``, ``add_histogram`` and ``add_histogram_raw``, ``add_image``/``add_images``/
``add_figure`` (PNG), ``add_hparams`` (the hparams plugin's messages and the metric scalars
in a ``run_name`` sub-directory).
Not written (each warns once and does nothing): ``add_graph``, ``add_embedding``,
``add_audio``, ``add_video``, ``add_mesh``, ``add_pr_curve``, ``add_custom_scalars``,
``add_tensor``, ``add_onnx_graph``, ``add_image_with_boxes``.

Must always hold: events are written as ``event_file_writer`` promises (at ``flush()``,
``close()``, ``max_queue`` or ``flush_secs``); a closed writer opens a new event file on its
next ``add_*`` call, as torch's does.

Examples:
    >>> import os, tempfile
    >>> from ember.utils.tensorboard import SummaryWriter
    >>> d = tempfile.mkdtemp()
    >>> with SummaryWriter(d) as w:
    ...     for step in range(3):
    ...         w.add_scalar("loss", 1.0 / (step + 1), step)
    >>> [f.startswith("events.out.tfevents.") for f in os.listdir(d)]
    [True]
"""

from __future__ import annotations

import os
import socket
import time
import warnings
from typing import Any, cast

from ember.utils.tensorboard import _proto as pb
from ember.utils.tensorboard import _summary
from ember.utils.tensorboard.event_file_writer import EventFileWriter

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """torch's ``FileWriter``: writes serialized ``Summary`` messages to one event file.

    Where torch's methods take protocol-buffer objects, these take the serialized bytes
    (``ember.utils.tensorboard._summary`` makes them).
    """

    def __init__(
        self, log_dir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = ""
    ) -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(
        self, what: bytes, step: int | None = None, walltime: float | None = None
    ) -> None:
        self.event_writer.add_event(what, step, walltime)

    def add_summary(
        self, summary: bytes, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        self.event_writer.add_event(pb.submessage(5, summary), global_step, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


_warned: set[str] = set()


def _not_written(what: str) -> None:
    if what not in _warned:
        _warned.add(what)
        warnings.warn(
            f"ember's SummaryWriter does not write {what}; the call is ignored",
            UserWarning,
            stacklevel=3,
        )


class SummaryWriter:
    """Writes scalars, histograms, text, images and hparams for TensorBoard (torch's API).

    Args:
        log_dir: the directory; default ``runs/<Mon DD_HH-MM-SS>_<host><comment>``.
        comment: appended to the default ``log_dir`` (ignored when ``log_dir`` is given).
        purge_step: events at or after this step in earlier files of ``log_dir`` are hidden
            by TensorBoard (a ``SessionLog.START`` at that step is written).
        max_queue: events held before an ``add_*`` call writes them out.
        flush_secs: at most this many seconds between writes of pending events.
        filename_suffix: appended to every event file name.
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            from datetime import datetime

            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        """The main writer, made again when the writer was closed."""
        if self.file_writer is None or self.all_writers is None:
            fw = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.file_writer = fw
            self.all_writers = {fw.get_logdir(): fw}
            if self.purge_step is not None:
                step = int(self.purge_step)
                fw.add_event(pb.string(3, "brain.Event:2", always=True), step)
                fw.add_event(pb.submessage(7, pb.uint(1, pb.SESSION_START)), step)
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    # -- scalars ---------------------------------------------------------------------------
    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """One point of the series ``tag``.

        Examples:
            >>> import tempfile
            >>> w = SummaryWriter(tempfile.mkdtemp())
            >>> w.add_scalar("lr", 0.1, global_step=0)
            >>> w.close()
        """
        summary = _summary.scalar(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Several series in one chart: each tag is written under ``main_tag`` by its own
        writer in ``<log_dir>/<main_tag>_<tag>`` (``/`` in ``main_tag`` becomes ``_``)."""
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        writers = cast(dict[str, FileWriter], self.all_writers)  # set by _get_file_writer
        for tag, value in tag_scalar_dict.items():
            sub = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = writers.get(sub)
            if fw is None:
                fw = FileWriter(sub, self.max_queue, self.flush_secs, self.filename_suffix)
                writers[sub] = fw
            fw.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Text (markdown) shown by TensorBoard's text plugin under ``<tag>/text_summary``."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """A histogram of ``values``; ``bins`` as NumPy's, or ``'tensorflow'`` (the default
        exponential buckets)."""
        summary = _summary.histogram(tag, values, bins, max_bins)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_histogram_raw(
        self,
        tag: str,
        min: float,  # noqa: A002 - torch's parameter names
        max: float,  # noqa: A002
        num: float,
        sum: float,  # noqa: A002
        sum_squares: float,
        bucket_limits: Any,
        bucket_counts: Any,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        limits, counts = list(bucket_limits), list(bucket_counts)
        if len(limits) != len(counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summary = _summary.histogram_raw(tag, min, max, num, sum, sum_squares, limits, counts)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # -- images ----------------------------------------------------------------------------
    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """An image: float values in [0, 1] or uint8 in [0, 255], written as PNG."""
        summary = _summary.image(tag, img_tensor, dataformats=dataformats)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """A batch of images, tiled eight to a row into one image."""
        self.add_image(tag, img_tensor, global_step, walltime, dataformats)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """A matplotlib figure (or a list of them), rendered to RGB with the Agg canvas."""
        import numpy as np
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        def render(fig: Any) -> Any:
            canvas = FigureCanvasAgg(fig)
            canvas.draw()
            rgba = np.asarray(canvas.buffer_rgba())
            if close:
                import matplotlib.pyplot as plt

                plt.close(fig)
            return np.moveaxis(rgba[:, :, :3], 2, 0)

        if isinstance(figure, list):
            arr, fmt = np.stack([render(f) for f in figure]), "NCHW"
        else:
            arr, fmt = render(figure), "CHW"
        self.add_image(tag, arr, global_step, walltime, dataformats=fmt)

    # -- hparams ---------------------------------------------------------------------------
    def add_hparams(
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        hparam_domain_discrete: dict[str, list[Any]] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Hyperparameters and their metrics for the HParams dashboard, written as torch does
        into ``<log_dir>/<run_name>`` (default: the current time): the plugin's experiment and
        session messages, and each metric as a scalar."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            fw = w._get_file_writer()
            for s in summaries:
                fw.add_summary(s, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    # -- accepted, not written ---------------------------------------------------------------
    def add_graph(
        self,
        model: Any,
        input_to_model: Any = None,
        verbose: bool = False,
        use_strict_trace: bool = True,
    ) -> None:
        _not_written("graphs (add_graph)")

    def add_embedding(
        self,
        mat: Any,
        metadata: Any = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: Any = None,
    ) -> None:
        _not_written("embeddings (add_embedding)")

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        _not_written("audio (add_audio)")

    def add_video(
        self,
        tag: str,
        vid_tensor: Any,
        global_step: int | None = None,
        fps: int = 4,
        walltime: float | None = None,
    ) -> None:
        _not_written("video (add_video)")

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        _not_written("PR curves (add_pr_curve)")

    def add_mesh(self, tag: str, vertices: Any, *args: Any, **kwargs: Any) -> None:
        _not_written("meshes (add_mesh)")

    def add_custom_scalars(self, layout: Any) -> None:
        _not_written("custom scalar layouts (add_custom_scalars)")

    def add_tensor(
        self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        _not_written("tensors (add_tensor)")

    def add_onnx_graph(self, prototxt: Any) -> None:
        _not_written("ONNX graphs (add_onnx_graph)")

    def add_image_with_boxes(
        self, tag: str, img_tensor: Any, box_tensor: Any, *args: Any, **kwargs: Any
    ) -> None:
        _not_written("images with boxes (add_image_with_boxes)")

    # -- lifetime ----------------------------------------------------------------------------
    def flush(self) -> None:
        """Write every pending event of every writer to disk."""
        for fw in (self.all_writers or {}).values():
            fw.flush()

    def close(self) -> None:
        """Flush and close every event file (a later ``add_*`` opens a new one)."""
        for fw in (self.all_writers or {}).values():
            fw.flush()
            fw.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
