# SPDX-License-Identifier: MIT
# setup.py rather than pyproject.toml: without a [build-system] table Debian 12's pip (23.0.1,
# with python3-setuptools and python3-wheel) builds with the installed setuptools, so
# `pip install ./python` works offline; a pyproject.toml would make pip fetch setuptools from PyPI
# into an isolated build environment. Newer pips: add --no-build-isolation offline.
from setuptools import setup

setup(
    name="warpscope",
    version="0.1.0",
    description="Warpscope from Python: benchmark any CUDA callable into a session, mark capture ranges, "
    "read sessions as pandas DataFrames",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.9",
    packages=["warpscope", "warpscope.fleet"],
    entry_points={"console_scripts": ["warpscope-fleet = warpscope.fleet.__main__:main"]},
    # pandas (and numpy, which it brings) for warpscope.open and the correctness check; torch or
    # CuPy only where the caller already uses them, so they are not requirements.
    install_requires=["pandas>=1.3"],
)
