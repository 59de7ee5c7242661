"""The Wilson score interval of a proportion: where the true flip rate lies, at 95 %, given
``k`` flips out of ``n`` runs. Unlike the normal approximation it stays inside [0, 1] and is
not degenerate at 0 or n flips (0 of 30 still leaves room up to about 11 %)."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the two-sided 95 % quantile of the standard normal


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """(low, high) of the Wilson score interval for ``k`` successes in ``n`` trials; (0, 1)
    when there are no trials (nothing is known)."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
