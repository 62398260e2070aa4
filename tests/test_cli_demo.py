"""examples/demo.py's command line and plot: help with defaults, an accuracy axis with room."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_demo_cli", ROOT / "examples" / "demo.py")
assert _spec is not None and _spec.loader is not None
demo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(demo)


def test_help_shows_every_option_with_its_help_and_default():
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())  # argparse wraps long help lines
    assert "Train a small CNN on handwritten digits" in text
    options = [a for a in demo.parser()._actions if a.dest != "help"]
    assert {a.option_strings[0] for a in options} >= {"--device", "--epochs", "--lr", "--out"}
    for a in options:
        assert a.help, f"{a.option_strings[0]} has no help text"
        assert f"{a.help} (default: {a.default})" in text, a.option_strings[0]


@pytest.mark.parametrize("accs", [[0.9, 1.0, 1.0], [0.3, 0.8, 1.0]])
def test_accuracy_axis_leaves_room_above_a_perfect_curve(accs):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    history = {"train_loss": [1.0, 0.5, 0.1], "test_loss": [1.1, 0.6, 0.2]}
    history |= {"train_acc": accs, "test_acc": accs}
    fig = demo.figure(history)
    try:
        low, high = fig.axes[1].get_ylim()
        assert high > 1.0  # the train curve at 100% is not drawn on the frame
        assert low < min(accs)  # and the lowest point is inside too
    finally:
        plt.close(fig)


def test_parser_defaults_are_the_documented_ones():
    args = demo.parser().parse_args([])
    assert (args.device, args.epochs, args.batch_size, args.lr) == ("cpu", 15, 32, 3e-3)
    assert args.out == "demo_out" and args.no_progress is False
