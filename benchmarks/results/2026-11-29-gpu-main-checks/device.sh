#!/usr/bin/env bash
# One call on nvidia-h200: main's host-side changes that had not run on a
# GPU (a split step's run state through start_run, the row kernel's walls
# from the grid's bc.walls, the binding's add_drawn_forcing) under the GPU
# tests that reach them: every split case with its ranks sharing the one
# GPU, the time-series rows, the device loop and the run in C.  TREE: a
# tree built for the device's Python and carried in .trees/try.tar.xz
# (scripts/device-trees.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TREE=${TREE:-main35}
device_start $TREE
TAIL=30 in_tree $TREE split-tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
tail -1 "$OUT/split-tests.log"
TAIL=30 in_tree $TREE gpu-tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider -m gpu \
    tests/test_timeseries_reduction.py tests/test_device_cfl.py tests/test_run_in_c.py
tail -1 "$OUT/gpu-tests.log"
