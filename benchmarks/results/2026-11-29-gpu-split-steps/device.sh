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
ONE_GPU_TESTS="tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
split_gpu_tests() { # TREE LOG: tests/test_mpi_gpu.py, ranks sharing the GPU
    TAIL=30 in_tree $1 $2 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
}
gpu_tests() { # TREE LOG FILES...
    local t=$1 log=$2
    shift 2
    TAIL=8 in_tree $t $log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu "$@"
}
split_steps() { # TREE LOG ARGS...: scripts/split_steps.py on two ranks sharing the GPU
    local t=$1 log=$2
    shift 2
    TAIL=4 in_tree $t $log 120 $MPIRUN -np 2 python3 scripts/split_steps.py "$@"
}
if [ "$PART" = 5 ]; then
    device_start K3
    split_gpu_tests K3 mpi-gpu-tests-main.log
    gpu_tests K3 gpu-tests-main.log tests/test_run_in_c.py tests/test_device_cfl.py tests/test_shock.py tests/test_forcing.py
    split_steps K3 split-steps-main.log 128 hydro 60 cuda float32 x
    tail -n 4 "$OUT/mpi-gpu-tests-main.log" "$OUT/gpu-tests-main.log"
    grep -E "M/s" "$OUT"/split-steps-main.log | cut -c1-200
    exit 0
fi
if [ "$PART" = 4 ]; then
    device_start K2
    split_gpu_tests K2 mpi-gpu-tests-shock.log
    tail -n 6 "$OUT/mpi-gpu-tests-shock.log"
    exit 0
fi
if [ "$PART" = 3 ]; then
    device_start K
    split_gpu_tests K mpi-gpu-tests-packed.log
    gpu_tests K gpu-tests-packed.log $ONE_GPU_TESTS
    for axis in x z; do split_steps K split-steps-packed.log 128 hydro 60 cuda float32 $axis; done
    tail -n 4 "$OUT/mpi-gpu-tests-packed.log" "$OUT/gpu-tests-packed.log"
    grep -E "M/s" "$OUT"/split-steps-packed.log | cut -c1-200
    exit 0
fi
if [ "$PART" = 2 ]; then
    device_start W
    split_gpu_tests W mpi-gpu-tests-walls.log
    tail -n 6 "$OUT/mpi-gpu-tests-walls.log"
    exit 0
fi
device_start G
split_gpu_tests G mpi-gpu-tests.log
gpu_tests G gpu-tests.log $ONE_GPU_TESTS
for round in 1 2; do for t in M9 G; do
    TAIL=1 in_tree $t host-loop.log 60 python3 $HERE/host_loop.py 256 40 float32
    TAIL=1 in_tree $t host-loop.log 60 python3 $HERE/host_loop.py 128 100 float64
done; done
split_steps G split-steps.log 128 hydro 60 cuda float32
split_steps G split-steps.log 128 entropy 30 cuda float64
tail -n 4 "$OUT/mpi-gpu-tests.log" "$OUT/gpu-tests.log"
grep -E "commit|M/s" "$OUT"/host-loop.log "$OUT"/split-steps.log | cut -c1-200
