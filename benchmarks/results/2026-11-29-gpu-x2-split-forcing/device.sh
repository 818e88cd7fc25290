#!/usr/bin/env bash
# One call on nvidia-h200-x2, or on nvidia-h200 with the two ranks sharing
# its GPU (the x2 kind was no longer lent when it ran): a split run's forced steps in C with the
# forcing added by the last substep (tree B) against 6e571cb, where it was a
# kernel after the step (tree A); trees built for the device's Python and
# carried in .trees/try.tar.xz (scripts/device-trees.sh).  B's split GPU
# tests; then two alternating rounds of split_run_parts.py (of
# ../2026-11-29-gpu-x2-main) on two ranks at 256^3 a rank float32: forced
# hydro, forced hydro+entropy, unforced hydro, forced MHD+entropy; and B's
# forced hydro on one GPU.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PARTS=$PWD/benchmarks/results/2026-11-29-gpu-x2-main/split_run_parts.py
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none"
A=${A:-split} B=${B:-forced}
device_start $A
TAIL=25 in_tree $B tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
tail -1 "$OUT/tests.log"
for round in 1 2; do
    for args in "hydro forced" "entropy forced" "hydro" "mhd+entropy forced"; do
        for t in $A $B; do
            in_tree $t parts.log 150 $MPI -np 2 python3 $PARTS 256 float32 $args
        done
    done
done
in_tree $B parts.log 150 $MPI -np 1 python3 $PARTS 256 float32 hydro forced
grep -E "^# commit|^split" "$OUT/parts.log"
