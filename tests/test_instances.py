"""The ahead-of-time CUDA build holds the configurations that
csrc/cuda/instances.def lists, and those are every configuration the GPU
tests run (tests/test_configurations_gpu.py: the module sets with none,
either and both kernel terms) -- no more, no fewer.  Read from the file's
text, so that it holds on a machine without a GPU."""
import itertools
import pathlib
import re

import test_configurations_gpu as gpu_tests

INSTANCES = pathlib.Path(__file__).parent.parent / "csrc" / "cuda" / "instances.def"
MODULE_OF = {("physics", "mhd"): "MAGNETIC", ("energy", "entropy"): "ENTROPY", ("passive_scalar", True): "PSCALAR"}
TERM_OF = {"nu_hyper3": "HYPER3", "nu_shock": "SHOCK"}


def listed_configurations():
    """(module set, kernel terms) of each row of instances.def, and the number of rows."""
    text = INSTANCES.read_text()
    module_sets = re.findall(r"X\((AC_MODULE_HYDRO[^,]*), terms\)", text)
    term_sets = [t for t in re.findall(r"^\s+AC_INSTANCE_MODULE_SETS\(X, (.*)\)\s*\\?$", text, re.M)]
    modules = [frozenset(re.findall(r"AC_MODULE_(\w+)", m)) for m in module_sets]
    terms = [frozenset(re.findall(r"AC_TERM_(\w+)", t)) for t in term_sets]
    return {(m, t) for m, t in itertools.product(modules, terms)}, len(modules) * len(terms)


def configurations_the_gpu_tests_run():
    configurations = set()
    for modules, terms in itertools.product(gpu_tests.MODULES, gpu_tests.TERMS.values()):
        on = frozenset({"HYDRO"} | {MODULE_OF[k, v] for k, v in modules.items() if (k, v) in MODULE_OF})
        configurations.add((on, frozenset(TERM_OF[k] for k in terms)))
    return configurations


def test_the_build_holds_exactly_the_configurations_the_gpu_tests_run():
    built, rows = listed_configurations()
    assert rows == len(built) == 32  # no row twice
    assert built == configurations_the_gpu_tests_run()
