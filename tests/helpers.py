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


def assert_rhs_agree(sims, values, tolerance):
    """Set `values` (in field_names order) on every simulation and check the
    right-hand sides of sims[1:] against sims[0]'s, relative to its largest
    value per field (fields whose right-hand side is 0 there are skipped)."""
    for s in sims:
        for name, f in zip(s.field_names, values):
            s[name] = f
    reference = sims[0].rhs()
    for other in sims[1:]:
        got = other.rhs()
        for name in sims[0].field_names:
            scale = np.max(np.abs(reference[name]))
            if scale > 0:
                assert np.max(np.abs(got[name] - reference[name])) <= tolerance * scale, ("rhs", name)



def assert_runs_agree(sims, tolerance, until=0.05):
    """Run every simulation to `until` and check that sims[1:] took
    sims[0]'s steps and end within 10 x tolerance of its fields, relative to
    each field's largest value."""
    for s in sims:
        s.run(until=until)
    for other in sims[1:]:
        assert other.steps == sims[0].steps
        for name in sims[0].field_names:
            c, g = sims[0][name], other[name]
            assert np.max(np.abs(g - c)) <= 10 * tolerance * max(np.max(np.abs(c)), 1e-30), name
