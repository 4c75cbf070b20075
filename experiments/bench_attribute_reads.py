"""Why compiling untyped source gains little on attribute-heavy code: the time of three
attribute reads in a loop, run by the interpreter, compiled by Cython from the same source,
and compiled with the object's type declared (a `.pxd`), printed as JSON.

    python experiments/bench_attribute_reads.py [--n 2000000]

It writes a small module and its `.pxd` to a temporary directory, compiles it there with
Cython (a C compiler and Cython are needed, as for `pip install -e .`), and times each loop
once per variant (nanoseconds per loop iteration, `time.perf_counter`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = '''
class D:
    def __init__(self):
        self.a = 1; self.b = 2; self.c = 3


class S:
    __slots__ = ("a", "b", "c")

    def __init__(self):
        self.a = 1; self.b = 2; self.c = 3


class C:
    def __init__(self):
        self.a = 1; self.b = 2; self.c = 3


def reads(o, n):
    for i in range(n):
        x = o.a; y = o.b; z = o.c
    return x


def reads_typed(o, n):
    for i in range(n):
        x = o.a; y = o.b; z = o.c
    return x
'''

DECLARATIONS = '''
cimport cython
cdef class C:
    cdef public object a, b, c
@cython.locals(i=Py_ssize_t)
cpdef reads_typed(C o, Py_ssize_t n)
'''

TIMER = '''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import {module} as m
n = int(sys.argv[2])
def t(f, o):
    t0 = time.perf_counter(); f(o, n); return round((time.perf_counter() - t0) / n * 1e9, 1)
print(json.dumps({{"class with an instance dict": t(m.reads, m.D()),
                  "class with __slots__": t(m.reads, m.S()),
                  "class C (an extension type where compiled)": t(m.reads, m.C()),
                  "class C, its type declared where compiled": t(m.reads_typed, m.C())}}))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "reads_py.py").write_text(SOURCE)
        (d / "reads_c.py").write_text(SOURCE)
        (d / "reads_c.pxd").write_text(DECLARATIONS)
        build = ("from setuptools import setup; from Cython.Build import cythonize; "
                 "setup(ext_modules=cythonize('reads_c.py', quiet=True, compiler_directives="
                 "{'language_level': 3, 'binding': True}), script_args=['build_ext', '--inplace', '-q'])")
        subprocess.run([sys.executable, "-c", build], cwd=d, check=True, capture_output=True)
        out = {}
        for label, module in (("interpreted", "reads_py"), ("compiled", "reads_c")):
            p = subprocess.run([sys.executable, "-c", TIMER.format(module=module), str(d),
                                str(args.n)], check=True, capture_output=True, text=True)
            out[label] = json.loads(p.stdout)
    print(json.dumps({"command": "python experiments/bench_attribute_reads.py",
                      "loop_iterations": args.n, "python": sys.version.split()[0],
                      "ns_per_iteration_three_reads": out}, indent=1))


if __name__ == "__main__":
    main()
