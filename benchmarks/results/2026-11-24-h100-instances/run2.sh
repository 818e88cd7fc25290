#!/usr/bin/env bash
# Device call 2 (after run1.sh, same machine): interleaved A/B at 256^3 of the base 8a8e381 (A),
# this tree (B) and schedule variants C, D (variants.py) over `bench --terms --physics all` and
# the plain 19p rows; then the entropy rows of B and variants C, D, E.  Logs to $OUT.
set -u
ROOT=$PWD
COMMIT=${COMMIT:-unknown}
hdr() { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"; echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "# commit: $1"; echo "# command: $2"; }
V=$ROOT/build/variants
{ hdr "A = 8a8e381, B = $COMMIT, C, D = $COMMIT + variants C, D (variants.py)" "AB_GROUPS=terms,19p python scripts/ab.py 3 .trees/base-tree . build/variants/C build/variants/D"; AB_GROUPS=terms,19p timeout 330 python scripts/ab.py 3 $ROOT/.trees/base-tree $ROOT $V/C $V/D 2>&1; } > $OUT/ab-terms.log
tail -17 $OUT/ab-terms.log
{ hdr "B = $COMMIT, C, D, E = $COMMIT + variants (variants.py)" "AB_GROUPS=entropy python scripts/ab.py 3 . build/variants/C build/variants/D build/variants/E"; AB_GROUPS=entropy timeout 150 python scripts/ab.py 3 $ROOT $V/C $V/D $V/E 2>&1; } > $OUT/ab-entropy.log
tail -6 $OUT/ab-entropy.log
{ hdr $COMMIT "python -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256"; PYTHONPATH=$ROOT timeout 90 python -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 2>&1 | tail -12; } > $OUT/bench-entropy.log 2>&1
tail -8 $OUT/bench-entropy.log
{ hdr $COMMIT "ASTAROTH_FIGURES=\$OUT python scripts/run_notebook.py notebooks/sod_and_heating.ipynb \$OUT/sod_and_heating.ipynb"; s=$SECONDS; ASTAROTH_FIGURES=$OUT PYTHONPATH=$ROOT timeout 240 python scripts/run_notebook.py notebooks/sod_and_heating.ipynb $OUT/sod_and_heating.ipynb 2>&1 | tail -5; echo "seconds $((SECONDS - s))"; } > $OUT/notebook-heating.log 2>&1
tail -3 $OUT/notebook-heating.log
