"""`ember.hub`: load models and weights published as a `hubconf.py` or a URL.

A hub repository is a directory with a `hubconf.py` whose public callables are its
entry points. `source='local'` imports it from a directory; a GitHub repository
("owner/repo[:ref]") is used from the hub cache and downloaded only when absent, so
offline and uncached it raises PyTorch's "no internet connection" error. Weights come
through `load_state_dict_from_url`, which caches the file (any URL urllib opens, file://
included) and reads it with `ember.load`.
"""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import zipfile
from urllib.error import URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")
_hub_dir = [None]


def get_dir():
    """The hub cache: set_dir's choice, else $TORCH_HOME/hub, else ~/.cache/torch/hub."""
    if _hub_dir[0] is not None:
        return _hub_dir[0]
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.join(os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch"))),
                        "hub")


def set_dir(d):
    _hub_dir[0] = os.path.expanduser(os.fspath(d))


# ---------------------------------------------------------------- repositories
def _github_dir(github, force_reload):
    """The cached checkout of "owner/repo[:ref]", downloaded when missing."""
    repo, _, ref = github.partition(":")
    owner, _, name = repo.partition("/")
    ref = ref or "main"
    target = os.path.join(get_dir(), "_".join((owner, name, ref.replace("/", "_"))))
    if os.path.exists(target) and not force_reload:
        return target
    archive = os.path.join(get_dir(), ref.replace("/", "_") + ".zip")
    try:
        download_url_to_file(f"https://github.com/{owner}/{name}/zipball/{ref}", archive,
                             progress=False)
    except URLError as error:
        raise RuntimeError("It looks like there is no internet connection and the repo could "
                           f"not be found in the cache ({get_dir()})") from error
    with zipfile.ZipFile(archive) as zipped:
        top = zipped.infolist()[0].filename.split("/")[0]
        zipped.extractall(get_dir())
    os.remove(archive)
    shutil.rmtree(target, ignore_errors=True)
    shutil.move(os.path.join(get_dir(), top), target)
    return target


def _hubconf(directory):
    """The hubconf module of `directory`, imported with the directory on sys.path so its
    own modules resolve; its declared dependencies must be importable."""
    path = os.path.join(directory, "hubconf.py")
    sys.path.insert(0, directory)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(directory)
    missing = [name for name in getattr(module, "dependencies", [])
               if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    entry = getattr(module, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """The entry points a GitHub hub repository offers."""
    module = _hubconf(_github_dir(github, force_reload))
    return [name for name in dir(module)
            if callable(getattr(module, name)) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """The docstring of one entry point."""
    return _entry(_hubconf(_github_dir(github, force_reload)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Call entry point `model` of a GitHub repository or (source='local') a directory."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    directory = _github_dir(repo_or_dir, force_reload) if source == "github" else repo_or_dir
    return _entry(_hubconf(directory), model)(*args, **kwargs)


# ---------------------------------------------------------------- files
def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Copy `url` to `dst` through a temporary file beside it; with `hash_prefix`, the
    SHA-256 of the bytes must start with it."""
    dst = os.path.expanduser(dst)
    response = urlopen(Request(url, headers={"User-Agent": "torch.hub"}))
    digest = hashlib.sha256()
    partial = f"{dst}.{os.getpid()}.partial"   # beside dst, so the final move is a rename
    try:
        with open(partial, "wb") as out, response:
            while True:
                block = response.read(1 << 16)
                if not block:
                    break
                out.write(block)
                digest.update(block)
        if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                               f'"{digest.hexdigest()}")')
        shutil.move(partial, dst)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """The object saved at `url`, downloaded once into `model_dir` (hub dir/checkpoints)."""
    from .serialization import load as _load   # deferred: serialization is far above us
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        found = _HASH_IN_NAME.search(name) if check_hash else None
        download_url_to_file(url, cached, found.group(1) if found else None, progress=progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)
