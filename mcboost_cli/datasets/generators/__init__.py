"""Exact dataset generators and in-distribution samplers (issue #4).

Every generator returns a :class:`GeneratedData` (the layout of
:class:`mcboost_cli.datasets.Dataset` without name/provenance); :data:`GENERATORS` maps a name to
the function. Seeded generators take ``seed`` and draw from ``numpy.random.Generator(PCG64(seed))``;
the same arguments always give the same arrays.

* ``krkopt`` -- KRK endgame by retrograde analysis, 28,056 rows: EXACT (file row order too).
* ``tic_tac_toe`` -- all 958 final tic-tac-toe boards: EXACT (file row order too).
* ``balance_scale`` -- enumeration of the balance experiment, 625 rows: EXACT (row order too).
* ``poker_hands`` -- random hands with the exact labeller, optional exact class counts: labels
  exact, hands in distribution.
* ``poker_test_standin`` -- 1,000,000 hands with the UCI test file's class counts: in
  distribution (the test file is download-only).
* ``poker525k`` -- the papers' pool: training file + seeded half of the test file; exact parts
  wherever the real rows are passed in.
* ``waveform`` -- Breiman's three-wave data, 21 attributes: in distribution.
* ``long_servedio`` -- Long & Servedio's Boolean data with label noise: in distribution
  (definition confirmed for l = 5).
* ``mcboost_gaussians`` -- the MCBoost paper's three 2-D Gaussian classes: in distribution; its
  Bayes rule in closed form is in :data:`BAYES_RULES`.

See each module's docstring for the definition, sources and coding of features and classes.
"""

from __future__ import annotations

from collections.abc import Callable

from ._base import GeneratedData, rng_for
from .balance_scale import balance_scale
from .krk import krkopt
from .long_servedio import long_servedio
from .mcboost_gaussians import bayes_predict as _gaussians_bayes_predict
from .mcboost_gaussians import mcboost_gaussians
from .poker import poker525k, poker_hands, poker_label, poker_test_standin
from .tic_tac_toe import tic_tac_toe
from .waveform import waveform

__all__ = [
    "BAYES_RULES", "GENERATORS", "GeneratedData", "balance_scale", "krkopt", "long_servedio",
    "mcboost_gaussians", "poker525k", "poker_hands", "poker_label", "poker_test_standin",
    "rng_for", "tic_tac_toe", "waveform",
]

GENERATORS: dict[str, Callable[..., GeneratedData]] = {
    "balance_scale": balance_scale,
    "krkopt": krkopt,
    "long_servedio": long_servedio,
    "mcboost_gaussians": mcboost_gaussians,
    "poker525k": poker525k,
    "poker_hands": poker_hands,
    "poker_test_standin": poker_test_standin,
    "tic_tac_toe": tic_tac_toe,
    "waveform": waveform,
}

# Generators whose distribution has a known Bayes rule: name -> function mapping points
# (n_points, n_features) to the class codes of the largest posterior. Figures draw its
# decision boundary and its error on the stored test points (report.figures).
BAYES_RULES: dict[str, Callable] = {
    "mcboost_gaussians": _gaussians_bayes_predict,
}
