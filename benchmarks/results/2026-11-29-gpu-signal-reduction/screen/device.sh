#!/usr/bin/env bash
# Device calls for the screened CFL reduction, from the repository root, the
# trees prebuilt for the device's Python in .trees/try.tar.xz (see
# scripts/device-trees.sh): main (before), screen (the change) and mutant
# (the change with its threshold set above the largest estimate, a broken
# screen that the new test must catch).  PART selects what a call runs:
#   tests   the one-GPU suite and the new test on screen
#   mutant  the new test and run_rates.py on mutant
#   rates   run_rates.py 256 (sim.run against the fixed-dt step, the
#           reduction's GPU time) of main and screen, alternating
#   ncu     Nsight Compute of the MHD float32 reduction of TREES (default screen)
#   sweeps  bench --sweeps of main and screen (DTYPE, default float32)
set -uo pipefail
. scripts/device-trees.sh
RESULTS=benchmarks/results
PROFILE=$PWD/$RESULTS/2026-11-28-gpu-run-profile
ONE_GPU="tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py
 tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
device_start screen
case ${PART:-tests} in
tests)
    TAIL=6 in_tree screen gpu-tests-screen.log 400 python -m pytest -q -p no:cacheprovider -rf \
        tests/test_signal_screen_gpu.py $ONE_GPU
    ;;
rates)
    for round in 1 2; do
        for t in main screen; do
            TAIL=10 in_tree $t run-rates.log 200 python $PROFILE/run_rates.py 256 float32 float64
        done
    done
    ;;
mutant)
    TAIL=12 in_tree mutant screen-test-mutant.log 200 python -m pytest -q -p no:cacheprovider \
        tests/test_signal_screen_gpu.py
    TAIL=10 in_tree mutant run-rates-mutant.log 200 python $PROFILE/run_rates.py 256 float32 float64
    ;;
ncu)
    for t in ${TREES:-screen}; do
    {
        header $t "ncu --set full --kernel-name regex:signal_reduce --launch-skip 2 --launch-count 1 python reduce_once.py mhd float32"
        (cd /tmp/tryso/$t && PYTHONPATH=$PWD ncu --set full --kernel-name regex:signal_reduce --launch-skip 2 \
            --launch-count 1 -o "$OUT/ncu-signal-reduce-mhd-f32-$t" python $PROFILE/reduce_once.py mhd float32 \
            > /dev/null 2>&1)
        ncu --import "$OUT/ncu-signal-reduce-mhd-f32-$t.ncu-rep" --print-summary none --page details 2>&1 |
            grep -E "Duration|Registers Per|Issue Slots|Memory Throughput|DRAM Throughput|Executed Instructions |Achieved Occupancy|Warp Cycles Per Issued|Branch" | head -16
    } > "$OUT/ncu-signal-reduce-mhd-f32-$t.txt" 2>&1
    xz -9 "$OUT/ncu-signal-reduce-mhd-f32-$t.ncu-rep"
    done
    ;;
sweeps)
    for t in main screen; do
        TAIL=11 in_tree $t sweeps-${DTYPE:-float32}.log 280 python -m astaroth bench --backend cuda --sweeps \
            --physics all --sizes 32 64 256 --dtype ${DTYPE:-float32} --methods 55p
    done
    ;;
esac
