"""Build the optional compiled modules (`base/compiled.py` says what they are).

Every module in `COMPILED` is compiled by Cython from its own, unchanged Python source, with
the types declared in the `.pxd` file beside it where there is one (Python never reads them);
the `HELPERS` are Cython source with a Python twin in the module that uses them. A module whose
build fails (no C compiler, say) is skipped and runs as Python, with the same games (where a
module with declarations is missing, every module runs as Python: `base/compiled.py`).
`PLAYSTYLES_PURE_PYTHON=1 pip install -e .` skips the build altogether.
"""

import os

from setuptools import Extension, setup

COMPILED = (
    # the Tribes engine and what its scripts and heuristics read
    "games.tribes.actions",
    "games.tribes.state",
    "games.tribes.rules",
    "games.tribes.pieces",
    "games.tribes.combat",
    "games.tribes.scripts",
    "games.tribes.evaluators",
    "games.tribes.features",
    "games.tribes.hooks",
    "games.tribes.javarandom",
    # the membership test the engine and the agents share
    "games.sequences",
    # the search agents' inner loops
    "agents.search",
    "agents.tree",
    "agents.mcts",
    "agents.evaluators",
    "agents.portfolio.portfolio",
    "agents.portfolio.pmcts",
    "agents.portfolio.script",
)

HELPERS = (
    # compiled from Cython source, each with its Python twin in the module that uses it
    "agents._draw",  # agents.draw: numpy's integers, permutations, floats without Generator's overhead
)

# The source is plain Python, run as Python would run it: annotations are not C types, and
# Python's semantics of division and exceptions are kept.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


def extensions():
    if os.environ.get("PLAYSTYLES_PURE_PYTHON", "") == "1":
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # built without Cython: everything runs as Python
        return []
    # no debug information: a quarter of the size, which a Ray job ships to its cluster
    modules = [Extension(name, [name.replace(".", "/") + ".py"], optional=True,
                         extra_compile_args=["-g0"]) for name in COMPILED]
    modules += _helpers()
    built = cythonize(modules, compiler_directives=DIRECTIVES, quiet=True)
    for ext in built:  # cythonize makes new extensions and drops `optional`
        ext.optional = True
    return built


def _helpers() -> list:
    """The `HELPERS` extensions: they use numpy's random C API (its headers and its static
    library of distributions), so none without numpy."""
    try:
        import numpy
    except ImportError:
        return []
    lib = os.path.join(os.path.dirname(numpy.__file__), "random", "lib")
    return [Extension(name, [name.replace(".", "/") + ".pyx"], optional=True,
                      extra_compile_args=["-g0"], include_dirs=[numpy.get_include()],
                      library_dirs=[lib], libraries=["npyrandom"],
                      define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])
            for name in HELPERS]


if __name__ == "__main__":  # as setuptools runs it (tests import `extensions`)
    setup(ext_modules=extensions(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
