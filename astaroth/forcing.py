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
import os

import numpy as np

BYTES_PER_CANDIDATE = 64  # the vector, its norm and the index arithmetic while the set is made


def _memory():
    """Physical memory in bytes (a generous default where it cannot be read)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def _check_size(kmin, kmax):
    """MemoryError, before any work, for a shell whose vectors would not fit."""
    count = 4 / 3 * math.pi * ((kmax + 1) ** 3 - max(kmin - 1, 0) ** 3)
    if count * BYTES_PER_CANDIDATE > _memory():
        raise MemoryError(f"the forcing shell kmin = {kmin:g}, kmax = {kmax:g} holds about {count:.3g} wave vectors, "
                          f"{count * BYTES_PER_CANDIDATE / 2 ** 30:.3g} GiB to make, more than this machine's "
                          f"memory: kmin and kmax are in units of 2 pi / L and cannot exceed the grid's n / 2")


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
    relhel : float
        Relative helicity sigma (DESIGN 7, Brandenburg 2001): each step's
        f_k becomes (f_k + i sigma khat x f_k) / sqrt(1 + sigma^2), so that
        curl f = sigma |k| f for sigma = +1 or -1 (maximally helical, of that
        sign); 0 (the default) is the non-helical forcing of eq. (25), bit
        for bit.
    """

    def __init__(self, kmin=1.0, kmax=2.0, f0=0.02, seed=1, relhel=0.0):
        for name, v in (("kmin", kmin), ("kmax", kmax), ("f0", f0), ("relhel", relhel)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise TypeError(f"{name} must be a finite real number, got {v!r}")
        if kmin <= 0 or kmax < kmin:
            raise ValueError(f"need 0 < kmin <= kmax, got kmin={kmin}, kmax={kmax}")
        if f0 < 0:
            raise ValueError(f"f0 must be >= 0, got {f0}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        self.kmin, self.kmax, self.f0, self.seed = float(kmin), float(kmax), float(f0), int(seed)
        self.relhel = float(relhel)
        _check_size(self.kmin, self.kmax)
        self.wavenumbers = self._shell(self.kmin, self.kmax)
        if len(self.wavenumbers) == 0:
            raise ValueError(f"no integer wave vector has {kmin} <= |k| <= {kmax}")

    @staticmethod
    def _shell(kmin, kmax):
        """The integer vectors with kmin <= |k| <= kmax, in the order (kx, ky, kz)
        ascending (the generator draws by index, so the order is part of a run).
        Only the candidates near the shell are made: a thin shell of large
        radius costs its own size, not that of the whole cube."""
        r = int(math.floor(kmax))
        a = np.arange(-r, r + 1)
        kx, ky = (g.ravel() for g in np.meshgrid(a, a, indexing="ij"))
        s = kx ** 2 + ky ** 2
        near = s <= (kmax + 1) ** 2
        kx, ky, s = kx[near], ky[near], s[near]
        # |kz| from lo to hi, one wider each way than exact: the float test below decides, as it always did
        hi = np.minimum(np.floor(np.sqrt(np.maximum(kmax ** 2 - s, 0.0))).astype(np.int64) + 1, r)
        lo = np.maximum(np.ceil(np.sqrt(np.maximum(kmin ** 2 - s, 0.0))).astype(np.int64) - 1, 0)
        lo = np.minimum(lo, hi + 1)  # an empty range where the pair lies inside the hole
        half = hi - lo + 1
        count = np.where(lo == 0, 2 * hi + 1, 2 * half)
        starts = np.cumsum(count) - count
        index = np.arange(count.sum()) - np.repeat(starts, count)  # position within each pair's run
        lo, hi, half = (np.repeat(v, count) for v in (lo, hi, half))
        # lo == 0: kz = -hi .. hi; else -hi .. -lo, then lo .. hi
        kz = np.where((lo == 0) | (index < half), index - hi, lo + index - half)
        k = np.stack([np.repeat(kx, count), np.repeat(ky, count), kz], axis=-1)
        norm = np.sqrt((k ** 2).sum(axis=1))
        return k[(norm >= kmin - 1e-12) & (norm <= kmax + 1e-12)].astype(np.float64)

    def check_grid(self, shape):
        """Refuse a grid that cannot carry the set: a wave vector beyond the
        Nyquist wave number n / 2 along a resolved axis would alias."""
        reach = np.abs(self.wavenumbers).max(axis=0)
        for n, k, axis in zip(shape, reach, "xyz"):
            if n > 1 and k > n / 2:
                raise ValueError(f"forcing kmax = {self.kmax:g} reaches wave vectors with |k_{axis}| = {k:g} "
                                 f"(units of 2 pi / L), beyond the grid's Nyquist wave number n{axis} / 2 = {n / 2:g}: "
                                 f"lower kmax or use more points along {axis}")

    @property
    def mean_k(self):
        """Mean |k| of the set (the seed's kf), in units of 2 pi / L."""
        return float(np.sqrt((self.wavenumbers ** 2).sum(axis=1)).mean())

    def wavevectors(self, box):
        """The set in physical units, 2 pi n / L per axis: an (n, 3) array."""
        return self.wavenumbers * (2 * np.pi / np.asarray(box, dtype=np.float64))

    def __repr__(self):
        helical = f", relhel={self.relhel}" if self.relhel else ""
        return (f"Forcing(kmin={self.kmin}, kmax={self.kmax}, f0={self.f0}, seed={self.seed}{helical}; "
                f"{len(self.wavenumbers)} wave vectors, mean |k| = {self.mean_k:.2f})")
