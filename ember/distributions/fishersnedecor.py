"""FisherSnedecor(df1, df2): the F distribution, a ratio of two scaled chi-squares.

Draws are G1 / G2 with G_i ~ Gamma(df_i / 2, rate df_i) (that is, chi2(df_i) / df_i),
made by the Gamma sampler on the shared stream, so they are PyTorch's after manual_seed.
"""
import math

from .._dtype import finfo
from .._size import Size
from .constraints import positive
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F(df1, df2) on the positive reals; moments exist only for df2 > 2 (mean), > 4 (variance)."""

    arg_constraints = {"df1": positive, "df2": positive}
    support = positive
    has_rsample = True

    _expanded = ("df1", "df2", "_numerator", "_denominator")

    def __init__(self, df1, df2, validate_args=None):
        numbers = all(isinstance(v, (int, float)) for v in (df1, df2))
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._numerator = Gamma(self.df1 * 0.5, self.df1)
        self._denominator = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(Size() if numbers else self.df1.size(), validate_args=validate_args)

    @property
    def mean(self):
        df2 = self.df2.clone()
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2.clone()
        df2[df2 <= 4] = math.nan
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        top = self._numerator.rsample(sample_shape).view(shape)
        bottom = self._denominator.rsample(sample_shape).view(shape)
        tiny = finfo(bottom.dtype).tiny
        bottom.clamp_(min=tiny)  # no division by an underflowed zero
        ratio = top / bottom
        ratio.clamp_(min=tiny)
        return ratio

    def log_prob(self, value):
        self._check(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        log_beta = half1.lgamma() + half2.lgamma() - (half1 + half2).lgamma()
        return (half1 * ratio.log() + (half1 - 1) * value.log() - log_beta
                - (half1 + half2) * (ratio * value).log1p())
