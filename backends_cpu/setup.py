"""Build script for ember-cpu: metadata lives in pyproject.toml; this file only
registers the CFFI extension ``ember_cpu._C`` (built by ember_cpu/_build.py)."""

import os
import sys

from setuptools import setup

# cffi resolves the builder path relative to the current directory.
os.chdir(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

setup(cffi_modules=["ember_cpu/_build.py:ffibuilder"])
