#!/usr/bin/env bash
# One call on nvidia-h200-x2: a split run's CFL steps in C with the next
# step's signal speed left by the last substep (tree B) against main
# (tree A), trees built for the device's Python and carried in
# .trees/try.tar.xz (scripts/device-trees.sh).  B's split GPU tests; then
# two alternating rounds of split_run_parts.py (of ../2026-11-29-gpu-x2-main)
# on two GPUs, hydro, hydro+entropy and MHD+entropy at 256^3 a GPU
# float32, and B on one GPU; then scaling.py's sim.run rows on two GPUs.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PARTS=$PWD/benchmarks/results/2026-11-29-gpu-x2-main/split_run_parts.py
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none"
A=${A:-main} B=${B:-split}
device_start $A
TAIL=25 in_tree $B tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
tail -1 "$OUT/tests.log"
for round in 1 2; do
    for physics in hydro entropy mhd+entropy; do
        for t in $A $B; do
            in_tree $t parts.log 150 $MPI -np 2 python3 $PARTS 256 float32 $physics
        done
    done
done
for physics in hydro entropy; do
    in_tree $B parts.log 150 $MPI -np 1 python3 $PARTS 256 float32 $physics
done
grep -E "^# commit|^split" "$OUT/parts.log"
for args in "weak 256 float32 hydro run" "strong 512 float32 hydro run"; do
    for t in $A $B; do
        in_tree $t scaling.log 150 $MPI -np 2 python3 scripts/scaling.py $args
    done
done
grep -E "^# commit|^weak|^strong" "$OUT/scaling.log"
