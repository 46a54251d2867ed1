"""Whole character-level training scripts that touch torch.cuda, torch.backends and
nn.utils at start-up print the same under ember and under PyTorch's CPU build."""
import contextlib
import io
import pathlib
import sys
import warnings

import pytest

import ember

SCRIPTS = pathlib.Path(__file__).parent / "scripts"
MODULES = ("", ".nn", ".nn.functional", ".nn.init", ".nn.utils", ".optim", ".utils",
           ".utils.data", ".utils.data.dataloader")


def run_script(lib, name):
    """Run tests/scripts/<name> as __main__ with `import torch` (and the submodules it
    names) bound to `lib`; its stdout, captured. tests/test_programs.py runs its too."""
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
        lib.set_num_threads(1)   # tiny ops: PyTorch's thread pool only spins on a busy machine
        sys.modules.update(modules)
        with contextlib.redirect_stdout(output), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            exec(compile(script.read_text(), str(script), "exec"),
                 {"__name__": "__main__", "__file__": str(script), "torch": lib})
    finally:
        for n, module in saved.items():  # names that were absent are removed again
            if module is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = module
        lib.set_num_threads(threads)
    return output.getvalue()


@pytest.mark.parametrize("name", ["char_bigram.py", "char_mlp.py"])
def test_script_prints_what_torch_prints(torch, name):
    expected = run_script(torch, name).replace("torch.", "ember.")
    got = run_script(ember, name)
    assert got.splitlines() == expected.splitlines()
