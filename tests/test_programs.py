"""Whole programs as learners write them -- a minGPT-style trainer -- run under ember and
under PyTorch and print the same, numbers within float32 rounding."""
import contextlib
import io
import pathlib
import sys
import warnings

import pytest

import ember
from test_tutorial import assert_prints_alike

SCRIPTS = pathlib.Path(__file__).parent / "scripts"
MODULES = ("", ".nn", ".nn.functional", ".nn.init", ".nn.utils", ".optim", ".utils",
           ".utils.data", ".utils.data.dataloader")


def run_program(lib, name):
    """Run tests/scripts/<name> with `import torch` (and the submodules it names) bound to
    `lib`, its stdout captured. One thread: the ops are tiny."""
    script = SCRIPTS / name
    names = ["torch" + suffix for suffix in MODULES]
    saved = {n: sys.modules.get(n) for n in names}
    modules = {}
    for suffix in MODULES:
        module = lib
        for part in suffix.split(".")[1:]:
            module = getattr(module, part)
        modules["torch" + suffix] = module
    output = io.StringIO()
    threads = lib.get_num_threads()
    try:
        lib.set_num_threads(1)
        sys.modules.update(modules)
        with contextlib.redirect_stdout(output), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            exec(compile(script.read_text(), str(script), "exec"),
                 {"__name__": "__main__", "__file__": str(script)})
    finally:
        for n, module in saved.items():
            if module is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = module
        lib.set_num_threads(threads)
    return output.getvalue()


@pytest.mark.parametrize("name", ["mingpt_trainer.py"])
def test_program_prints_what_torch_prints(torch, name):
    expected = run_program(torch, name).replace("torch.", "ember.")
    got = run_program(ember, name)
    assert_prints_alike(got, expected)
