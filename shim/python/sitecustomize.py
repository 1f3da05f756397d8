"""brrr's sitecustomize: PyTorch's own annotations become brrr labels (issue 25).

`brrr run` puts this file's directory first on PYTHONPATH (BRRR_TORCH_ANNOTATIONS=0: not). When
`torch.autograd.profiler` is imported (by `import torch`), `record_function.__enter__` and
`__exit__` also push and pop a label in libbrrr.so (`brrr_label_push` / `brrr_label_pop`,
through ctypes), which brrr records as NVTX ranges: `with record_function("fwd")` becomes the
phase `fwd`, nested ones `fwd/attn`, and torch.profiler's `prof.step()` (a record_function named
`ProfilerStep#N`) a step, with no change to the program and no operator-level ranges. Then the
sitecustomize this one shadows, if any, runs as it would have.

Must never: change what the program sees (the originals run first on enter and last on exit, and
their results are returned; any failure here leaves torch as it was), import anything in a process
that does not import torch (ctypes included), or raise out of the program's own calls.
"""
import sys

_PROFILER = "torch.autograd.profiler"


def _label_functions():
    """libbrrr.so's brrr_label_push, brrr_label_pop and brrr_torch_annotations, or None outside a
    brrr run."""
    import ctypes

    try:
        lib = ctypes.PyDLL(None)  # keeps the GIL: each call is a few hundred ns shorter
        push, pop, status = lib.brrr_label_push, lib.brrr_label_pop, lib.brrr_torch_annotations
    except (AttributeError, OSError):
        return None
    push.argtypes, push.restype = [ctypes.c_char_p], ctypes.c_int
    pop.argtypes, pop.restype = [], ctypes.c_int
    status.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    status.restype = ctypes.c_int
    return push, pop, status


def _torch_version():
    version = getattr(sys.modules.get("torch"), "__version__", None)
    return str(version if version is not None else "unknown").encode("utf-8", "replace")


def _patch(module):
    functions = _label_functions()
    if functions is None:
        return
    push, pop, status = functions
    record_function = getattr(module, "record_function", None)
    enter = getattr(record_function, "__enter__", None)
    exit_ = getattr(record_function, "__exit__", None)
    if enter is None or exit_ is None:
        status(_torch_version(), 0, b"torch.autograd.profiler has no record_function to hook")
        return
    original_enter, original_exit = enter, exit_
    said = []  # the status goes with the first label (torch is fully imported by then)

    def __enter__(self):
        result = original_enter(self)
        try:
            if not said:
                said.append(True)
                status(_torch_version(), 1, None)
            push(str(self.name).encode("utf-8", "replace"))
        except Exception:  # a label lost, never the program's call
            pass
        return result

    def __exit__(self, *exc_info):
        try:
            pop()
        except Exception:
            pass
        return original_exit(self, *exc_info)

    __enter__.__wrapped__, __exit__.__wrapped__ = original_enter, original_exit
    record_function.__enter__, record_function.__exit__ = __enter__, __exit__


class _PatchingLoader:
    """Runs the real loader, then patches the module it made."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):  # get_source, get_filename, ...: the real loader's
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            _patch(module)
        except Exception:
            pass


class _ProfilerFinder:
    """Finds torch.autograd.profiler as the other finders do, with a patching loader."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != _PROFILER:
            return None
        for finder in sys.meta_path:
            if finder is cls or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _PatchingLoader(spec.loader)
                return spec
            if spec is not None:
                return spec
        return None


def _run_shadowed_sitecustomize():
    """The next sitecustomize on sys.path, past this file's directory, as site.py would run it."""
    import importlib.machinery
    import importlib.util
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


if _PROFILER in sys.modules:  # imported before us (a PYTHONSTARTUP, say): patch it now
    try:
        _patch(sys.modules[_PROFILER])
    except Exception:
        pass
else:
    sys.meta_path.insert(0, _ProfilerFinder)
_run_shadowed_sitecustomize()
