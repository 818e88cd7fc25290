#!/usr/bin/env bash
# Fifth call, on 2 GPUs of one host: E (fc8f13a, main after this work)
# against F (E with ptxas fusing no multiply-add of its own, -Xptxas
# --fmad=false, and MHD+entropy float64 members sharing launches).  GPU 0:
# F's GPU bitwise fixture made again, how many of its arrays differ from the
# stored one, then F's GPU tests on it; GPU 1: the sweeps and bench rows, E
# then F; then F's split GPU tests on both.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
device_start F
( CUDA_VISIBLE_DEVICES=0 in_tree F fixture.log 120 python3 scripts/make_bitwise_fixture.py cuda "$OUT/bitwise_cuda.npz"
  CUDA_VISIBLE_DEVICES=0 TAIL=40 in_tree F fixture.log 30 python3 -c "
import numpy as np, sys
a, b = np.load('tests/data/bitwise_cuda.npz'), np.load(sys.argv[1])
differ = [k for k in a.files if not np.array_equal(a[k], b[k])]
for k in differ: print('DIFFERS', k, float(np.max(np.abs(a[k] - b[k]))))
print(len(a.files) - len(differ), 'of', len(a.files), 'arrays identical bit for bit')" "$OUT/bitwise_cuda.npz"
  cp "$OUT/bitwise_cuda.npz" /tmp/tryso/F/tests/data/bitwise_cuda.npz
  CUDA_VISIBLE_DEVICES=0 TAIL=25 in_tree F gpu-tests.log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py ) &
( for dtype in float64 float32; do for t in E F; do
      CUDA_VISIBLE_DEVICES=1 TAIL=11 in_tree $t sweeps-$dtype.log 100 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p
  done; done
  for args in "" "--physics all --energy entropy"; do for t in E F; do
      CUDA_VISIBLE_DEVICES=1 TAIL=14 in_tree $t bench.log 60 python3 -m astaroth bench --backend cuda --sizes 256 --methods 55p $args
  done; done ) &
wait
tail -n 45 "$OUT/fixture.log" | grep -E "identical|DIFFERS" | tail -12
tail -n 4 "$OUT/gpu-tests.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
grep -E "^# commit|astaroth cuda" "$OUT/bench.log"
TAIL=12 in_tree F gpu-tests-split.log 100 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
tail -n 2 "$OUT/gpu-tests-split.log"
