"""ember._C: the private bindings PyTorch code reaches through `torch._C` (today only
`_C._nn.pad_sequence`, which nn.utils.rnn.pad_sequence calls after turning its argument into
a tuple). The functions are ember's ops themselves; this module only gives them the path."""
import types

from .ops.packing import pad_sequence

_nn = types.ModuleType("ember._C._nn", "Bindings of ember's nn ops under PyTorch's path.")
_nn.pad_sequence = pad_sequence
