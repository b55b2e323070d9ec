"""The coherence function and the per-round quantities of GentleBoost.C.

Zhang, Jordan, Li & Yeung, "Coherence Functions for Multicategory Margin-based Classification
Methods", AISTATS 2009. Equation numbers below are the paper's. A margin vector g(x) has one
entry per class and sums to zero (the set G of sec. 2.1); the classifier is argmax_j g_j(x).
Arrays hold one row per example: ``margins`` of shape (n, m), ``labels`` of shape (n,) with
class indices 0..m-1 (the paper's c in 1..m).

Map of the module
-----------------
Losses of a margin vector (multicategory, one value per example):

``coherence_loss``           C(g, c) = T log[1 + sum_{j!=c} exp((1 + g_j - g_c)/T)], eq. (6)
``multiclass_hinge_loss``    H(g, c) = max_j {g_j + 1 - I[j=c]} - g_c (Crammer-Singer), eq. (3)
``multinomial_logit_loss``   L(g, c) = log sum_j exp(g_j - g_c), eq. (2)
``coherence_lower_bound``    S(g, c) = (1/m) sum_{j!=c} (1 + g_j - g_c), Theorem 2

Losses of a binary margin z = y f(x) (the curves of Figures 1-2):

``binary_coherence_loss``    C(z) = T log[1 + exp((1 - z)/T)], eq. (7)
``hinge_loss``, ``logit_loss`` (scaled by 1/log 2 as in Figure 1's caption),
``exponential_loss``, ``zero_one_loss``; ``BINARY_LOSSES`` names them for the figure.

GentleBoost.C (Algorithm 1), one function per step, for the booster to call each round:

``class_weights``            beta_j(x_i), eq. (5) = step 2(c)
``working_responses``        z_ij and w_ij of step 2(a)(i)
``update_margins``           steps 2(a)(iii) and 2(b): add the round's fits, keep sum-to-zero
``multinomial_working_responses``  the same step of K-class LogitBoost (Friedman et al. 2000,
                             Alg. 6), whose probabilities are the softmax of g: beta without
                             the "1 +" of eq. (5) (the boosters: ``gentleboost_c``,
                             ``mullogitboost``)
``class_probabilities``      P_c(x) recovered from the minimiser of the expected loss, eq. (8)

Every function is vectorised numpy and evaluated in log space (log-sum-exp with the row's
largest exponent taken out), so margins up to |g| = 1e3 at T = 0.01 (exponents of 2e5) give
finite values. ALGORITHMS.md ("Coherence functions (GentleBoost.C)") records how unclear
passages of the paper are read here.
"""

from __future__ import annotations

import numpy as np

from ..errors import UserError

# Friedman, Hastie & Tibshirani (2000, Algorithm 3 and its note) cap LogitBoost's working
# response at z_max in [2, 4]; Algorithm 1 of the coherence paper has the same response and
# no cap (see ALGORITHMS.md). 4 is the default cap here.
DEFAULT_MAX_ABS_RESPONSE = 4.0


# ------------------------------------------------------------------------------------------
# Checks


def _temperature(temperature) -> float:
    t = float(temperature)
    if not np.isfinite(t) or t <= 0.0:
        raise UserError(f"temperature: {temperature!r} is not valid; expected a positive "
                        "finite number (the paper's T > 0)")
    return t


def _margins_and_labels(margins, labels) -> tuple[np.ndarray, np.ndarray]:
    g = np.asarray(margins, dtype=np.float64)
    if g.ndim != 2 or g.shape[1] < 2:
        raise UserError(f"margins: shape {g.shape} is not valid; expected (n examples, m >= 2 "
                        "classes)")
    c = np.asarray(labels)
    if c.shape != (g.shape[0],) or not np.issubdtype(c.dtype, np.integer) \
            or (c.size and (c.min() < 0 or c.max() >= g.shape[1])):
        raise UserError(f"labels: expected {g.shape[0]} integer class indices in "
                        f"[0, {g.shape[1] - 1}], one per row of margins")
    return g, c.astype(np.intp)


def _exponents(g: np.ndarray, c: np.ndarray, t: float) -> np.ndarray:
    """a_ij = (1 + g_j - g_c - I[j=c]) / T: the exponents of eqs. (5)-(6) with g_c/T taken
    out of every one (which changes neither beta nor C), so a_ic = 0."""
    rows = np.arange(g.shape[0])
    a = (1.0 + g - g[rows, c][:, None]) / t
    a[rows, c] = 0.0
    return a


def _logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """log sum_j exp(a_ij) per row, with the row's maximum taken out (no overflow)."""
    top = a.max(axis=1)
    finite_top = np.where(np.isfinite(top), top, 0.0)
    return finite_top + np.log(np.exp(a - finite_top[:, None]).sum(axis=1))


# ------------------------------------------------------------------------------------------
# Multicategory losses


def coherence_loss(margins, labels, temperature) -> np.ndarray:
    """The coherence function, eq. (6):
    C(g(x), c) = T log[1 + sum_{j != c} exp((1 + g_j(x) - g_c(x)) / T)], T > 0.

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
        Margin vectors g(x_i) (sum-to-zero is not needed to evaluate the loss).
    labels : array_like of int, shape (n,)
        Class indices c_i in 0..m-1.
    temperature : float
        T > 0.

    Returns
    -------
    ndarray of float64, shape (n,)
        C(g(x_i), c_i); T log m + S <= C <= T log m + H (Theorem 2) and H <= C (sec. 3.1).
    """
    t = _temperature(temperature)
    g, c = _margins_and_labels(margins, labels)
    return t * _logsumexp_rows(_exponents(g, c, t))


def multiclass_hinge_loss(margins, labels) -> np.ndarray:
    """The multicategory hinge loss of Crammer & Singer, eq. (3):
    H(g(x), c) = max_j {g_j(x) + 1 - I[j=c]} - g_c(x); the limit of C as T -> 0
    (Theorem 3 (ii)). Shapes as in ``coherence_loss``."""
    g, c = _margins_and_labels(margins, labels)
    rows = np.arange(g.shape[0])
    shifted = g + 1.0
    shifted[rows, c] -= 1.0
    return shifted.max(axis=1) - g[rows, c]


def multinomial_logit_loss(margins, labels) -> np.ndarray:
    """The negative multinomial log-likelihood of multicategory LogitBoost, eq. (2):
    L(g(x), c) = log sum_j exp(g_j(x) - g_c(x)). C at T = 1 is an upper bound of it (sec.
    3.1). Shapes as in ``coherence_loss``."""
    g, c = _margins_and_labels(margins, labels)
    rows = np.arange(g.shape[0])
    return _logsumexp_rows(g - g[rows, c][:, None])


def coherence_lower_bound(margins, labels) -> np.ndarray:
    """S(g(x), c) = (1/m) sum_{j != c} (1 + g_j(x) - g_c(x)) of Theorem 2, the limit of
    C - T log m as T -> infinity (Theorem 3 (i)). Shapes as in ``coherence_loss``."""
    g, c = _margins_and_labels(margins, labels)
    m = g.shape[1]
    rows = np.arange(g.shape[0])
    gc = g[rows, c]
    return ((m - 1) * (1.0 - gc) + g.sum(axis=1) - gc) / m


# ------------------------------------------------------------------------------------------
# Binary losses of z = y f(x) (Figures 1 and 2)


def binary_coherence_loss(z, temperature) -> np.ndarray:
    """The binary coherence function, eq. (7): C(z) = T log[1 + exp((1 - z)/T)], z = y f(x).

    It is eq. (6) for m = 2 with g_1 = -g_2 = f/2 and y = +1 for c = 1, -1 for c = 2.
    Corollary 1: [1 - z]_+ <= C(z) <= T log 2 + [1 - z]_+, and C(z) - T log 2 -> (1 - z)/2
    as T -> infinity.

    Parameters
    ----------
    z : array_like of float
        Binary margins y f(x).
    temperature : float
        T > 0.

    Returns
    -------
    ndarray of float64, the shape of ``z``
    """
    t = _temperature(temperature)
    return t * np.logaddexp(0.0, (1.0 - np.asarray(z, dtype=np.float64)) / t)


def hinge_loss(z) -> np.ndarray:
    """[1 - z]_+ (Figures 1-2): the limit of ``binary_coherence_loss`` as T -> 0."""
    return np.maximum(0.0, 1.0 - np.asarray(z, dtype=np.float64))


def logit_loss(z) -> np.ndarray:
    """(1 / log 2) log[1 + exp(-z)], the logit loss as Figure 1's caption defines it (scaled
    to equal 1 at z = 0, like the 0-1 loss)."""
    return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64)) / np.log(2.0)


def exponential_loss(z) -> np.ndarray:
    """exp(-z) (Figure 1)."""
    return np.exp(-np.asarray(z, dtype=np.float64))


def zero_one_loss(z) -> np.ndarray:
    """I[z <= 0]: the 0-1 loss of sign(f) (Figure 1); z = 0 counts as an error (a tie is not
    a correct decision), so every majorisation bound is checked where it is tightest."""
    return (np.asarray(z, dtype=np.float64) <= 0.0).astype(np.float64)


# name -> (function of z, legend label); the losses Figure 1 draws beside the coherence one
BINARY_LOSSES = {
    "zero_one": (zero_one_loss, "0-1 loss"),
    "hinge": (hinge_loss, "hinge [1 - z]+"),
    "logit": (logit_loss, "logit log(1 + e^-z) / log 2"),
    "exponential": (exponential_loss, "exponential e^-z"),
}


# ------------------------------------------------------------------------------------------
# GentleBoost.C (Algorithm 1)


def class_weights(margins, labels, temperature) -> np.ndarray:
    """beta_j(x_i) of eq. (5), as Algorithm 1 step 2(c) writes it:

        beta_j(x) = exp((1 + g_j - g_c)/T) / (1 + sum_{l != c} exp((1 + g_l - g_c)/T)),  j != c
        beta_c(x) = 1 / (1 + sum_{l != c} exp((1 + g_l - g_c)/T)).

    They are the gradient of C: dC/dg_j = beta_j - I[j=c].

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
    labels : array_like of int, shape (n,)
    temperature : float

    Returns
    -------
    ndarray of float64, shape (n, m)
        Each row is a probability vector (positive entries up to underflow, sum 1).
    """
    t = _temperature(temperature)
    g, c = _margins_and_labels(margins, labels)
    a = _exponents(g, c, t)
    return np.exp(a - _logsumexp_rows(a)[:, None])


def _log_beta_and_complement(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log beta_ij and log(1 - beta_ij) from the exponents a, without forming 1 - beta (which
    loses every digit when beta is within rounding of 1).

    1 - beta_j = sum_{l != j} exp(a_l) / sum_l exp(a_l). For j other than the row's argmax
    the numerator is exp(top) (S - e_j) with S - e_j >= 1, so the subtraction is exact to
    rounding; for the argmax it is the log-sum-exp of the other entries, taken directly.
    """
    n, m = a.shape
    rows = np.arange(n)
    lse = _logsumexp_rows(a)
    top_idx = a.argmax(axis=1)
    top = a[rows, top_idx]
    e = np.exp(a - top[:, None])
    with np.errstate(divide="ignore"):
        log_rest = top[:, None] + np.log(e.sum(axis=1, keepdims=True) - e)
        others = a.copy()
        others[rows, top_idx] = -np.inf
        log_rest[rows, top_idx] = _logsumexp_rows(others)
    return a - lse[:, None], log_rest - lse[:, None]


def working_responses(margins, labels, temperature, *,
                      max_abs_response: float = DEFAULT_MAX_ABS_RESPONSE
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 step 2(a)(i): the working responses and weights of every class.

        z_ij = (I[j = c_i] - beta_j(x_i)) / (beta_j(x_i) (1 - beta_j(x_i))),
        w_ij = beta_j(x_i) (1 - beta_j(x_i)),

    with beta from eq. (5) at the current margins. Class j's regression function is the
    weighted least-squares fit of z_.j with weights w_.j (step 2(a)(ii)).

    The response simplifies to z_ij = 1 / beta_j when j = c_i and -1 / (1 - beta_j)
    otherwise, which is how it is computed (in log space, never as 0/0). Its magnitude is
    capped at ``max_abs_response`` (ALGORITHMS.md: the paper gives no cap; Friedman et al.
    2000 cap LogitBoost's identical response at 2-4): without a cap it is unbounded as beta
    reaches 0 or 1, e.g. at small T.

    As derivatives of C (g unconstrained): dC/dg_j = beta_j - I[j=c] and
    d2C/dg_j2 = beta_j (1 - beta_j) / T. So (uncapped) T z_ij is the Newton step
    -(dC/dg_j) / (d2C/dg_j2) and w_ij = T d2C/dg_j2: at the paper's T = 1 they are the
    Newton step and the curvature themselves; at another T the paper's z is the Newton step
    divided by T (read literally, see ALGORITHMS.md).

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
        The current margin vectors g(x_i).
    labels : array_like of int, shape (n,)
    temperature : float
        T > 0.
    max_abs_response : float, keyword-only
        Cap on |z_ij|, > 0 (``numpy.inf`` for none: then a response may be infinite where
        beta underflows).

    Returns
    -------
    responses : ndarray of float64, shape (n, m)
    weights : ndarray of float64, shape (n, m)
        Non-negative; a weight underflows to 0 where beta is within rounding of 0 or 1.
    """
    t = _temperature(temperature)
    cap = float(max_abs_response)
    if not cap > 0.0:
        raise UserError(f"max_abs_response: {max_abs_response!r} is not valid; expected a "
                        "positive number (numpy.inf for no cap)")
    g, c = _margins_and_labels(margins, labels)
    log_beta, log_rest = _log_beta_and_complement(_exponents(g, c, t))
    rows = np.arange(g.shape[0])
    is_label = np.zeros(g.shape, dtype=bool)
    is_label[rows, c] = True
    # |z| = 1/beta (j = c) or 1/(1 - beta) (j != c); capped before exponentiating.
    log_abs = np.where(is_label, -log_beta, -log_rest)
    with np.errstate(over="ignore"):
        magnitude = np.exp(np.minimum(log_abs, np.log(cap)))
    responses = np.where(is_label, magnitude, -magnitude)
    weights = np.exp(log_beta + log_rest)
    return responses, weights


def multinomial_working_responses(margins, labels, *,
                                  max_abs_response: float = DEFAULT_MAX_ABS_RESPONSE
                                  ) -> tuple[np.ndarray, np.ndarray]:
    """K-class LogitBoost's working responses and weights (Friedman, Hastie & Tibshirani
    2000, Algorithm 6, step 2(a)(i)), with p_j = exp(g_j) / sum_l exp(g_l):

        z_ij = (y*_ij - p_ij) / (p_ij (1 - p_ij)),   w_ij = p_ij (1 - p_ij),

    y*_ij = I[j = c_i]. They are ``working_responses`` with p in place of beta: beta of eq. (5)
    at T = 1 is the softmax of g_j + 1 - I[j = c] ("1 +" on every other class), p the softmax
    of g itself. Computed the same way (log space, |z| capped at ``max_abs_response``: FHT's
    z_max in [2, 4], 4 here as for GentleBoost.C).

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
        The current F_j(x_i).
    labels : array_like of int, shape (n,)
    max_abs_response : float, keyword-only
        Cap on |z_ij|, > 0.

    Returns
    -------
    responses, weights : ndarray of float64, shape (n, m)
    """
    cap = float(max_abs_response)
    if not cap > 0.0:
        raise UserError(f"max_abs_response: {max_abs_response!r} is not valid; expected a "
                        "positive number (numpy.inf for no cap)")
    g, c = _margins_and_labels(margins, labels)
    log_p, log_rest = _log_beta_and_complement(g)
    is_label = np.zeros(g.shape, dtype=bool)
    is_label[np.arange(g.shape[0]), c] = True
    log_abs = np.where(is_label, -log_p, -log_rest)
    with np.errstate(over="ignore"):
        magnitude = np.exp(np.minimum(log_abs, np.log(cap)))
    return np.where(is_label, magnitude, -magnitude), np.exp(log_p + log_rest)


def update_margins(margins, increments, *, centre: str = "increment") -> np.ndarray:
    """Algorithm 1 steps 2(a)(iii) and 2(b): add the round's per-class fits g_j^(h)(x) to the
    margins and keep them in G (sum to zero).

    Step 2(b) reads g_j <- (m-1)/m [g_j - (1/m) sum_l g_l]. ``centre`` says what it applies
    to (ALGORITHMS.md):

    * ``"increment"`` (default): to the round's fits, as in Friedman et al. (2000)'s
      LogitBoost and Zou et al. (2008)'s GentleBoost, which the paper follows:
      g <- g + (m-1)/m [h - mean(h)];
    * ``"margin"``: to the accumulated margins after step 2(a)(iii), as the paper's
      notation literally says: g <- (m-1)/m [(g + h) - mean(g + h)], which also shrinks the
      earlier rounds' contribution by (m-1)/m every round.

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
        g(x_i) before the round (sum-to-zero rows).
    increments : array_like of float, shape (n, m)
        The round's fitted values g_j^(h)(x_i).
    centre : {"increment", "margin"}, keyword-only

    Returns
    -------
    ndarray of float64, shape (n, m)
        The new margins; each row sums to zero (to rounding) whatever the increments.
    """
    g = np.asarray(margins, dtype=np.float64)
    h = np.asarray(increments, dtype=np.float64)
    if g.ndim != 2 or h.shape != g.shape:
        raise UserError(f"increments: shape {h.shape} is not valid; expected the margins' "
                        f"shape {g.shape} (n examples, m classes)")
    m = g.shape[1]
    if centre == "increment":
        return g + (m - 1) / m * (h - h.mean(axis=1, keepdims=True))
    if centre == "margin":
        s = g + h
        return (m - 1) / m * (s - s.mean(axis=1, keepdims=True))
    raise UserError(f"centre: {centre!r} is not valid; expected 'increment' or 'margin'")


def class_probabilities(margins, temperature) -> np.ndarray:
    """Class probabilities from the minimiser g^ of the expected coherence loss, eq. (8):

        P_c(x) = sum_l exp((1 + g^_l + g^_c - I[l=c])/T)
                 / sum_j sum_l exp((1 + g^_l + g^_j - I[l=j])/T).

    (The paper derives it at T = 1 and states it for any T; the exponent's terms are all
    divided by T, which is what the appendix's derivation gives with 1/T in place of 1.)

    Parameters
    ----------
    margins : array_like of float, shape (n, m)
    temperature : float

    Returns
    -------
    ndarray of float64, shape (n, m); rows sum to 1.
    """
    t = _temperature(temperature)
    g = np.asarray(margins, dtype=np.float64)
    if g.ndim != 2 or g.shape[1] < 2:
        raise UserError(f"margins: shape {g.shape} is not valid; expected (n examples, m >= 2 "
                        "classes)")
    m = g.shape[1]
    # b_icl = (1 + g_l + g_c - I[l=c]) / T; log numerator_c = logsumexp over l.
    b = (1.0 + g[:, None, :] + g[:, :, None] - np.eye(m)[None]) / t
    top = b.max(axis=2, keepdims=True)
    log_num = top[:, :, 0] + np.log(np.exp(b - top).sum(axis=2))
    return np.exp(log_num - _logsumexp_rows(log_num)[:, None])
