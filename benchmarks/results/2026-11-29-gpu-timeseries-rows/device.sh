#!/usr/bin/env bash
# The device call for the time-series row reduced in C (csrc/timeseries.h),
# from the repository root, the trees prebuilt for the device's Python in
# .trees/try.tar.xz (scripts/device-trees.sh): MAIN (before) and NEW.
# PARTS lists what the call runs, in order:
#   tests   the one-GPU suite, the row's own tests and the diagnostics' GPU tests on NEW
#   rows    row_times.py of MAIN and NEW at 32^3 and 256^3
#   sweeps  sweep_times.py (the dynamo-onset notebook's sweep) of MAIN and NEW to T_SHORT,
#           then of NEW to the notebook's t = 400
#   bench   bench --sweeps --physics all of MAIN and NEW (float32)
#   variants  the row kernel's trial instances in NEW (ASTAROTH_TS_VARIANT 0: the grid's modules read at
#           run time, 256 threads; 1: an instance a configuration, 256 threads; 2: the same, at most 128
#           registers for 2 blocks an SM; 3: 128 threads, 4 blocks an SM): the row's tests, then
#           row_times.py at 256^3 and 32^3 of each
#   final   on NEW: the one-GPU suite with the row's tests and test_ops_gpu.py, row_times.py at 256^3 and
#           32^3, sweep_times.py to t = 400, and the dynamo-onset notebook at its GPU size
#           (scripts/dynamo_onset_gpu.sh, with NEW's extension carried into the repository's astaroth/)
#   walls   on NEW: the one-GPU suite with the row's tests, test_ops_gpu.py, test_diagnostics_during_run.py
#           and test_sweep.py, then test_mpi_gpu.py; row_times_walls.py and row_times.py of MAIN and NEW
#   sided   on NEW: the one-GPU suite with the row's tests and test_ops_gpu.py, then row_times_walls.py
#   shear   on NEW: the row's tests, test_shear_gpu.py and test_ops_gpu.py; row_times_shear.py of MAIN and NEW
#   combine on NEW: the row's tests; row_times.py at 256^3 and 32^3 of MAIN and NEW, twice in turn
set -uo pipefail
. scripts/device-trees.sh
HERE=$PWD/benchmarks/results/2026-11-29-gpu-timeseries-rows
MAIN=${MAIN:-main}
NEW=${NEW:-rows}
ONE_GPU="tests/test_cfl_reduction_gpu.py tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py
 tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
device_start $NEW
for part in ${PARTS:-tests rows sweeps bench}; do
    case $part in
    tests)
        TAIL=8 in_tree $NEW gpu-tests-$NEW.log 400 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU \
            tests/test_timeseries_reduction.py tests/test_ops_gpu.py tests/test_diagnostics_during_run.py tests/test_sweep.py
        ;;
    rows)
        for t in $MAIN $NEW; do
            TAIL=12 in_tree $t row-times.log 200 python $HERE/row_times.py 32 hydro mhd mhd+entropy
            TAIL=12 in_tree $t row-times.log 200 python $HERE/row_times.py 256 hydro mhd mhd+entropy
        done
        ;;
    sweeps)
        for t in $MAIN $NEW; do
            TAIL=3 in_tree $t sweep-times.log 200 python $HERE/sweep_times.py ${T_SHORT:-50}
        done
        TAIL=3 in_tree $NEW sweep-times.log 200 python $HERE/sweep_times.py 400
        ;;
    bench)
        for t in $MAIN $NEW; do
            TAIL=11 in_tree $t sweeps-float32.log 280 python -m astaroth bench --backend cuda \
                --sweeps --physics all --sizes 32 64 256 --dtype float32 --methods 55p
        done
        ;;
    variants)
        for v in 0 1 2 3; do
            TAIL=3 in_tree $NEW variant-tests.log 200 env ASTAROTH_TS_VARIANT=$v python -m pytest -q -p no:cacheprovider \
                tests/test_timeseries_reduction.py
        done
        for v in 0 1 2 3; do
            TAIL=12 in_tree $NEW row-variants.log 200 env ASTAROTH_TS_VARIANT=$v python $HERE/row_times.py 256 hydro mhd \
                mhd+entropy
            TAIL=12 in_tree $NEW row-variants.log 200 env ASTAROTH_TS_VARIANT=$v python $HERE/row_times.py 32 hydro mhd \
                mhd+entropy
        done
        ;;
    final)
        TAIL=8 in_tree $NEW gpu-tests-$NEW.log 400 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU \
            tests/test_timeseries_reduction.py tests/test_ops_gpu.py
        TAIL=12 in_tree $NEW row-times.log 200 python $HERE/row_times.py 256 hydro mhd mhd+entropy
        TAIL=12 in_tree $NEW row-times.log 200 python $HERE/row_times.py 32 hydro mhd mhd+entropy
        TAIL=3 in_tree $NEW sweep-times.log 200 python $HERE/sweep_times.py 400
        COMMIT=$(cat /tmp/tryso/$NEW/COMMIT) ASTAROTH_BUILT=1 timeout 300 scripts/dynamo_onset_gpu.sh $OUT/notebook \
            > /dev/null 2>&1
        ;;
    walls)
        TAIL=8 in_tree $NEW gpu-tests-$NEW.log 400 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU \
            tests/test_timeseries_reduction.py tests/test_ops_gpu.py tests/test_diagnostics_during_run.py tests/test_sweep.py
        TAIL=6 in_tree $NEW split-gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf tests/test_mpi_gpu.py
        for t in $MAIN $NEW; do
            TAIL=8 in_tree $t row-times-walls.log 200 python $HERE/row_times_walls.py 32 hydro+entropy mhd+entropy
            TAIL=8 in_tree $t row-times-walls.log 200 python $HERE/row_times_walls.py 128 hydro+entropy mhd+entropy
        done
        TAIL=12 in_tree $NEW row-times.log 200 python $HERE/row_times.py 256 hydro mhd mhd+entropy
        ;;
    sided)
        TAIL=8 in_tree $NEW gpu-tests-$NEW.log 400 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU \
            tests/test_timeseries_reduction.py tests/test_ops_gpu.py
        TAIL=8 in_tree $NEW row-times-walls.log 200 python $HERE/row_times_walls.py 32 hydro+entropy mhd+entropy
        TAIL=8 in_tree $NEW row-times-walls.log 200 python $HERE/row_times_walls.py 128 hydro+entropy mhd+entropy
        ;;
    shear)
        TAIL=6 in_tree $NEW gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf \
            tests/test_timeseries_reduction.py tests/test_shear_gpu.py tests/test_ops_gpu.py
        for t in $MAIN $NEW; do
            TAIL=6 in_tree $t row-times-shear.log 200 python $HERE/row_times_shear.py 64 hydro mhd
        done
        ;;
    combine)
        TAIL=4 in_tree $NEW gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf \
            tests/test_timeseries_reduction.py
        for round in 1 2; do
            for t in $MAIN $NEW; do
                TAIL=12 in_tree $t row-times-combine.log 200 python $HERE/row_times.py 256 hydro mhd mhd+entropy
                TAIL=12 in_tree $t row-times-combine.log 200 python $HERE/row_times.py 32 hydro mhd
            done
        done
        ;;
    esac
done
