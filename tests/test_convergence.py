"""Sine-wave decay (seed Sect. 6, eq. 22): the error falls as dx^6."""
import math

import numpy as np
import pytest

import astaroth as ac

K, U0, NU, T_END = 13, 1e-3, 5e-3, 1.5


def decay_error(n, method, dtype="float64"):
    """rms deviation from u0 exp(-nu k^2 t) sin(kx) at t = 1.5 on an (n, 1, 1) grid."""
    sim = ac.Simulation(shape=(n, 1, 1), box=(2 * math.pi, 1.0, 1.0), nu=NU, cs=1.0, dtype=dtype,
                        backend="cpu", method=method)
    sim["uy"] = U0 * np.sin(K * sim.x)[:, None, None]
    # small steps so that the sixth-order spatial error dominates the RK3 one
    sim.run(until=T_END, cdt=0.1)
    exact = U0 * math.exp(-NU * K * K * T_END) * np.sin(K * sim.x)[:, None, None]
    return math.sqrt(np.mean((sim["uy"] - exact) ** 2))


@pytest.mark.parametrize("method", ["55p", "19p"])
def test_sine_decay_converges_at_sixth_order(method):
    sizes = [64, 128, 256]
    errors = [decay_error(n, method) for n in sizes]
    orders = [math.log2(e0 / e1) for e0, e1 in zip(errors, errors[1:])]
    print(f"{method}: errors {errors}, orders {orders}")
    assert all(order >= 5.5 for order in orders), (errors, orders)
    assert errors[0] < 0.05 * U0  # and the solution is close in absolute terms


def test_sine_decay_in_y_and_z_matches_x():
    """The same decay along another axis gives the same numbers (no axis is special)."""
    n = 64
    ex = decay_error(n, "55p")
    sim = ac.Simulation(shape=(1, 1, n), box=(1.0, 1.0, 2 * math.pi), nu=NU, cs=1.0, backend="cpu")
    sim["ux"] = U0 * np.sin(K * sim.z)[None, None, :]
    sim.run(until=T_END, cdt=0.1)
    exact = U0 * math.exp(-NU * K * K * T_END) * np.sin(K * sim.z)
    ez = math.sqrt(np.mean((sim["ux"][0, 0, :] - exact) ** 2))
    assert ez == pytest.approx(ex, rel=1e-6)
