"""Declared hyper-parameters: type, valid range, default and help text.

Every algorithm lists its ``ParamSpec`` s; configs are checked against them before any work
starts (errors name the key path, the bad value and the valid choices), and
``mcboost algorithms`` prints them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UserError, quote


@dataclass(frozen=True)
class ParamSpec:
    """One hyper-parameter.

    ``kind`` is "int", "float", "bool", "choice" or "text"; ``low``/``high`` are inclusive
    bounds (``low_open``/``high_open`` make them exclusive); ``choices`` for "choice". A
    "text" parameter is a string in a small language of its own (the MLP's hidden layers,
    "2d,4K"): ``parse`` reads it, raising ValueError with what is wrong, and ``syntax`` says
    what is valid (both printed by the one-line error); the value kept is the string. ``also``
    lists values of an "int" or "float" parameter accepted outside the range: a value that
    switches a feature off, as AdaBoost.MH's ``max_leaves`` 0 (depth-wise trees) beside its
    range [2, 1024] (1 leaf is no tree).

    ``default_in_key`` False marks a parameter added to an algorithm after fits of it were
    stored, whose default is the behaviour those fits had: a cell at the default leaves the
    parameter out of its params, hence out of its key (``runner.plan.full_params``), so the
    stored fits keep their keys without a version bump; any other value is in the key.
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    also: tuple = ()
    default_in_key: bool = True
    parse: Callable[[str], Any] | None = None
    syntax: str = ""

    def describe_range(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(map(str, self.choices))
        if self.kind == "text":
            return self.syntax
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        lb = "(" if self.low_open or self.low is None else "["
        hb = ")" if self.high_open or self.high is None else "]"
        what = "an integer" if self.kind == "int" else "a number"
        extra = ""
        if self.also:
            extra = (" or " + ("" if len(self.also) == 1 else "one of ")
                     + ", ".join(f"{v:g}" for v in self.also))
        return f"{what} in {lb}{lo}, {hi}{hb}{extra}"

    def validate(self, value, where: str):
        """Return the value converted to its kind, or raise UserError naming ``where``."""
        bad = UserError(f"{where}: {quote(value)} is not valid; expected {self.describe_range()}")
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.kind == "choice":
            if value not in self.choices:
                raise bad
            return value
        if self.kind == "text":
            if not isinstance(value, str):
                raise bad
            try:
                self.parse(value)
            except ValueError as e:
                raise UserError(f"{where}: {quote(value)} is not valid: {e}; expected "
                                f"{self.syntax}") from None
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if self.kind == "int":
            if isinstance(value, float) and not value.is_integer():
                raise bad
            value = int(value)
        else:
            value = float(value)
            if not math.isfinite(value):
                raise bad
        if value in self.also:
            return value
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            raise bad
        if self.high is not None and (value > self.high
                                      or (self.high_open and value == self.high)):
            raise bad
        return value


# Parameters shared by the tree-based boosters.
N_ROUNDS = ParamSpec("n_rounds", "int", 100, "maximum number of boosting rounds", low=1,
                     high=1_000_000)
MAX_DEPTH = ParamSpec("max_depth", "int", 3, "depth of each tree (1 = stump)", low=1, high=30)
MAX_BINS = ParamSpec("max_bins", "int", 255, "at most this many bins per feature", low=2,
                     high=255)

# The label trees' split criterion of AdaBoost.M1 and SAMME (``algorithms.adaboost``). Added
# after their fits were stored: the default (Gini, the only criterion before) is not keyed.
SPLIT_CRITERION = ParamSpec(
    "split_criterion", "choice", "gini",
    "split rule of the label trees: gini (weighted Gini impurity, CART) or error (least "
    "weighted misclassification of majority-labelled children; a split that does not lower "
    "it is not made)", choices=("gini", "error"), default_in_key=False)

# The DirectBoost paper's stopping rule for its convex baselines (binary AdaBoost and
# LogitBoost, ``algorithms.adaboost.AdaBoost``, ``algorithms.logitboost``): "run the
# algorithms until convergence where the stopping criterion is that the change of loss is less
# than 1e-6" (Zhai et al., NIPS 2013, sec. 3.1), read as the absolute change of the mean
# training loss (ALGORITHMS.md, "Binary AdaBoost and LogitBoost"). 0 switches it off; its
# default is left out of cell keys (``runner.plan.full_params``).
LOSS_TOLERANCE = ParamSpec(
    "loss_tolerance", "float", 0.0,
    "stop after the round whose mean training loss changed by less than this (absolute "
    "change; the DirectBoost paper's 1e-6); 0 = off, run n_rounds",
    low=0.0, default_in_key=False)
# Which training loss ``loss_tolerance`` applies to: the mean over the n training rows or
# their sum (= the mean's change times n). The DirectBoost paper's configs use ``sum``: under
# ``mean`` AdaBoost on Adult-10k stops at round 8750 with the loss still 50 times above where
# it levels off, under ``sum`` at 89279, converged (ALGORITHMS.md, "Binary AdaBoost and
# LogitBoost"). Default ``mean``, left out of cell keys.
LOSS_TOLERANCE_OF = ParamSpec(
    "loss_tolerance_of", "choice", "mean",
    "the training loss loss_tolerance is compared with: mean (over the rows) or sum",
    choices=("mean", "sum"), default_in_key=False)
