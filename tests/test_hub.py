"""ember.hub: checkpoints through file:// URLs (cached, hash-checked, torch's file layout) and
hubconf.py entry points from a directory, compared with torch.hub where both can run."""

import hashlib
import os
import sys
import textwrap
import zipfile

import pytest
import torch
import torch.hub

import ember
import ember.hub as hub
from ember.utils import model_zoo


@pytest.fixture
def ckpt(tmp_path):
    """A checkpoint saved by ember, named ``<stem>-<sha256 prefix>.pth`` as torch's are."""
    src = tmp_path / "src"
    src.mkdir()
    tmp = src / "tmp.pth"
    ember.save({"w": ember.arange(6.0).reshape(2, 3), "step": 7}, str(tmp))
    digest = hashlib.sha256(tmp.read_bytes()).hexdigest()
    path = src / f"tiny-{digest[:8]}.pth"
    tmp.rename(path)
    return path


def _url(path):
    return "file://" + str(path)


def test_load_state_dict_from_url_downloads_once_and_loads(ckpt, tmp_path, capsys):
    cache = tmp_path / "cache"
    sd = hub.load_state_dict_from_url(_url(ckpt), model_dir=str(cache), progress=True)
    assert sd["step"] == 7 and sd["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert os.listdir(cache) == [ckpt.name]
    err = capsys.readouterr().err
    assert f'Downloading: "{_url(ckpt)}" to {cache / ckpt.name}' in err and "100%" in err
    ckpt.unlink()  # the cached copy is used from now on
    again = hub.load_state_dict_from_url(_url(ckpt), model_dir=str(cache), progress=False)
    assert again["w"].tolist() == sd["w"].tolist()
    assert capsys.readouterr().err == ""


def test_default_directory_is_ember_home_then_xdg_cache(ckpt, tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.delenv("EMBER_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "ember" / "hub")
    monkeypatch.setenv("EMBER_HOME", str(tmp_path / "home"))
    assert hub.get_dir() == str(tmp_path / "home" / "hub")
    hub.load_state_dict_from_url(_url(ckpt), progress=False)
    assert os.listdir(tmp_path / "home" / "hub" / "checkpoints") == [ckpt.name]
    hub.set_dir(tmp_path / "mine")
    assert hub.get_dir() == str(tmp_path / "mine")
    monkeypatch.delenv("EMBER_HOME")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setattr(hub, "_hub_dir", None)
    assert hub.get_dir() == os.path.expanduser("~/.cache/ember/hub")


def test_hash_check_and_no_partial_file_on_failure(ckpt, tmp_path):
    cache = tmp_path / "cache"
    hub.load_state_dict_from_url(_url(ckpt), str(cache), check_hash=True, progress=False)
    bad = ckpt.with_name("tiny-00000000.pth")
    bad.write_bytes(ckpt.read_bytes())
    with pytest.raises(RuntimeError, match=r'invalid hash value \(expected "00000000", got "'):
        hub.load_state_dict_from_url(_url(bad), str(cache), check_hash=True, progress=False)
    assert sorted(os.listdir(cache)) == [ckpt.name]  # nothing half-written was left behind
    with pytest.raises(OSError):
        hub.download_url_to_file(_url(tmp_path / "missing.pth"), str(cache / "x"), progress=False)
    assert sorted(os.listdir(cache)) == [ckpt.name]


def test_file_name_map_location_and_weights_only(ckpt, tmp_path):
    cache = str(tmp_path / "cache")
    sd = hub.load_state_dict_from_url(
        _url(ckpt), cache, map_location="cpu", file_name="renamed.pt", weights_only=True,
        progress=False,
    )  # fmt: skip
    assert os.listdir(cache) == ["renamed.pt"] and sd["w"].device.type == "cpu"
    pickled = tmp_path / "src" / "obj.pt"
    ember.save({"cfg": {1, 2}, "w": ember.ones(1)}, str(pickled))  # a set: not weights-only
    assert hub.load_state_dict_from_url(_url(pickled), cache, progress=False)["cfg"] == {1, 2}
    assert model_zoo.load_url(_url(pickled), cache, progress=False)["w"].tolist() == [1.0]


def test_a_legacy_zip_around_one_checkpoint_is_unpacked(ckpt, tmp_path):
    zipped = tmp_path / "src" / "old.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.write(ckpt, "inner.pth")
    cache = tmp_path / "cache"
    sd = hub.load_state_dict_from_url(_url(zipped), str(cache), progress=False)
    assert sd["step"] == 7 and sorted(os.listdir(cache)) == ["inner.pth", "old.zip"]


def test_checkpoints_cross_with_torch_hub(tmp_path):
    tsd = {"weight": torch.randn(3, 4), "bias": torch.zeros(3)}
    torch.save(tsd, tmp_path / "t.pth")
    ours = hub.load_state_dict_from_url(_url(tmp_path / "t.pth"), str(tmp_path / "e"),
                                        progress=False)  # fmt: skip
    assert ours["weight"].tolist() == tsd["weight"].tolist()
    ember.save({"weight": ember.ones(2, 2)}, str(tmp_path / "e.pth"))
    theirs = torch.hub.load_state_dict_from_url(
        _url(tmp_path / "e.pth"), str(tmp_path / "t"), progress=False, weights_only=True
    )
    assert theirs["weight"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert os.listdir(tmp_path / "e") == ["t.pth"] and os.listdir(tmp_path / "t") == ["e.pth"]


@pytest.fixture
def repo(tmp_path):
    d = tmp_path / "repo"
    d.mkdir()
    (d / "helper.py").write_text("SCALE = 3\n")
    (d / "hubconf.py").write_text(
        textwrap.dedent('''
        from helper import SCALE  # a sibling module: the directory is on sys.path
        dependencies = ["os"]

        def scaled(x, offset=0):
            """Multiply by the repository's scale."""
            return SCALE * x + offset

        def _private():
            pass

        not_callable = 5
    ''')
    )
    return d


@pytest.mark.parametrize("lib", [hub, torch.hub], ids=["ember", "torch"])
def test_local_hubconf_entry_points(repo, lib):
    path_before = list(sys.path)
    assert lib.load(str(repo), "scaled", 2, source="local", offset=1) == 7
    assert sys.path == path_before
    with pytest.raises(RuntimeError, match="Cannot find callable not_callable in hubconf"):
        lib.load(str(repo), "not_callable", source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        lib.load(str(repo), "nope", source="local")
    with pytest.raises(
        ValueError, match='Unknown source: "svn". Allowed values: "github" | "local".'
    ):
        lib.load(str(repo), "scaled", source="svn")
    (repo / "hubconf.py").write_text(
        "dependencies = ['no_such_package_ember_test']\ndef f(): pass\n"
    )
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_ember_test"):
        lib.load(str(repo), "f", source="local")


def test_list_help_and_github_is_refused(repo):
    assert hub.list(str(repo)) == ["scaled"]
    assert hub.help(str(repo), "scaled") == "Multiply by the repository's scale."
    with pytest.raises(NotImplementedError, match="does not fetch code from the network"):
        hub.load("pytorch/vision", "resnet18")
    with pytest.raises(NotImplementedError, match="source='local'"):
        hub.list("pytorch/vision:main")
    with pytest.raises(ValueError, match="model should be a string"):
        hub.load(str(repo), 3, source="local")
    with pytest.raises(FileNotFoundError, match="no hubconf.py in"):
        hub.load(str(repo / "helper.py"), "x", source="local")
