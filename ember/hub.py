"""``ember.hub``: PyTorch's ``torch.hub``: checkpoints by URL, and models from a ``hubconf.py``.

``load_state_dict_from_url`` downloads a checkpoint once into ``<hub dir>/checkpoints``
(any URL ``urllib`` opens: ``https://``, ``http://``, ``file://``), optionally checks the
SHA-256 prefix in its file name (``resnet18-f37072fd.pth``), and loads it with
``ember.load``. The hub directory is ``set_dir``'s, else ``$EMBER_HOME/hub``, else
``$XDG_CACHE_HOME/ember/hub`` (default ``~/.cache/ember/hub``): ember keeps its own cache
beside torch's ``$TORCH_HOME``.

``load``/``list``/``help`` run entry points from a directory's ``hubconf.py``
(``source='local'``). ``source='github'`` raises ``NotImplementedError``: it would download
a repository and execute its code, and ember does not fetch code from the network; clone the
repository yourself (read it first) and pass its directory with ``source='local'``.

Must always hold: a download is written to a temporary file beside its destination and
moved into place only when complete and, if asked, hash-checked, so an interrupted or
corrupt download never becomes a cached checkpoint.

Examples:
    >>> import ember, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> ember.save({"w": ember.ones(2)}, os.path.join(d, "tiny.pt"))
    >>> url = "file://" + os.path.join(d, "tiny.pt")
    >>> ember.hub.load_state_dict_from_url(url, model_dir=os.path.join(d, "cache"),
    ...                                    progress=False)
    {'w': tensor([1., 1.])}
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import types
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from typing import Any

from ember.serialization import load as _ember_load

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

ENV_EMBER_HOME = "EMBER_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
#: a file name's ``-<hex>.`` part: the prefix of its SHA-256 (torch's convention)
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
_CHUNK = 128 * 1024
_hub_dir: str | None = None


def _get_ember_home() -> str:
    cache = os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR)
    return os.path.expanduser(os.getenv(ENV_EMBER_HOME, os.path.join(cache, "ember")))


def get_dir() -> str:
    """The hub directory: ``set_dir``'s, else ``$EMBER_HOME/hub``, else
    ``$XDG_CACHE_HOME/ember/hub`` (``~/.cache/ember/hub``)."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_ember_home(), "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    """Use ``d`` as the hub directory from now on.

    Examples:
        >>> import ember.hub as hub
        >>> hub.set_dir("/tmp/my_hub")
        >>> hub.get_dir()
        '/tmp/my_hub'
        >>> hub._hub_dir = None
    """
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _progress(done: int, total: int | None) -> None:
    if total:
        sys.stderr.write(f"\r{100 * done // total:3d}% {done / 2**20:.1f}/{total / 2**20:.1f} MiB")
    else:
        sys.stderr.write(f"\r{done / 2**20:.1f} MiB")
    sys.stderr.flush()


def download_url_to_file(
    url: str, dst: str, hash_prefix: str | None = None, progress: bool = True
) -> None:
    """Download ``url`` to ``dst``; ``RuntimeError`` if its SHA-256 does not start with
    ``hash_prefix``. The file appears at ``dst`` only when complete.

    Examples:
        >>> import os, tempfile, hashlib
        >>> d = tempfile.mkdtemp()
        >>> with open(os.path.join(d, "a.bin"), "wb") as f:
        ...     _ = f.write(b"ember")
        >>> digest = hashlib.sha256(b"ember").hexdigest()
        >>> download_url_to_file("file://" + d + "/a.bin", d + "/b.bin", digest[:8], False)
        >>> open(d + "/b.bin", "rb").read()
        b'ember'
    """
    req = urllib.request.Request(url, headers={"User-Agent": "ember.hub"})
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    tmp = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, removed on failure
        delete=False, dir=folder, prefix=os.path.basename(dst) + ".", suffix=".partial"
    )
    try:
        sha = hashlib.sha256() if hash_prefix is not None else None
        with urllib.request.urlopen(req) as u:
            length = u.info().get("Content-Length")
            total = int(length) if length else None
            done = 0
            while chunk := u.read(_CHUNK):
                tmp.write(chunk)
                if sha is not None:
                    sha.update(chunk)
                done += len(chunk)
                if progress:
                    _progress(done, total)
        if progress:
            sys.stderr.write("\n")
        tmp.close()
        if sha is not None and hash_prefix is not None:
            digest = sha.hexdigest()
            if not digest.startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp.name, dst)
    finally:
        tmp.close()
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def _legacy_zip_member(path: str) -> str | None:
    """The one file of a pre-1.6 torch checkpoint zip (a zip around one saved file)."""
    if not zipfile.is_zipfile(path):
        return None
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        if len(infos) == 1 and not infos[0].is_dir():
            return infos[0].filename
    return None


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location: Any = None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> dict[str, Any]:
    """Download the checkpoint at ``url`` into ``model_dir`` (default
    ``<get_dir()>/checkpoints``) unless already there, and ``ember.load`` it.

    ``check_hash`` checks the SHA-256 prefix that ``<name>-<hex>.<ext>`` carries;
    ``file_name`` overrides the name taken from the URL.
    """
    model_dir = model_dir if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress)
    member = _legacy_zip_member(cached)
    if member is not None:
        with zipfile.ZipFile(cached) as z:
            z.extract(member, model_dir)
        cached = os.path.join(model_dir, member)
    return _ember_load(cached, map_location=map_location, weights_only=weights_only)  # type: ignore[no-any-return]


# -- hubconf.py entry points ---------------------------------------------------------------------
def _refuse_github(repo: str) -> NotImplementedError:
    return NotImplementedError(
        f"ember.hub does not fetch code from the network: source='github' would download "
        f"'{repo}' and run its hubconf.py. Clone the repository yourself, read it, and call "
        "ember.hub.load(<its directory>, model, source='local')."
    )


@contextlib.contextmanager
def _on_sys_path(path: str) -> Iterator[None]:
    sys.path.insert(0, path)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(path)


def _import_hubconf(repo_dir: str) -> types.ModuleType:
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no {MODULE_HUBCONF} in '{repo_dir}'")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _module_exists(name: str) -> bool:
    if name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _entry(module: types.ModuleType, model: str) -> Any:
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    deps = getattr(module, VAR_DEPENDENCY, None)
    missing = [pkg for pkg in deps or () if not _module_exists(pkg)]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _local_dir(repo_or_dir: str, source: str) -> str:
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise _refuse_github(repo_or_dir)
    return os.path.abspath(os.path.expanduser(repo_or_dir))


def _dir_of(github: str) -> str:
    """``list``/``help`` take torch's ``owner/repo``; ember answers for an existing directory."""
    return _local_dir(github, "local" if os.path.isdir(os.path.expanduser(github)) else "github")


def load(
    repo_or_dir: str,
    model: str,
    *args: Any,
    source: str = "github",
    trust_repo: bool | str | None = "check",
    force_reload: bool = False,
    verbose: bool = True,
    skip_validation: bool = False,
    **kwargs: Any,
) -> Any:
    """Call the entry point ``model`` of ``repo_or_dir``'s ``hubconf.py`` with ``args`` and
    ``kwargs`` (``source='local'``; the directory is on ``sys.path`` meanwhile).

    Examples:
        >>> import os, tempfile, ember.hub
        >>> d = tempfile.mkdtemp()
        >>> with open(os.path.join(d, "hubconf.py"), "w") as f:
        ...     _ = f.write("dependencies = []\\ndef double(x):\\n    return 2 * x\\n")
        >>> ember.hub.load(d, "double", 21, source="local")
        42
    """
    repo_dir = _local_dir(repo_or_dir, source)
    with _on_sys_path(repo_dir):
        return _entry(_import_hubconf(repo_dir), model)(*args, **kwargs)


def list(  # noqa: A001 - torch's name
    github: str,
    force_reload: bool = False,
    skip_validation: bool = False,
    trust_repo: bool | str | None = "check",
    verbose: bool = True,
) -> builtins.list[str]:
    """The entry points (public callables) of a directory's ``hubconf.py``."""
    repo_dir = _dir_of(github)
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return [
        name for name in dir(module)
        if callable(getattr(module, name)) and not name.startswith("_")
    ]  # fmt: skip


def help(  # noqa: A001 - torch's name
    github: str,
    model: str,
    force_reload: bool = False,
    skip_validation: bool = False,
    trust_repo: bool | str | None = "check",
) -> str | None:
    """The docstring of the entry point ``model`` of a directory's ``hubconf.py``."""
    repo_dir = _dir_of(github)
    with _on_sys_path(repo_dir):
        return _entry(_import_hubconf(repo_dir), model).__doc__  # type: ignore[no-any-return]
