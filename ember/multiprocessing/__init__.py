"""`ember.multiprocessing`: Python's multiprocessing, plus PyTorch's spawn helpers and
sharing-strategy switches.

ember tensors pickle by value (a module-level rebuild function), so a tensor put on a
Queue or passed to a Process arrives in the other process with equal values; tensors
moved to shared memory with `share_memory_()` before a fork stay shared. The sharing
strategy is recorded for scripts that set or read it; with pickling by value it changes
nothing about how tensors travel.
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def set_sharing_strategy(new_strategy):
    """Record the strategy for sharing CPU tensors ("file_descriptor" or "file_system")."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy '{new_strategy}', expected one of "
                             f"{_STRATEGIES}")
    _strategy[0] = new_strategy


def get_sharing_strategy():
    return _strategy[0]


def get_all_sharing_strategies():
    return set(_STRATEGIES)
