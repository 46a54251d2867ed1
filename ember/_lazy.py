"""The front door's module `__getattr__`: names looked up only when a script asks.

`ember.hub` and `ember.multiprocessing` import on first use (they pull in urllib,
zipfile and multiprocessing, which most programs never need); the deprecated build
flags (`has_cuda`, ...) warn as PyTorch's do and answer from `ember.backends`.
"""
import importlib
import warnings

_LAZY_MODULES = ("hub", "multiprocessing")
# deprecated flag -> (backend module, its question)
_DEPRECATED_FLAGS = {"has_mps": ("mps", "is_built"), "has_cuda": ("cuda", "is_built"),
                     "has_cudnn": ("cudnn", "is_available"),
                     "has_mkldnn": ("mkldnn", "is_available")}


def module_getattr(name):
    if name in _LAZY_MODULES:
        return importlib.import_module(f"ember.{name}")
    if name in _DEPRECATED_FLAGS:
        backend, question = _DEPRECATED_FLAGS[name]
        warnings.warn(f"'{name}' is deprecated, please use "
                      f"'ember.backends.{backend}.{question}()'", UserWarning, stacklevel=2)
        module = importlib.import_module(f"ember.backends.{backend}")
        return getattr(module, question)()
    raise AttributeError(f"module 'ember' has no attribute '{name}'")
