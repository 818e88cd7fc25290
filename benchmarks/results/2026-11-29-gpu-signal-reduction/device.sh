#!/usr/bin/env bash
# Device calls for the CFL reduction's instructions, from the repository
# root, the trees prebuilt for the device's Python in .trees/try.tar.xz (see
# scripts/device-trees.sh): main (before) and NEW (the change, default
# curl).  PART selects what a call runs:
#   tests   the one-GPU suite on NEW (SPLIT=1: and the split GPU tests)
#   rates   run_rates.py 256 (sim.run against the fixed-dt step, the
#           reduction's GPU time) of main and NEW, alternating, ROUNDS times
#   ncu     Nsight Compute of NEW's MHD float32 reduction
#   sweeps  bench --sweeps of main and NEW (DTYPE, default float32)
#   bench   the bench rows of main and NEW that the change may touch (shock
#           passes and forcing kernels read through AC_LOAD): --terms --physics all
set -uo pipefail
. scripts/device-trees.sh
PROFILE=$PWD/benchmarks/results/2026-11-28-gpu-run-profile
NEW=${NEW:-curl}
ONE_GPU="tests/test_cfl_reduction_gpu.py tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py
 tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
device_start $NEW
case ${PART:-tests} in
tests)
    TAIL=6 in_tree $NEW gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU
    [ "${SPLIT:-0}" = 1 ] && TAIL=6 in_tree $NEW split-gpu-tests-$NEW.log 300 python -m pytest -q \
        -p no:cacheprovider -rf tests/test_mpi_gpu.py
    ;;
rates)
    for round in $(seq ${ROUNDS:-2}); do
        for t in main $NEW; do
            TAIL=10 in_tree $t run-rates.log 200 python $PROFILE/run_rates.py 256 float32 float64
        done
    done
    ;;
ncu)
    {
        header $NEW "ncu --set full --kernel-name regex:signal_reduce --launch-skip 2 --launch-count 1 python reduce_once.py mhd float32"
        (cd /tmp/tryso/$NEW && PYTHONPATH=$PWD ncu --set full --kernel-name regex:signal_reduce --launch-skip 2 \
            --launch-count 1 -o "$OUT/ncu-signal-reduce-mhd-f32-$NEW" python $PROFILE/reduce_once.py mhd float32 \
            > /dev/null 2>&1)
        ncu --import "$OUT/ncu-signal-reduce-mhd-f32-$NEW.ncu-rep" --print-summary none --page details 2>&1 |
            grep -E "Duration|Registers Per|Issue Slots|Memory Throughput|DRAM Throughput|Executed Instructions |Achieved Occupancy|Warp Cycles Per Issued|Branch" | head -16
    } > "$OUT/ncu-signal-reduce-mhd-f32-$NEW.txt" 2>&1
    xz -9 "$OUT/ncu-signal-reduce-mhd-f32-$NEW.ncu-rep"
    ;;
sweeps)
    for t in main $NEW; do
        TAIL=11 in_tree $t sweeps-${DTYPE:-float32}.log 280 python -m astaroth bench --backend cuda --sweeps \
            --physics all --sizes 32 64 256 --dtype ${DTYPE:-float32} --methods 55p
    done
    ;;
bench)
    for t in main $NEW; do
        TAIL=14 in_tree $t bench-terms.log 280 python -m astaroth bench --backend cuda --sizes 256 --methods 55p \
            --terms --physics all
    done
    ;;
esac
