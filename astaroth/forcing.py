"""Random non-helical forcing, Pencil Code style (seed Sect. 6, eqs. 24-25).

An isotropic set of integer wave vectors with kmin <= |k| <= kmax (in units
of 2 pi / L) is made once; every step the C/CUDA step loop draws one k, a
phase in [0, 2 pi) and a unit vector e not parallel to k from a seeded
generator, and after the third substep adds

    u += dt Re{N f_k exp(i k.x + i phi)},  f_k = k x e / |k x e|,
    N = f0 cs sqrt(|k| cs / dt).

The same seed gives the same sequence on every backend.  The shell
[kf - 1/2, kf + 1/2] gives the seed's kf values ([1, 2]: mean |k| = 1.53).
"""
import math
import numbers

import numpy as np


class Forcing:
    """Forcing parameters: ``sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1)``.

    Parameters
    ----------
    kmin, kmax : float
        The shell of integer wave vectors, in units of 2 pi / L.
    f0 : float
        Strength (eq. 25), >= 0.
    seed : int
        Seed of the generator, 0 <= seed < 2**64.
    """

    def __init__(self, kmin=1.0, kmax=2.0, f0=0.02, seed=1):
        for name, v in (("kmin", kmin), ("kmax", kmax), ("f0", f0)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise TypeError(f"{name} must be a finite real number, got {v!r}")
        if kmin <= 0 or kmax < kmin:
            raise ValueError(f"need 0 < kmin <= kmax, got kmin={kmin}, kmax={kmax}")
        if f0 < 0:
            raise ValueError(f"f0 must be >= 0, got {f0}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        self.kmin, self.kmax, self.f0, self.seed = float(kmin), float(kmax), float(f0), int(seed)
        self.wavenumbers = self._shell(self.kmin, self.kmax)
        if len(self.wavenumbers) == 0:
            raise ValueError(f"no integer wave vector has {kmin} <= |k| <= {kmax}")

    @staticmethod
    def _shell(kmin, kmax):
        r = int(math.floor(kmax))
        k = np.stack(np.meshgrid(*[np.arange(-r, r + 1)] * 3, indexing="ij"), axis=-1).reshape(-1, 3)
        norm = np.sqrt((k ** 2).sum(axis=1))
        return k[(norm >= kmin - 1e-12) & (norm <= kmax + 1e-12)].astype(np.float64)

    @property
    def mean_k(self):
        """Mean |k| of the set (the seed's kf), in units of 2 pi / L."""
        return float(np.sqrt((self.wavenumbers ** 2).sum(axis=1)).mean())

    def wavevectors(self, box):
        """The set in physical units, 2 pi n / L per axis: an (n, 3) array."""
        return self.wavenumbers * (2 * np.pi / np.asarray(box, dtype=np.float64))

    def __repr__(self):
        return (f"Forcing(kmin={self.kmin}, kmax={self.kmax}, f0={self.f0}, seed={self.seed}; "
                f"{len(self.wavenumbers)} wave vectors, mean |k| = {self.mean_k:.2f})")
