"""Fault scenarios for brrr's Python frame capture, one per sub-command, run under `brrr run` by
python_e2e_test.py. Each exits with a status of its own so the test can see it pass through.

  finalize SLEEP_S   a daemon thread blocked in synchronize() (the GIL released) while the main
                     thread exits with status 3 and the interpreter finalizes around it
  cpp_thread K       K launches and a device sync from a std::thread with no Python state; then a
                     D2H stall from Python for contrast; exit 0
  gc N               N generations of exec-compiled functions, each stalling once and then deleted
                     and collected before the next is compiled (code objects freed between
                     capture and resolution, their addresses free for reuse); exit 0
  fork               a D2H stall, os.fork() (the child runs Python only, no CUDA, and exits 0), the
                     parent checks the child's status, stalls again, exits with status 4

The lines the test expects are marked `# STALL:...` / `# CALL:...`; exec-compiled functions put
their stall on line GENERATION + 3 of file gc_gen_GENERATION.py.

Must never: make CUDA calls in a forked child, or call CUDA anywhere other than the marked lines
and the launches and allocations that feed them.
"""
import gc
import os
import sys
import threading
import time

import minitorch as mt


def finalize(sleep_s):
    buf = mt.alloc(256)
    mt.launch_add(buf)
    threading.Thread(target=mt.synchronize, daemon=True).start()
    time.sleep(sleep_s)
    return 3


def stall_in_python(buf):
    mt.launch_add(buf)
    mt.item(buf)  # STALL:python_thread


def cpp_thread(launches):
    buf = mt.alloc(256)
    mt.run_in_cpp_thread(buf, launches)  # CALL:cpp_thread
    stall_in_python(buf)
    return 0


GENERATION_SOURCE = """{padding}def stall_gen_{i}(mt, buf):
    mt.launch_add(buf)
    return mt.item(buf)
"""


def run_generation(i, buf):
    namespace = {}
    code = compile(GENERATION_SOURCE.format(padding="\n" * i, i=i), "gc_gen_%d.py" % i, "exec")
    exec(code, namespace)
    namespace["stall_gen_%d" % i](mt, buf)  # CALL:generation


def collected_generations(generations):
    buf = mt.alloc(256)
    for i in range(generations):
        run_generation(i, buf)
        gc.collect()
    return 0


def item_before_fork(buf):
    mt.launch_add(buf)
    mt.item(buf)  # STALL:before_fork


def item_after_fork(buf):
    mt.launch_add(buf)
    mt.item(buf)  # STALL:after_fork


def forked():
    buf = mt.alloc(256)
    item_before_fork(buf)
    pid = os.fork()
    if pid == 0:
        # The child: Python only, then a normal interpreter exit (atexit handlers run).
        sum(range(1000))
        sys.stdout.flush()
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        print("child status", status)
        return 9
    item_after_fork(buf)
    return 4


def main(argv):
    scenario = argv[1]
    if scenario == "finalize":
        return finalize(float(argv[2]))
    if scenario == "cpp_thread":
        return cpp_thread(int(argv[2]))
    if scenario == "gc":
        return collected_generations(int(argv[2]))
    if scenario == "fork":
        return forked()
    print("unknown scenario", scenario)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
