#!/usr/bin/env bash
# Device calls for the CFL reduction streamed through shared memory, from
# the repository root, the trees prebuilt for the device's Python in
# .trees/try.tar.xz (scripts/device-trees.sh): MAIN (before, default
# main30) and NEW (the change, default ss1).  PARTS lists what a call runs,
# in order:
#   split   tests/test_mpi_gpu.py on MAIN (ranks sharing the one GPU)
#   tests   the one-GPU suite on NEW
#   rates   run_rates.py $SIZE (default 256: sim.run against the fixed-dt
#           step, the reduction's GPU time) of MAIN and NEW, alternating,
#           ROUNDS times
#   uneven  the new test of members on uneven grids, on NEW (this
#           checkout's tests/test_ensemble.py copied into the tree)
#   sweeps  bench --sweeps of MAIN and NEW (DTYPE, default float32)
#   bench   bench rows of MAIN and NEW at 256^3 (BENCH_ARGS, default --terms --physics all)
#   ncu-members  Nsight Compute of the members' reduction (16 x 64^3 MHD
#           float32, members_once.py) on MAIN and NEW
set -uo pipefail
. scripts/device-trees.sh
PROFILE=$PWD/benchmarks/results/2026-11-28-gpu-run-profile
HERE=$PWD/benchmarks/results/2026-11-29-gpu-signal-stream
MAIN=${MAIN:-main30}
NEW=${NEW:-ss1}
ONE_GPU="tests/test_cfl_reduction_gpu.py tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py
 tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
device_start $NEW
for part in ${PARTS:-tests}; do
    case $part in
    split)
        TAIL=6 in_tree $MAIN split-gpu-tests-$MAIN.log 300 python -m pytest -q -p no:cacheprovider -rf \
            tests/test_mpi_gpu.py
        ;;
    tests)
        TAIL=6 in_tree $NEW gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU
        ;;
    rates)
        for round in $(seq ${ROUNDS:-2}); do
            for t in $MAIN $NEW; do
                TAIL=10 in_tree $t run-rates${SIZE:+-$SIZE}.log 200 python $PROFILE/run_rates.py ${SIZE:-256} float32 float64
            done
        done
        ;;
    uneven)
        cp tests/test_ensemble.py /tmp/tryso/$NEW/tests/
        TAIL=4 in_tree $NEW uneven-tests-$NEW.log 200 python -m pytest -q -p no:cacheprovider -rf \
            tests/test_ensemble.py -k "uneven or every_device_loop"
        ;;
    sweeps)
        for t in $MAIN $NEW; do
            TAIL=11 in_tree $t sweeps-${DTYPE:-float32}.log 280 python -m astaroth bench --backend cuda --sweeps \
                --physics all --sizes 32 64 256 --dtype ${DTYPE:-float32} --methods 55p
        done
        ;;
    bench)
        for t in $MAIN $NEW; do
            TAIL=30 in_tree $t bench.log 280 python -m astaroth bench --backend cuda --sizes 256 --methods 55p \
                ${BENCH_ARGS:---terms --physics all}
        done
        ;;
    ncu-members)
        # the members' reduction of 16 x 64^3 MHD float32, and on MAIN its ghost fill before it
        for t in $MAIN $NEW; do
            {
                header $t "ncu --set full --kernel-name regex:'signal_members|fill_faces_members' --launch-skip 4 --launch-count 2 python members_once.py 64 16 float32"
                (cd /tmp/tryso/$t && PYTHONPATH=$PWD ncu --set full --kernel-name regex:'signal_members|fill_faces_members' \
                    --launch-skip 4 --launch-count 2 -o "$OUT/ncu-members-mhd64-f32-$t" \
                    python $HERE/members_once.py 64 16 float32 > /dev/null 2>&1)
                ncu --import "$OUT/ncu-members-mhd64-f32-$t.ncu-rep" --print-summary none --page details 2>&1 |
                    grep -E "^  [a-z_]+members|Duration|Registers Per|Issue Slots|Memory Throughput|DRAM Throughput|Executed Instructions |Achieved Occupancy|Warp Cycles Per Issued" | head -24
            } > "$OUT/ncu-members-mhd64-f32-$t.txt" 2>&1
            xz -9 "$OUT/ncu-members-mhd64-f32-$t.ncu-rep"
        done
        ;;
    esac
done
