#!/usr/bin/env bash
# The device call of 2026-11-27 for the branch one-params: A = main (caef1b7,
# the checkout's root), B = this branch (89b92ef, `git archive` into
# .trees/op-export, carried); both built in /tmp.  Then the CUDA bit-for-bit
# fixture and every GPU test on B, and scripts/ab.py's terms, 19p and entropy
# rows on both.  Logs to $OUT.  ab-mhd.log: the MHD rows again, 5 rounds, on
# the same warm machine (AB_GROUPS=terms:mhd python3 scripts/ab.py 5 /tmp/a /tmp/b).
set -uo pipefail
ROOT=$PWD; OUT=${OUT:-/tmp/out}; mkdir -p $OUT
export PYTHONUNBUFFERED=1
hdr() { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"; echo "# date: $(date -u '+%F %T UTC')"; echo "# command: $*"; }
rm -rf /tmp/a /tmp/b; mkdir -p /tmp/a /tmp/b
(cd $ROOT && git ls-files -z | xargs -0 cp --parents -t /tmp/a) 2>/dev/null || cp -r $ROOT/. /tmp/a
cp -r $ROOT/.trees/op-export/. /tmp/b
t0=$(date +%s)
(cd /tmp/a && python3 setup.py build_ext --inplace > $OUT/build-a.log 2>&1) &
(cd /tmp/b && python3 setup.py build_ext --inplace > $OUT/build-b.log 2>&1) &
wait
echo "built in $(( $(date +%s) - t0 )) s"; ls /tmp/a/astaroth/_core*.so /tmp/b/astaroth/_core*.so
grep -h "error" /tmp/*/build*.log $OUT/build-*.log | head
{ hdr "make_bitwise_fixture.py cuda --compare (B)"; cd /tmp/b && PYTHONPATH=/tmp/b timeout 120 python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -5; } > $OUT/bitwise-cuda.log 2>&1; tail -1 $OUT/bitwise-cuda.log
{ hdr "AB_GROUPS=terms,19p,entropy scripts/ab.py 2 A B"; cd /tmp/b && AB_GROUPS=terms,19p,entropy timeout 170 python3 scripts/ab.py 2 /tmp/a /tmp/b 2>&1; } > $OUT/ab.log 2>&1; tail -22 $OUT/ab.log
{ hdr "pytest -q -m gpu (B)"; cd /tmp/b && PYTHONPATH=/tmp/b timeout ${TESTS_S:-200} python3 -m pytest -q -m gpu -p no:cacheprovider tests 2>&1 | grep -v excepthook | tail -30; } > $OUT/gpu-tests.log 2>&1; tail -3 $OUT/gpu-tests.log
