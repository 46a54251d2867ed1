"""`TorchVersion`: a version string that also compares as a version.

Scripts compare `torch.__version__` against strings ("1.10"), tuples ((1, 10)) or
parsed versions; as a plain string "1.9" > "1.10" would be wrong. A `TorchVersion` is
a `str` whose comparisons parse both sides by PEP 440's ordering (release, pre-,
post-, dev-release, local label), and fall back to string order when the other side
is not a version at all ("parrot").
"""
import re

__all__ = ["TorchVersion"]

_PATTERN = re.compile(
    r"v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>\d+)?)?"
    r"(?:-(?P<post_implicit>\d+)|[-_.]?(?P<post>post|rev|r)[-_.]?(?P<post_n>\d+)?)?"
    r"(?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d+)?)?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?", re.IGNORECASE)
# pre-release kinds in order; a dev-only release sorts below them, a final one above
_PRE_RANKS = {"alpha": 0, "a": 0, "beta": 1, "b": 1, "c": 2, "pre": 2, "preview": 2, "rc": 2}
_DEV_ONLY, _FINAL = -1, 3


class _NotAVersion(ValueError):
    pass


def _key(text):
    """A tuple ordering versions as PEP 440 does."""
    match = _PATTERN.fullmatch(text.strip())
    if match is None:
        raise _NotAVersion(text)
    release = [int(part) for part in match["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    has_post = match["post_implicit"] is not None or match["post"] is not None
    has_dev = match["dev"] is not None
    if match["pre"] is not None:
        pre = (_PRE_RANKS[match["pre"].lower()], int(match["pre_n"] or 0))
    else:
        pre = (_DEV_ONLY if has_dev and not has_post else _FINAL, 0)
    post = int(match["post_implicit"] or match["post_n"] or 0) if has_post else -1
    dev = (0, int(match["dev_n"] or 0)) if has_dev else (1, 0)
    # a local label sorts above none; its numeric parts above its words
    local = () if match["local"] is None else tuple(
        (1, int(part), "") if part.isdigit() else (0, 0, part.lower())
        for part in re.split(r"[-_.]", match["local"]))
    return (int(match["epoch"] or 0), tuple(release), pre, post, dev, local)


def _other_key(value):
    if isinstance(value, str):
        return _key(value)
    try:
        parts = iter(value)
    except TypeError:
        raise _NotAVersion(value) from None
    return _key(".".join(str(part) for part in parts))


class TorchVersion(str):
    """A `str` that compares as a version against strings and tuples."""
    __slots__ = ()

    def _compare(self, other, method):
        try:
            mine, theirs = _key(self), _other_key(other)
        except _NotAVersion:
            if not isinstance(other, str):
                return NotImplemented
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__
