"""The same equations written with whole-array operations (NumPy or CuPy).

This is the baseline `astaroth bench` measures the compiled backends
against: eqs. (1)-(3) with the stencils (6)-(8) and the RK3 of eq. (10),
written the way a user would in NumPy.  Pass ``xp=cupy`` to run it on a GPU.
"""
import numpy as np

from ._core import GHOST_WIDTH as R
from ._core import RK3, STENCIL

# Sixth-order coefficients (seed eqs. 6-8) from csrc/physics.h: pairs at distance 1, 2, 3.
D1 = tuple(c / STENCIL["d1_denominator"] for c in STENCIL["d1"])
D2 = tuple(c / STENCIL["d2_denominator"] for c in STENCIL["d2"])
D2_CENTRE = STENCIL["d2_centre"] / STENCIL["d2_denominator"]
DXY = tuple(c / STENCIL["mixed_denominator"] for c in STENCIL["mixed"])
ALPHA, BETA = RK3["alpha"], RK3["beta"]  # eq. (10)


class ArraySolver:
    """Full RK3 steps of isothermal viscous hydrodynamics on whole arrays.

    fields: dict lnrho, ux, uy, uz of arrays of one shape (periodic box).
    """

    def __init__(self, fields, spacing, nu, cs, xp=np):
        self.xp = xp
        self.f = [xp.asarray(fields[k]) for k in ("lnrho", "ux", "uy", "uz")]
        self.inv = [1.0 / d for d in spacing]
        self.nu, self.cs2 = nu, cs * cs
        self.w = [xp.zeros_like(a) for a in self.f]

    def _shifted(self, p, offsets):
        """The interior of the padded array p displaced by `offsets` points."""
        return p[tuple(slice(R + o, p.shape[a] - R + o) for a, o in enumerate(offsets))]

    def _d1(self, p, a):
        off = [0, 0, 0]
        acc = 0
        for r, c in enumerate(D1, start=1):
            off[a] = r
            plus = self._shifted(p, off)
            off[a] = -r
            acc = acc + c * (plus - self._shifted(p, off))
        return acc * self.inv[a]

    def _d2(self, p, a):
        off = [0, 0, 0]
        acc = D2_CENTRE * self._shifted(p, off)
        for r, c in enumerate(D2, start=1):
            off[a] = r
            plus = self._shifted(p, off)
            off[a] = -r
            acc = acc + c * (plus + self._shifted(p, off))
        return acc * self.inv[a] ** 2

    def _dxy(self, p, a, b):
        acc = 0
        for r, c in enumerate(DXY, start=1):
            def at(sa, sb):
                off = [0, 0, 0]
                off[a], off[b] = sa * r, sb * r
                return self._shifted(p, off)
            acc = acc + c * (at(1, 1) - at(-1, 1) + at(-1, -1) - at(1, -1))
        return acc * self.inv[a] * self.inv[b]

    def rhs(self):
        xp = self.xp
        lnrho, *u = self.f
        pl = xp.pad(lnrho, R, mode="wrap")
        pu = [xp.pad(c, R, mode="wrap") for c in u]
        gl = [self._d1(pl, j) for j in range(3)]
        gu = [[self._d1(pu[i], j) for j in range(3)] for i in range(3)]
        div = gu[0][0] + gu[1][1] + gu[2][2]
        out = [-(u[0] * gl[0] + u[1] * gl[1] + u[2] * gl[2]) - div]
        for i in range(3):
            lap = self._d2(pu[i], 0) + self._d2(pu[i], 1) + self._d2(pu[i], 2)
            graddiv = sum(self._d2(pu[j], j) if j == i else self._dxy(pu[j], i, j) for j in range(3))
            sgl = 0
            for j in range(3):
                s_ij = 0.5 * (gu[i][j] + gu[j][i]) - (div / 3.0 if i == j else 0.0)
                sgl = sgl + s_ij * gl[j]
            adv = u[0] * gu[i][0] + u[1] * gu[i][1] + u[2] * gu[i][2]
            out.append(-adv - self.cs2 * gl[i] + self.nu * (lap + graddiv / 3.0 + 2.0 * sgl))
        return out

    def step(self, dt):
        for s in range(3):
            r = self.rhs()
            for q in range(4):
                self.w[q] = ALPHA[s] * self.w[q] + dt * r[q] if s else dt * r[q]
                self.f[q] = self.f[q] + BETA[s] * self.w[q]
