"""Store the fields of tests/bitwise_cases.py's runs: the bit-for-bit fixture.

    python scripts/make_bitwise_fixture.py cpu tests/data/bitwise_cpu.npz
    python scripts/make_bitwise_fixture.py cuda tests/data/bitwise_cuda.npz
    python scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz

Made once with the code before a change that must keep every bit; the
--compare form reruns the cases and reports each array that differs
(tests/test_bitwise.py does the same under pytest).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import bitwise_cases  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backend", choices=("cpu", "cuda"))
    parser.add_argument("path")
    parser.add_argument("--compare", action="store_true", help="compare with the stored fixture instead")
    args = parser.parse_args()
    fields = bitwise_cases.record(args.backend)
    if not args.compare:
        np.savez_compressed(args.path, **fields)
        print(f"wrote {len(fields)} arrays to {args.path}")
        return 0
    stored = np.load(args.path)
    differ = [k for k in stored.files if k not in fields or not np.array_equal(stored[k], fields[k])]
    for k in differ:
        err = np.max(np.abs(stored[k] - fields[k])) if k in fields else "missing"
        print(f"DIFFERS {k}: max |difference| {err}")
    print(f"{len(stored.files) - len(differ)} of {len(stored.files)} arrays identical bit for bit ({args.backend})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
