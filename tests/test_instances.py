"""The ahead-of-time CUDA build holds the configurations that
csrc/cuda/instances.def lists, and those are every configuration the GPU
tests run (tests/test_configurations_gpu.py: the module sets with none,
either and both of hyperdiffusion and shock viscosity, two passive scalars
with none, the fluids with the Coriolis force, the shear, both, both with
hyperdiffusion, with shock viscosity and with both, the fluids with one scalar with the shear, both and both
with hyperdiffusion) -- no more, no fewer.  Read from the file's text, so that it holds on a machine without a
GPU."""
import itertools
import pathlib
import re

import test_configurations_gpu as gpu_tests

INSTANCES = pathlib.Path(__file__).parent.parent / "csrc" / "cuda" / "instances.def"
MODULES_OF = {("physics", "mhd"): {"MAGNETIC"}, ("energy", "entropy"): {"ENTROPY"},
              ("passive_scalar", 1): {"PSCALAR"}, ("passive_scalar", 2): {"PSCALAR", "PSCALAR2"}}
TERM_OF = {"nu_hyper3": "HYPER3", "nu_shock": "SHOCK", "omega": "CORIOLIS", "shear": "SHEAR"}


def listed_configurations():
    """(module set, kernel terms) of each row of instances.def, and the number of rows: each macro of
    module sets X(modules, terms) as AC_INSTANCES expands it with its kernel terms."""
    text = INSTANCES.read_text()
    groups = {}
    for name, body in re.findall(r"#define (AC_INSTANCE_MODULE_SETS\w*)\(X, terms\)((?:.*\\\n)*.*)", text):
        groups[name] = [frozenset(re.findall(r"AC_MODULE_(\w+)", m))
                        for m in re.findall(r"X\((AC_MODULE_HYDRO[^,]*), terms\)", body)]
    rows = [(m, frozenset(re.findall(r"AC_TERM_(\w+)", terms)))
            for name, terms in re.findall(r"^\s+(AC_INSTANCE_MODULE_SETS\w*)\(X, (.*)\)\s*\\?$", text, re.M)
            for m in groups[name]]
    return set(rows), len(rows)


def configurations_the_gpu_tests_run():
    configurations = set()
    for modules, terms in itertools.product(gpu_tests.MODULES, gpu_tests.TERMS):
        if gpu_tests.built(modules, terms):
            on = frozenset({"HYDRO"}.union(*(MODULES_OF.get(item, set()) for item in modules.items())))
            configurations.add((on, frozenset(TERM_OF[k] for k in gpu_tests.TERMS[terms])))
    return configurations


def test_the_build_holds_exactly_the_configurations_the_gpu_tests_run():
    built, rows = listed_configurations()
    assert rows == len(built) == 32 + 4 + 4 * 6 + 4 * 3  # no row twice
    assert built == configurations_the_gpu_tests_run()
