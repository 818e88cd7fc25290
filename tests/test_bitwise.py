"""Every stored run reproduced bit for bit (tests/bitwise_cases.py).

The fixtures hold the fields of short runs made before the physics-as-modules
redesign: hydro 55p/19p in both precisions, forced and helically forced,
MHD with b_ext, hyperdiffusion, shock viscosity, all terms together and an
ensemble.  A refactoring of the physics must leave each of them identical.
The CUDA fixture is compared on a GPU (marker `gpu`).
"""
import os

import numpy as np
import pytest

import bitwise_cases

DATA = os.path.join(os.path.dirname(__file__), "data")


def _compare(backend, case):
    stored = np.load(os.path.join(DATA, f"bitwise_{backend}.npz"))
    made_with, here = str(stored["meta/toolchain"]), bitwise_cases.toolchain(backend)
    if made_with != here:
        pytest.skip(f"the fixture was made with {made_with!r}, this machine has {here!r}: "
                    "bits depend on the compiler and the vector instructions")
    fresh = {}
    for m, sim in enumerate(bitwise_cases.CASES[case](backend)):
        for field in sim.field_names:
            fresh[f"{case}/{m}/{field}"] = sim[field]
        fresh[f"{case}/{m}/t"] = np.array(sim.t)
        fresh[f"{case}/{m}/steps"] = np.array(sim.steps)
    keys = [k for k in stored.files if k.startswith(case + "/")]
    assert keys and sorted(keys) == sorted(fresh), f"{case}: stored {sorted(keys)}, now {sorted(fresh)}"
    for k in keys:
        a, b = stored[k], fresh[k]
        assert a.dtype == b.dtype and a.shape == b.shape, k
        # bit for bit: compare the bytes, so that a NaN or a signed zero is caught too
        assert a.tobytes() == b.tobytes(), f"{k}: max |difference| {np.max(np.abs(a.astype(float) - b))}"


@pytest.mark.parametrize("case", sorted(bitwise_cases.CASES))
def test_cpu_bit_for_bit(case):
    _compare("cpu", case)


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(bitwise_cases.CASES))
def test_cuda_bit_for_bit(case):
    if not os.path.exists(os.path.join(DATA, "bitwise_cuda.npz")):
        pytest.skip("no CUDA fixture stored")
    _compare("cuda", case)
