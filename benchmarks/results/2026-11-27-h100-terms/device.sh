#!/usr/bin/env bash
# The device calls of 2026-11-27 (the term table, the CFL step in C): this
# tree (B) against main before the change (A, 74dd058, carried as
# .trees/base-tree and built in /tmp/base).  Logs to $OUT.
#   build:  both builds side by side, then every GPU test of this tree
#   ab:     scripts/ab.py (terms, 19p, entropy rows at 256^3) and the walls bench, both trees
#   sweeps: `astaroth bench --sweeps` and sim.run rates of every physics (rates.py), both trees, interleaved
#   hydro:  both builds, the GPU tests of this tree, scripts/ab.py's hydro rows (terms:hydro, 19p) and the sweeps
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
HERE=benchmarks/results/2026-11-27-h100-terms
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: A = 74dd058 (/tmp/base), B = ${COMMIT:-unknown} ($ROOT)"
    echo "# command: $*"
}
case "$1" in
build)
    rm -rf /tmp/base && cp -r .trees/base-tree /tmp/base
    { header "python3 setup.py build_ext --inplace (A and B side by side)"
      (cd /tmp/base && python3 setup.py build_ext --inplace > /tmp/base-build.log 2>&1) &
      python3 setup.py build_ext --inplace 2>&1 | grep -E "error|ptxas info.*signal_reduce|bytes stack" | head -40
      wait
      ls astaroth/_core*.so >/dev/null 2>&1 || python3 setup.py build_ext --inplace > "$OUT/build-b.log" 2>&1
      grep -E "error" /tmp/base-build.log | head
      ls -l astaroth/_core*.so /tmp/base/astaroth/_core*.so; } > "$OUT/build.log" 2>&1
    { header "pytest -q -m gpu (B)"
      PYTHONPATH=$ROOT timeout 420 python3 -m pytest -q -m gpu -p no:cacheprovider 2>&1 | tail -25; } > "$OUT/gpu-tests.log" 2>&1
    tail -5 "$OUT/gpu-tests.log" ;;
ab)
    { header "AB_GROUPS=terms,19p,entropy python3 scripts/ab.py 2 /tmp/base $ROOT"
      AB_GROUPS=terms,19p,entropy timeout 400 python3 scripts/ab.py 2 /tmp/base "$ROOT" 2>&1; } > "$OUT/ab.log" 2>&1
    for tree in /tmp/base "$ROOT"; do
        { header "python3 -m astaroth bench --backend cuda --walls --sizes 256 (in $tree)"
          (cd "$tree" && PYTHONPATH=$tree timeout 80 python3 -m astaroth bench --backend cuda --walls --sizes 256 2>&1 | tail -8); } >> "$OUT/bench-walls.log" 2>&1
    done
    cat "$OUT/ab.log" | tail -25 ;;
sweeps)
    for round in $(seq "${ROUNDS:-1}"); do
        for tree in /tmp/base "$ROOT"; do
            { header "python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p (in $tree, round $round)"
              (cd "$tree" && PYTHONPATH=$tree timeout 100 python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p 2>&1 | tail -9); } >> "$OUT/sweeps.log" 2>&1
            { header "python3 $HERE/rates.py (in $tree, round $round)"
              (cd "$tree" && PYTHONPATH=$tree timeout 100 python3 "$ROOT/$HERE/rates.py" 2>&1); } >> "$OUT/rates.log" 2>&1
        done
    done
    tail -40 "$OUT/rates.log" ;;
hydro)
    "$0" build
    { header "AB_GROUPS=terms:hydro,19p python3 scripts/ab.py 2 /tmp/base $ROOT"
      AB_GROUPS=terms:hydro,19p timeout 200 python3 scripts/ab.py 2 /tmp/base "$ROOT" 2>&1; } > "$OUT/ab-hydro.log" 2>&1
    for tree in /tmp/base "$ROOT"; do
        { header "python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p (in $tree)"
          (cd "$tree" && PYTHONPATH=$tree timeout 100 python3 -m astaroth bench --backend cuda --sweeps --dtype float32 --methods 55p 2>&1 | tail -9); } >> "$OUT/sweeps-hydro.log" 2>&1
    done
    tail -12 "$OUT/ab-hydro.log" ;;
esac
