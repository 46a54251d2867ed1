"""The autograd profiler: time ember's ops while a `profile` is open.

Ops are timed by wrapping them only while profiling is on: entering `profile` puts a
timing wrapper in place of every public function of the ember.ops modules (where
Tensor methods and internal calls find them) and of the namespaces users call
(ember, ember.nn.functional, ember.linalg, ember.special); leaving it puts the
originals back. With no profile open nothing is wrapped, so an op costs exactly what
it did. A call is recorded as 'aten::<name>', with its Tensor arguments' shapes when
record_shapes is on (PyTorch lists every argument of the aten schema; ember lists the
arguments given). Calls made inside a timed call are its children, so self time
excludes them, as in PyTorch.
"""
import json
import sys
import time
from types import FunctionType as _FunctionType

from .._tensor import Tensor
from .profiler_util import EventList, FunctionEvent, FunctionEventAvg  # noqa: F401

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]

_active = [None]   # the _Recorder of the open profile, or None
_NAMESPACES = ("ember", "ember.nn.functional", "ember.linalg", "ember.special")


def _now_us():
    return time.perf_counter_ns() / 1000.0


class _Recorder:
    """The events of one profile, and the stack of calls now running."""

    def __init__(self, record_shapes):
        self.record_shapes = record_shapes
        self.events = []
        self.stack = []

    def open(self, name, args=(), kwargs=None):
        parent = self.stack[-1] if self.stack else None
        shapes = None
        if self.record_shapes:
            given = list(args) + (list(kwargs.values()) if kwargs else [])
            shapes = [list(a.shape) if isinstance(a, Tensor) else [] for a in given]
        event = FunctionEvent(name, _now_us(), shapes, parent)
        if parent is not None:
            parent.cpu_children.append(event)
        self.stack.append(event)
        self.events.append(event)
        return event

    def close(self, event):
        event.time_range_end = _now_us()
        if self.stack and self.stack[-1] is event:
            self.stack.pop()


def _timed(name, function):
    def timed(*args, **kwargs):
        recorder = _active[0]
        if recorder is None:  # a reference kept from inside a profile, called after it
            return function(*args, **kwargs)
        event = recorder.open(name, args, kwargs)
        try:
            return function(*args, **kwargs)
        finally:
            recorder.close(event)
    timed.__name__, timed.__qualname__ = function.__name__, function.__qualname__
    timed.__doc__, timed.__wrapped__ = function.__doc__, function
    timed.__module__ = function.__module__
    return timed


def _install():
    """Put timing wrappers in place; returns the (dict, name, original) list that undoes it."""
    undo, wrappers = [], {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith("ember.ops.") or \
                module_name.rpartition(".")[2].startswith("_"):
            continue
        table = module.__dict__
        for name in table.get("__all__", ()):
            function = table.get(name)
            if type(function) is not _FunctionType or \
                    not function.__module__.startswith("ember.ops."):
                continue
            wrapper = wrappers.get(function)
            if wrapper is None:
                wrapper = wrappers[function] = _timed("aten::" + name, function)
            undo.append((table, name, function))
            table[name] = wrapper
    for module_name in _NAMESPACES:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        table = module.__dict__
        for name, value in list(table.items()):
            if type(value) is not _FunctionType or name.startswith("_"):
                continue
            target = getattr(value, "__wrapped__", value)   # an argument door's op
            if target in wrappers:
                undo.append((table, name, value))
                table[name] = _timed("aten::" + name, value)
    return undo


def _uninstall(undo):
    for table, name, original in reversed(undo):
        table[name] = original


class profile:
    """Context that records ember's op calls: `with profile() as prof: ...`, then
    `prof.key_averages().table(sort_by="self_cpu_time_total")`."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events = None
        self._recorder = None
        self._undo = None

    def __enter__(self):
        if not self.enabled:
            return self
        if _active[0] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self._recorder = _Recorder(self.record_shapes)
        self._undo = _install()
        _active[0] = self._recorder
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return
        _active[0] = None
        _uninstall(self._undo)
        self._undo = None
        self.function_events = EventList(self._recorder.events)

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        self._check_finished()
        return self.function_events.table(sort_by, row_limit, max_src_column_width,
                                          max_name_column_width, max_shapes_column_width,
                                          header, top_level_events_only)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        """Write the events in the Chrome trace format (chrome://tracing, Perfetto)."""
        self._check_finished()
        trace = [{"ph": "X", "cat": "cpu_op", "name": e.name, "pid": 0, "tid": 0,
                  "ts": e.time_range_start, "dur": e.cpu_time_total,
                  "args": {"Input Dims": e.input_shapes}} for e in self.function_events]
        with open(path, "w") as handle:
            json.dump({"traceEvents": trace}, handle)

    def __str__(self):
        self._check_finished()
        return self.table()


class record_function:
    """A named span in the profile (context manager or decorator); free when not profiling."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._event = None

    def __enter__(self):
        recorder = _active[0]
        if recorder is not None:
            self._event = recorder.open(self.name)
            self._event.is_user_annotation = True
        return self

    def __exit__(self, *exc):
        recorder = _active[0]
        if recorder is not None and self._event is not None:
            recorder.close(self._event)
        self._event = None

    def __call__(self, function):
        def spanned(*args, **kwargs):
            with record_function(self.name, self.args):
                return function(*args, **kwargs)
        spanned.__name__, spanned.__doc__ = function.__name__, function.__doc__
        spanned.__wrapped__ = function
        return spanned
