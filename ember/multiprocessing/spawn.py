"""`spawn` / `start_processes`: run `fn(i, *args)` in `nprocs` processes and join them.

A child that raises sends its formatted traceback to the parent through a pipe and exits
with code 1; `ProcessContext.join` then terminates the others and raises
ProcessRaisedException with that traceback (or ProcessExitedException for a child that
died with another exit code or a signal), with PyTorch's texts.
"""
import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessRaisedException",
           "ProcessExitedException", "SpawnContext", "spawn", "start_processes"]


class ProcessException(Exception):
    """A child process failed; `error_index` is its rank, `error_pid` its process id."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The child raised a Python exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """The child exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                            self.signal_name)


def _run_child(fn, index, args, report):
    """The child's entry point: call fn, and on an exception send the traceback home."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001 - every failure is reported to the parent
        report.send(traceback.format_exc())
        report.close()
        sys.exit(1)


class ProcessContext:
    """The started processes; `join` waits for them and reports the first failure."""

    def __init__(self, processes, error_pipes):
        self.processes = processes
        self.error_pipes = error_pipes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(child.pid) for child in self.processes]

    def join(self, timeout=None, grace_period=None):
        """True once every process has finished; False if some still run after `timeout`."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            rank = self.sentinels.pop(sentinel)
            self.processes[rank].join()
            if self.processes[rank].exitcode != 0 and failed is None:
                failed = rank
        if failed is None:
            return not self.sentinels
        for child in self.processes:
            if child.is_alive():
                child.terminate()
            child.join()
        self._raise_for(failed)

    def _raise_for(self, index):
        child = self.processes[index]
        code = child.exitcode
        pipe = self.error_pipes[index]
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            raise ProcessExitedException(f"process {index:d} terminated with signal {name}",
                                         index, child.pid, code, name)
        try:
            trace = pipe.recv() if pipe.poll() else None
        except EOFError:   # the child closed its end without sending a traceback
            trace = None
        if trace is None:
            raise ProcessExitedException(
                f"process {index:d} terminated with exit code {code:d}", index, child.pid,
                code)
        message = f"\n\n-- Process {index:d} terminated with the following error:\n"
        raise ProcessRaisedException(message + trace, index, child.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_pipes):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_pipes)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes running `fn(i, *args)`; join them (or return the context)."""
    context = multiprocessing.get_context(start_method)
    processes, pipes = [], []
    for index in range(nprocs):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_run_child, args=(fn, index, args, send),
                                  daemon=daemon)
        process.start()
        send.close()
        processes.append(process)
        pipes.append(receive)
    process_context = ProcessContext(processes, pipes)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """`start_processes` with the spawn start method (others warn, as in PyTorch)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " ember.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
