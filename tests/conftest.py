import pytest

import astaroth as ac


def pytest_collection_modifyitems(config, items):
    """GPU tests (marker `gpu`) skip cleanly where no CUDA GPU is usable."""
    if "cuda" in ac.backends():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU or CUDA backend in this build")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
