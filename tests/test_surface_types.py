"""The legacy tensor types (ember.FloatTensor, ...), Tensor.type and ember.typename."""
import pytest

from test_surface_oracle import assert_same_outcome

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
         "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]

CONSTRUCTIONS = ["(2, 3).shape", "([1, 0, 2])", "([[1, 2]])", "()", "(lib.Size([2])).shape",
                 "((1, 2))", "(2, device='cpu').shape", "(2, device='cuda')", "('a')", "(2.5)",
                 "(-1)", "(2, dtype=lib.float64)", "([1], [2])", "(lib.tensor([1, 2]))",
                 "(lib.tensor([1.0, 2.0]))"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("args", CONSTRUCTIONS)
def test_legacy_constructor_matches_torch(torch, name, args):
    assert_same_outcome(torch, lambda lib: eval(f"lib.{name}{args}"))


CHECKS = [
    "isinstance(lib.zeros(1), lib.FloatTensor)", "isinstance(lib.zeros(1), lib.DoubleTensor)",
    "isinstance(lib.zeros(1, dtype=lib.long), lib.LongTensor)",
    "isinstance(lib.nn.Parameter(lib.zeros(1)), lib.FloatTensor)",
    "isinstance(lib.zeros(1), lib.cuda.FloatTensor)", "isinstance(3, lib.FloatTensor)",
    "issubclass(lib.FloatTensor, lib.Tensor)", "lib.FloatTensor", "lib.cuda.LongTensor",
    "lib.LongTensor.dtype", "lib.FloatTensor.is_cuda", "lib.cuda.FloatTensor.is_cuda",
    "lib.FloatTensor.__name__", "lib.cuda.FloatTensor([1])",
    "lib.zeros(1).type()", "lib.zeros(1, dtype=lib.int8).type()",
    "lib.zeros(1).type('torch.DoubleTensor')", "lib.zeros(1).type(lib.DoubleTensor)",
    "lib.zeros(1).type(lib.float64)", "lib.zeros(1).type(lib.LongTensor)",
    "lib.zeros(1).type('foo')", "lib.tensor([1.5]).type(lib.IntTensor)",
    "lib.typename(lib.zeros(1))", "lib.typename([1])", "lib.typename(lib.nn.Linear)",
    "lib.typename(lib.LongTensor([1]))", "lib.typename(3)",
]


@pytest.mark.parametrize("check", CHECKS)
def test_type_checks_and_names_match_torch(torch, check):
    assert_same_outcome(torch, lambda lib: eval(check.replace("'torch.", "'" + lib.__name__
                                                              + ".")))
