"""ember.profiler: torch.profiler's interface over ember's op timer (autograd.profiler).

`profile` adds what torch.profiler adds to the autograd profiler: activities (only the
CPU is timed), a `schedule` of steps (wait, warmup, active, repeat) driven by
`prof.step()`, each recorded step spanned as ProfilerStep#N, and `on_trace_ready`
called as each active span ends.
"""
import enum
import os
import socket
import time

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import record_function

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "record_function"]


# What a profile may time (ember times CPU ops only), numbered as PyTorch numbers them.
ProfilerActivity = enum.Enum("ProfilerActivity", [
    (name, number) for number, name in enumerate(("CPU", "XPU", "CUDA", "HPU", "MTIA",
                                                  "PrivateUse1"))])
# What the profiler does at a step, as a `schedule` says.
ProfilerAction = enum.Enum("ProfilerAction", [
    (name, number) for number, name in enumerate(("NONE", "WARMUP", "RECORD",
                                                  "RECORD_AND_SAVE", "DEVICE_STOPPED"))])
ProfilerActivity.__module__ = ProfilerAction.__module__ = __name__


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


def supported_activities():
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """step -> ProfilerAction: skip `skip_first` steps, then cycles of wait, warmup and
    active steps (the last active one saves), `repeat` times (0: without end)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    cycle = wait + warmup + active

    def action(step):
        counted = step - skip_first
        if counted < 0 or repeat > 0 and counted // cycle >= repeat:
            return ProfilerAction.NONE
        position = counted % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each trace as JSON into `dir_name`."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(
            dir_name, f"{worker}.{time.time_ns()}.pt.trace.json"))
    return handler


class profile:
    """`with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:`."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.current_action = ProfilerAction.RECORD
        self.profiler = None
        self._recording = None
        self._step_span = None

    def __enter__(self):
        self.start()
        return self  # the profile itself: `as prof`

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.step_num = 0
        self.current_action = self.schedule(0) if self.schedule else ProfilerAction.RECORD
        self._enter(self.current_action)

    def stop(self):
        self._close_step()
        if self._recording is not None:
            self._finish()

    def step(self):
        """Mark the end of a training step; the schedule decides what the next one does."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num) if self.schedule else previous
        if previous is ProfilerAction.RECORD_AND_SAVE and self._recording is not None:
            self._finish()
        self._enter(self.current_action)

    def _enter(self, action):
        if action in _RECORDING and self._recording is None:
            self._recording = _autograd_profiler.profile(record_shapes=self.record_shapes)
            self._recording.__enter__()
        if self._recording is not None and self.schedule is not None:
            self._step_span = record_function(f"ProfilerStep#{self.step_num}")
            self._step_span.__enter__()

    def _close_step(self):
        if self._step_span is not None:
            self._step_span.__exit__(None, None, None)
            self._step_span = None

    def _finish(self):
        self._recording.__exit__(None, None, None)
        self.profiler, self._recording = self._recording, None
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n)

    def events(self):
        return self.profiler.function_events

    def export_chrome_trace(self, path):
        return self.profiler.export_chrome_trace(path)
