"""The profiler's records: one FunctionEvent per timed call, their averages, the table.

`EventList.table` prints PyTorch's layout (column widths from the longest name and
shape list, times as us/ms/s with three decimals, percentages of the summed self
time); the times themselves are ember's own, measured around its Python ops.
"""

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList"]

_COLUMN = 12


class FunctionEvent:
    """One timed call: its name, when it ran (microseconds), its inputs' shapes, children."""

    def __init__(self, name, start_us, input_shapes=None, parent=None):
        self.name = name
        self.time_range_start = start_us
        self.time_range_end = start_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_parent = parent
        self.cpu_children = []
        self.count = 1
        self.is_user_annotation = False

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range_end - self.time_range_start

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent name={self.name} cpu_time={_format_time(self.cpu_time_total)}"
                f" self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events that share a key (and, when grouped so, input shapes), summed."""

    def __init__(self, key, input_shapes):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time="
                f"{_format_time(self.self_cpu_time_total)} cpu_time="
                f"{_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of events with PyTorch's summaries: key_averages, table, total time."""

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One FunctionEventAvg per name (and input shapes), in order of first appearance."""
        averages = {}
        for event in self:
            shapes = str(event.input_shapes) if group_by_input_shape else None
            key = (_averaged_name(event.key), shapes)
            if key not in averages:
                averages[key] = FunctionEventAvg(key[0], event.input_shapes
                                                 if group_by_input_shape else None)
            averages[key].add(event)
        return EventList(averages.values())

    def total_average(self):
        total = FunctionEventAvg("Total", None)
        for event in self:
            total.add(event)
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's text table, sorted descending by `sort_by`."""
        return _build_table(self, sort_by, row_limit, max_name_column_width,
                            max_shapes_column_width, header, top_level_events_only)

    def __str__(self):
        return self.table()


def _averaged_name(name):
    # each step's annotation is ProfilerStep#N; averaged they are one row
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us, total_us):
    return "NaN" if total_us == 0 else f"{time_us * 100.0 / total_us:.2f}%"


def _build_table(events, sort_by, row_limit, max_name_width, max_shapes_width, header,
                 top_level_only):
    if not events:
        return ""
    rows = list(events)
    if sort_by is not None:
        attribute = sort_by.replace("cuda", "device")
        rows.sort(key=lambda e: getattr(e, attribute), reverse=True)
    if top_level_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    name_width = min(max(len(e.key) for e in events) + 4, max_name_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"]
    widths = [name_width] + [_COLUMN] * 6
    shapes = any(e.input_shapes for e in events)
    if shapes:
        headers.append("Input Shapes")
        widths.append(min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_width))
    line = "".join("-" * w + "  " for w in widths)
    total = sum(e.self_cpu_time_total for e in events)
    out = [line] if header is None else ["=" * len(line), header, line]
    out += ["".join(h.rjust(w) + "  " for h, w in zip(headers, widths)), line]
    for event in rows[:row_limit] if row_limit is not None and row_limit > 0 else rows:
        name = event.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        cells = [name, _format_share(event.self_cpu_time_total, total),
                 _format_time(event.self_cpu_time_total),
                 _format_share(event.cpu_time_total, total), _format_time(event.cpu_time_total),
                 _format_time(event.cpu_time), str(event.count)]
        if shapes:
            cells.append(str(event.input_shapes)[:widths[-1]])
        out.append("".join(c.rjust(w) + "  " for c, w in zip(cells, widths)))
    out.append(line)
    out.append(f"Self CPU time total: {_format_time(total)}")
    return "\n".join(out) + "\n"
