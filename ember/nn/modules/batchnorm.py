"""Batch and instance normalisation layers (PyTorch's batchnorm.py and instancenorm.py).

`_NormBase` holds what they share: the optional affine parameters (weight = 1, bias = 0) and
the running statistics buffers `running_mean`, `running_var` and `num_batches_tracked` (int64),
which appear in the state_dict under PyTorch's keys. In training, BatchNorm normalises with
the batch statistics and updates the running ones (momentum=None: a cumulative average over
`num_batches_tracked` batches); in eval it uses the running statistics.
"""
import warnings

from ... import _dtype
from ...ops import creation
from ...ops import normalization as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


# The running-statistics buffers, in registration (and state_dict) order.
_STAT_NAMES = ("running_mean", "running_var", "num_batches_tracked")


def _fresh_stats(num_features, device, dtype):
    """Running statistics of an untrained layer: mean 0, variance 1, no batches seen."""
    return {"running_mean": creation.zeros(num_features, device=device, dtype=dtype),
            "running_var": creation.ones(num_features, device=device, dtype=dtype),
            "num_batches_tracked": creation.tensor(0, dtype=_dtype.int64, device=device)}


def _register_affine(module, shape, affine, bias, device, dtype):
    """A normalisation layer's `weight` and `bias`: uninitialised Parameters, or None slots."""
    for name, present in (("weight", affine), ("bias", affine and bias)):
        value = Parameter(creation.empty(shape, device=device, dtype=dtype)) if present else None
        module.register_parameter(name, value)


class _NormBase(Module):
    """Parameters, buffers, reset and repr shared by batch and instance norm."""

    _version = 2
    _input_dims = None   # the input ranks a concrete layer accepts

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        vars(self).update(num_features=num_features, eps=eps, momentum=momentum, affine=affine,
                          track_running_stats=track_running_stats)
        _register_affine(self, num_features, affine, bias, device, dtype)
        stats = (_fresh_stats(num_features, device, dtype) if track_running_stats
                 else dict.fromkeys(_STAT_NAMES))
        for name, value in stats.items():
            self.register_buffer(name, value)
        self.reset_parameters()

    def reset_running_stats(self):
        if not self.track_running_stats:
            return
        for name, value in zip(_STAT_NAMES, (0, 1, 0)):
            getattr(self, name).fill_(value)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init._affine_default_(self.weight, self.bias)

    def _check_input_dim(self, input):
        if self._input_dims is None:
            raise NotImplementedError
        rank = input.dim()
        if rank not in self._input_dims:
            expected = " or ".join(f"{d}D" for d in self._input_dims)
            raise ValueError(f"expected {expected} input (got {rank}D input)")

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # Checkpoints older than version 2 have no num_batches_tracked: it starts at 0.
        saved_version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        predates_counter = saved_version is None or saved_version < 2
        if predates_counter and self.track_running_stats and key not in state_dict:
            counter = self.num_batches_tracked
            state_dict[key] = (creation.tensor(0, dtype=_dtype.int64) if counter is None
                               else counter)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:   # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        # Untracked statistics are never updated, even when buffers exist.
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                            self.running_var if track else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features, the parameters and the running statistics come from the first input."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        factory = {"device": device, "dtype": dtype}
        # Built without parameters or buffers: they are placeholders until the first input.
        super().__init__(0, eps, momentum, False, False, **factory, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        slots = (("weight", affine, UninitializedParameter),
                 ("bias", affine and bias, UninitializedParameter),
                 ("running_mean", track_running_stats, UninitializedBuffer),
                 ("running_var", track_running_stats, UninitializedBuffer))
        for name, present, placeholder in slots:
            if present:
                setattr(self, name, placeholder(**factory))
        if track_running_stats:
            self.num_batches_tracked = creation.tensor(0, dtype=_dtype.int64, device=device)

    def reset_parameters(self):
        if self.num_features != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        # Every placeholder is a per-channel vector; None slots (no affine, no stats) stay.
        for name in ("weight", "bias", "running_mean", "running_var"):
            slot = getattr(self, name)
            if is_lazy(slot):
                slot.materialize((self.num_features,))
        self.reset_parameters()


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) inputs."""
    _input_dims = (2, 3)


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    cls_to_become = BatchNorm1d
    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs."""
    _input_dims = (4,)


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    cls_to_become = BatchNorm2d
    _input_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) inputs."""
    _input_dims = (5,)


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    cls_to_become = BatchNorm3d
    _input_dims = (5,)


# ---------------------------------------------------------------- instance norm
class _InstanceNorm(_NormBase):
    """Per-sample, per-channel normalisation; no affine and no running stats by default."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    _no_batch_dim = 2
    _input_dims = (2, 3)


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2
    _input_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _no_batch_dim = 3
    _input_dims = (3, 4)


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3
    _input_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    _no_batch_dim = 4
    _input_dims = (4, 5)


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
    _input_dims = (4, 5)
