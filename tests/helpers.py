"""Test data."""
import numpy as np


def smooth_random_fields(shape, box, rng, modes=4, amplitude=0.2):
    """lnrho, ux, uy, uz as sums of random low Fourier modes of the box."""
    coords = np.meshgrid(*[np.arange(n) * L / n for n, L in zip(shape, box)], indexing="ij")
    out = []
    for _ in range(4):
        f = np.zeros(shape)
        for _ in range(modes):
            k = [rng.integers(-2, 3) * 2 * np.pi / L if n > 1 else 0.0 for n, L in zip(shape, box)]
            phase = rng.uniform(0, 2 * np.pi)
            f += rng.uniform(-1, 1) * amplitude * np.cos(sum(ki * c for ki, c in zip(k, coords)) + phase)
        out.append(f)
    return out
