#!/usr/bin/env bash
# On one H200 (no multi-GPU machine was lent), `device.sh PART`, the trees
# carried in .trees/try.tar.xz:
#   part 1: G (a split GPU run's steps in C) against M9 (main 9eaeb3a): G's
#   split GPU tests (ranks sharing the GPU; among them the runs stepped in C
#   against one GPU and against ParallelStepper's steps from Python) and its
#   one-GPU tests; the host's run loop (a shock run's sim.run, which the
#   changed Grid.run_steps takes) in both trees, alternating; and a split run
#   stepped in C against from Python, two ranks sharing the GPU;
#   part 2: W (G with walls along the split axis in the C steps): its split
#   GPU tests;
#   part 3: K (the packed messages in the C steps too, and FaceMessages's
#   box copies by the backend's kernel, Grid.copy_boxes): its split GPU
#   tests and one-GPU tests; a split run stepped in C against from Python,
#   two ranks sharing the GPU, split along x (packed, peer) and along z;
#   part 4: K2 (shock viscosity in the C steps too): its split GPU tests;
#   part 5: K3 (main 9523217: the ranks agree on a batch's end in the next
#   step's reduction of dt): its split GPU tests and the one-GPU tests of
#   the host's run loop; a split run stepped in C against from Python.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
PART=${1:-1}
HERE=$PWD/benchmarks/results/2026-11-29-gpu-split-steps
MPIRUN="mpirun --oversubscribe --allow-run-as-root"
if [ "$PART" = 5 ]; then
    device_start K3
    TAIL=30 in_tree K3 mpi-gpu-tests-main.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    TAIL=6 in_tree K3 gpu-tests-main.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_run_in_c.py tests/test_device_cfl.py tests/test_shock.py tests/test_forcing.py
    TAIL=4 in_tree K3 split-steps-main.log 120 $MPIRUN -np 2 python3 scripts/split_steps.py 128 hydro 60 cuda float32 x
    tail -n 4 "$OUT/mpi-gpu-tests-main.log" "$OUT/gpu-tests-main.log"
    grep -E "M/s" "$OUT"/split-steps-main.log | cut -c1-200
    exit 0
fi
if [ "$PART" = 4 ]; then
    device_start K2
    TAIL=30 in_tree K2 mpi-gpu-tests-shock.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    tail -n 6 "$OUT/mpi-gpu-tests-shock.log"
    exit 0
fi
if [ "$PART" = 3 ]; then
    device_start K
    TAIL=30 in_tree K mpi-gpu-tests-packed.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    TAIL=8 in_tree K gpu-tests-packed.log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py
    for args in "128 hydro 60 cuda float32 x" "128 hydro 60 cuda float32 z"; do
        TAIL=4 in_tree K split-steps-packed.log 120 $MPIRUN -np 2 python3 scripts/split_steps.py $args
    done
    tail -n 4 "$OUT/mpi-gpu-tests-packed.log" "$OUT/gpu-tests-packed.log"
    grep -E "M/s" "$OUT"/split-steps-packed.log | cut -c1-200
    exit 0
fi
if [ "$PART" = 2 ]; then
    device_start W
    TAIL=30 in_tree W mpi-gpu-tests-walls.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    tail -n 6 "$OUT/mpi-gpu-tests-walls.log"
    exit 0
fi
device_start G
TAIL=30 in_tree G mpi-gpu-tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
TAIL=8 in_tree G gpu-tests.log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py
for round in 1 2; do for t in M9 G; do
    TAIL=1 in_tree $t host-loop.log 60 python3 $HERE/host_loop.py 256 40 float32
    TAIL=1 in_tree $t host-loop.log 60 python3 $HERE/host_loop.py 128 100 float64
done; done
for args in "128 hydro 60 cuda float32" "128 entropy 30 cuda float64"; do
    TAIL=4 in_tree G split-steps.log 120 $MPIRUN -np 2 python3 scripts/split_steps.py $args
done
tail -n 4 "$OUT/mpi-gpu-tests.log" "$OUT/gpu-tests.log"
grep -E "commit|M/s" "$OUT"/host-loop.log "$OUT"/split-steps.log | cut -c1-200
