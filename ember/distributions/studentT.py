"""StudentT(df, loc, scale): a normal whose precision is Gamma-distributed."""
import math

from .._size import Size
from .constraints import positive, real
from .distribution import Distribution
from .gamma import Chi2
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """loc + scale * X / sqrt(Z / df), X ~ N(0, 1), Z ~ Chi2(df) (X drawn first)."""

    arg_constraints = {"df": positive, "loc": real, "scale": positive}
    support = real
    has_rsample = True

    _expanded = ("df", "loc", "scale", "_chi2")

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    @property
    def mean(self):
        mean = self.loc.clone()
        mean[self.df <= 1] = math.nan
        return mean

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        df = self.df
        variance = df.clone()
        finite = df > 2
        variance[finite] = self.scale[finite].pow(2) * df[finite] / (df[finite] - 2)
        variance[(df <= 2) & (df > 1)] = math.inf
        variance[df <= 1] = math.nan
        return variance

    def rsample(self, sample_shape=Size()):
        x = _standard_normal(self._extended_shape(sample_shape), self.df.dtype, self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * (z / self.df).rsqrt())

    def log_prob(self, value):
        self._check(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_normaliser = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                          + (0.5 * df).lgamma() - (0.5 * (df + 1.0)).lgamma())
        return -0.5 * (df + 1.0) * (y ** 2 / df).log1p() - log_normaliser

    def entropy(self):
        df = self.df
        log_beta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (self.scale.log()
                + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
                + 0.5 * df.log() + log_beta)
