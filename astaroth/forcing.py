"""Random forcing, Pencil Code style (seed Sect. 6, eqs. 24-25).

An isotropic set of integer wave vectors with kmin <= |k| <= kmax (in units
of 2 pi / L) is made once (or given: ``Forcing(wavevectors=...)``,
``Forcing.from_kdat("k.dat")``); every step the C/CUDA step loop draws one
k, a phase in [0, 2 pi) and a unit vector e not parallel to k from a seeded
generator, and after the third substep adds

    u += dt Re{N f_k exp(i k.x + i phi)},  f_k = k x e / |k x e|,
    N = f0 cs sqrt(|k| cs / dt),

|k| the drawn vector's (normalize="per_k", the default) or the mean |k| of
the set for every vector (normalize="mean_k", the Pencil Code's `kav`).
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


NORMALIZATIONS = ("per_k", "mean_k")
# |relhel| up to this: the draw divides by sqrt(1 + relhel^2), which overflows to
# inf past relhel ~ 1.3e154 in double precision and silently zeroes the forcing;
# beyond about 1e8 the forcing is already its sine part alone to double precision.
MAX_RELHEL = 1e150


def _finite_real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite real number, got {value!r}")
    return value


def _check_f0(f0):
    if _finite_real(f0, "f0") < 0:
        raise ValueError(f"f0 must be >= 0, got {f0}")
    return f0


def _check_relhel(relhel):
    if abs(_finite_real(relhel, "relhel")) > MAX_RELHEL:
        raise ValueError(f"relhel must lie in [-{MAX_RELHEL:g}, {MAX_RELHEL:g}], got {relhel:g}: each step's "
                         f"forcing is divided by sqrt(1 + relhel^2), which overflows beyond that and would "
                         f"silently switch the forcing off (|relhel| = 1 is maximally helical)")
    return relhel


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    return seed


def _checked_property(name, check, convert, doc):
    """A property stored in _<name> whose every assignment goes through check, then convert."""
    def get(self):
        return getattr(self, "_" + name)

    def set(self, value):
        setattr(self, "_" + name, convert(check(value)))

    return property(get, set, doc=doc)


def _integer_vectors(vectors):
    """`vectors` checked as a non-empty (n, 3) array of nonzero integer wave
    vectors (units of 2 pi / L), as float64."""
    try:
        k = np.array(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"wavevectors must be an (n, 3) array of numbers, got {vectors!r}") from None
    if k.ndim != 2 or k.shape[1] != 3 or k.shape[0] < 1:
        raise ValueError(f"wavevectors must be a non-empty (n, 3) array, got shape {k.shape}")
    if not np.all(np.isfinite(k)):
        raise ValueError("wavevectors must be finite")
    if np.any(np.abs(k - np.round(k)) > 1e-9 * np.maximum(1.0, np.abs(k))):
        raise ValueError("wavevectors must be integer vectors in units of 2 pi / L (each component an integer), "
                         "or the forcing is not periodic in the box")
    k = np.round(k)
    if np.any((k ** 2).sum(axis=1) == 0):
        raise ValueError("wavevectors must not hold the zero vector (it has no direction to force)")
    return k


class Forcing:
    """Forcing parameters: ``sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=1)``.

    f0, relhel and seed may be set on the object later, checked as in the
    constructor; a simulation takes the values when the forcing is assigned
    (``sim.forcing = forcing``), so assign it again after a change.

    Parameters
    ----------
    kmin, kmax : float
        The shell of integer wave vectors, in units of 2 pi / L (default 1
        and 2).  Not with `wavevectors`.
    f0 : float
        Strength (eq. 25), >= 0.
    seed : int
        Seed of the generator, 0 <= seed < 2**64.
    relhel : float
        Relative helicity sigma (Brandenburg 2001): each step's f_k becomes
        (f_k + i sigma khat x f_k) / sqrt(1 + sigma^2), so that curl f =
        sigma |k| f for sigma = +1 or -1 (maximally helical, of that sign);
        0 (the default) is the non-helical forcing of eq. (25), bit for bit.
        |sigma| <= MAX_RELHEL = 1e150: sqrt(1 + sigma^2) must stay finite.
    normalize : "per_k" or "mean_k"
        The |k| in N = f0 cs sqrt(|k| cs / dt): "per_k" (the default) the
        drawn vector's own; "mean_k" the mean |k| of the set for every
        vector (`kav`), as the Pencil Code's forcing does, so that N does
        not change from step to step with the vector drawn.
    wavevectors : (n, 3) array, optional
        An explicit set of integer wave vectors in units of 2 pi / L, drawn
        from in the order given (the Pencil Code's k.dat; see from_kdat), in
        place of the shell.  kmin and kmax then become the least and largest
        |k| of the set.
    kav : float, optional
        With `wavevectors`: the |k| of normalize="mean_k" (units of 2 pi /
        L); default the mean |k| of the set (from_kdat: the file's kav).
    """

    def __init__(self, kmin=None, kmax=None, f0=0.02, seed=1, relhel=0.0, normalize="per_k", wavevectors=None,
                 kav=None):
        explicit = wavevectors is not None
        if explicit and (kmin is not None or kmax is not None):
            raise ValueError("give either kmin and kmax (a shell) or wavevectors (an explicit set), not both")
        if not explicit and kav is not None:
            raise ValueError("kav goes with wavevectors: a shell's kav is the mean |k| of its vectors")
        kmin = 1.0 if kmin is None and not explicit else kmin
        kmax = 2.0 if kmax is None and not explicit else kmax
        _check_f0(f0)
        _check_relhel(relhel)
        for name, v in ((("kmin", kmin), ("kmax", kmax)) if not explicit else ()):
            _finite_real(v, name)
        _check_seed(seed)
        if normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got {normalize!r}")
        if explicit:
            self.wavenumbers = _integer_vectors(wavevectors)
            norms = np.sqrt((self.wavenumbers ** 2).sum(axis=1))
            kmin, kmax = float(norms.min()), float(norms.max())
            if kav is not None:
                if isinstance(kav, bool) or not isinstance(kav, numbers.Real) or not (math.isfinite(kav) and kav > 0):
                    raise ValueError(f"kav must be a positive finite number, got {kav!r}")
                kav = float(kav)
        elif kmin <= 0 or kmax < kmin:
            raise ValueError(f"need 0 < kmin <= kmax, got kmin={kmin}, kmax={kmax}")
        self.kmin, self.kmax = float(kmin), float(kmax)
        self.f0, self.seed, self.relhel = f0, seed, relhel  # the checked properties below
        self.normalize = normalize
        self.explicit = explicit
        self.kdat = None  # the k.dat file the set came from (from_kdat)
        self._kav = kav
        if not explicit:
            _check_size(self.kmin, self.kmax)
            self.wavenumbers = self._shell(self.kmin, self.kmax)
            if len(self.wavenumbers) == 0:
                raise ValueError(f"no integer wave vector has {kmin} <= |k| <= {kmax}")

    @classmethod
    def from_kdat(cls, path, f0=0.02, seed=1, relhel=0.0, normalize="mean_k"):
        """A forcing drawing from the wave vectors of a Pencil Code k.dat file:
        ``nk kav`` then the nk x components, the nk y components and the nk z
        components (whitespace- or line-separated, as Fortran reads them).
        normalize defaults to "mean_k" with the file's kav, as the Pencil
        Code's forcing uses it."""
        path = os.fspath(path)
        try:
            with open(path) as f:
                tokens = f.read().replace(",", " ").split()
        except (OSError, UnicodeDecodeError) as e:
            raise type(e)(f"cannot read the k.dat file {path}: {e}") from None
        try:
            nk = int(tokens[0])
            kav = float(tokens[1].replace("d", "e").replace("D", "E"))
            values = np.array([float(t.replace("d", "e").replace("D", "E")) for t in tokens[2:]])
        except (IndexError, ValueError):
            raise ValueError(f"{path} is not a k.dat file: it must start with nk (an integer) and kav, then "
                             f"3 nk numbers") from None
        if nk < 1 or len(values) != 3 * nk:
            raise ValueError(f"{path}: nk = {nk} needs 3 nk = {3 * nk} wave-vector components after nk and kav, "
                             f"found {len(values)}")
        forcing = cls(f0=f0, seed=seed, relhel=relhel, normalize=normalize, wavevectors=values.reshape(3, nk).T,
                      kav=kav if kav > 0 else None)
        forcing.kdat = path
        return forcing

    # f0, relhel and seed are checked when set after construction too (forcing.relhel = 1e308 would
    # otherwise reach the step loop at the next sim.forcing = forcing and silently switch it off)
    f0 = _checked_property("f0", _check_f0, float, "Strength (eq. 25), >= 0.")
    relhel = _checked_property("relhel", _check_relhel, float, "Relative helicity sigma, |sigma| <= MAX_RELHEL.")
    seed = _checked_property("seed", _check_seed, int, "Seed of the generator, 0 <= seed < 2**64.")

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
                raise ValueError(f"forcing {'wavevectors reach' if self.explicit else f'kmax = {self.kmax:g} reaches'} "
                                 f"wave vectors with |k_{axis}| = {k:g} "
                                 f"(units of 2 pi / L), beyond the grid's Nyquist wave number n{axis} / 2 = {n / 2:g}: "
                                 f"lower kmax or use more points along {axis}")

    @property
    def mean_k(self):
        """Mean |k| of the set (the seed's kf), in units of 2 pi / L."""
        return float(np.sqrt((self.wavenumbers ** 2).sum(axis=1)).mean())

    @property
    def kav(self):
        """The |k| of normalize="mean_k", in units of 2 pi / L: mean_k, or
        the kav given with an explicit set (from_kdat: the file's)."""
        return self.mean_k if self._kav is None else self._kav

    def wavevectors(self, box):
        """The set in physical units, 2 pi n / L per axis: an (n, 3) array."""
        return self.wavenumbers * (2 * np.pi / np.asarray(box, dtype=np.float64))

    def arguments(self, box):
        """What the step loop takes (_core.Grid.set_forcing) in a box of lengths
        `box`: the physical wave vectors, f0, seed, relhel and the physical
        kav of normalize="mean_k" (0: each drawn |k|).  A cubic box's kav is
        kav 2 pi / L; another box's the mean physical |k| of the set."""
        k = self.wavevectors(box)
        kav = 0.0
        if self.normalize == "mean_k":
            box = np.asarray(box, dtype=np.float64)
            kav = (self.kav * 2 * np.pi / box[0] if np.all(box == box[0]) else
                   float(np.sqrt((k ** 2).sum(axis=1)).mean()))
        return k, self.f0, self.seed, self.relhel, kav

    def __repr__(self):
        helical = f", relhel={self.relhel}" if self.relhel else ""
        normalize = f", normalize={self.normalize!r}" if self.normalize != "per_k" else ""
        where = f"kmin={self.kmin}, kmax={self.kmax}" if not self.explicit else \
            f"wavevectors from {self.kdat}" if self.kdat else "explicit wavevectors"
        return (f"Forcing({where}, f0={self.f0}, seed={self.seed}{helical}{normalize}; "
                f"{len(self.wavenumbers)} wave vectors, mean |k| = {self.mean_k:.2f})")
