#!/usr/bin/env bash
# One call on nvidia-h200 (two ranks sharing its GPU; no machine of two
# GPUs was lent): a split MHD run's signal speed reduced over the inner
# part while the fields' messages travel, then over the shell (tree B),
# against 9b8c488's exchange and then a reduction (tree A); trees built for
# the device's Python and carried in .trees/try.tar.xz
# (scripts/device-trees.sh).  B's split GPU tests; alternating rounds of
# split_run_parts.py (of ../2026-11-29-gpu-x2-main), MHD+entropy at 256^3
# a rank float32; then, in B (which also reads ASTAROTH_TS_MHD_BLOCKS, the
# blocks an SM its MHD time-series row instances are built for), the
# row's GPU tests and 256^3 row times at 4, 3 and 2 blocks.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PARTS=$PWD/benchmarks/results/2026-11-29-gpu-x2-main/split_run_parts.py
ROWS=$PWD/benchmarks/results/2026-11-29-gpu-timeseries-rows/row_times.py
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none"
A=${A:-forced} B=${B:-mhdx}
device_start $A
TAIL=25 in_tree $B tests.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
tail -1 "$OUT/tests.log"
for args in "mhd+entropy" "mhd+entropy" "mhd+entropy forced"; do
    for t in $A $B; do
        in_tree $t parts.log 150 $MPI -np 2 python3 $PARTS 256 float32 $args
    done
done
grep -E "^# commit|^split" "$OUT/parts.log"
TAIL=3 in_tree $B rows.log 120 env ASTAROTH_TS_MHD_BLOCKS=3 python3 -m pytest -q -m gpu -p no:cacheprovider \
    tests/test_timeseries_reduction.py
for blocks in 4 3 2; do
    TAIL=4 in_tree $B rows.log 120 env ASTAROTH_TS_MHD_BLOCKS=$blocks python3 $ROWS 256 mhd mhd+entropy
done
grep -vE "^# (device|date)" "$OUT/rows.log"
