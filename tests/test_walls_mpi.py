"""Walls split over MPI ranks (astaroth.parallel): a rank at a wall fills
that wall's ghost zones, and the run is the single process's bit for bit on
2 and 4 ranks, for hydro and for entropy with a passive scalar and MHD
(skipped where mpirun or mpi4py is missing, as tests/test_mpi.py)."""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_mpi import MPIRUN, needs_mpi  # noqa: E402
from test_walls import make_wall_case  # noqa: E402
from test_walls_entropy import make_entropy_wall_case  # noqa: E402

CASES = {"hydro": make_wall_case, "entropy": make_entropy_wall_case}


@needs_mpi
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("ranks", [2, 4])
def test_walls_split_over_ranks_are_bit_for_bit(tmp_path, ranks, case):
    import subprocess

    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    flags = ["--oversubscribe"] if "Open MPI" in subprocess.run([MPIRUN, "--version"], capture_output=True,
                                                                  text=True).stdout else []
    if hasattr(os, "geteuid") and os.geteuid() == 0 and flags:
        flags.append("--allow-run-as-root")
    cmd = [MPIRUN, *flags, "-np", str(ranks), sys.executable, os.path.join(HERE, "walls_mpi_script.py"),
           str(tmp_path), case]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}"
    split = np.load(tmp_path / f"walls-{case}-np{ranks}.npz")
    assert np.prod(split["dims"]) == ranks and split["dims"][2] > 1  # z, the wall axis, is split
    alone = CASES[case]()
    alone.run(until=0.1)
    assert int(split["steps"]) == alone.steps
    for name in alone.field_names:
        assert split[name].tobytes() == alone[name].tobytes(), name
