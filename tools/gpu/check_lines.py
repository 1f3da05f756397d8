"""What the acceptance's check scripts (labels_check.py, python_check.py, job_check.py) share: the
command line (`check REPORT ...` or `--self-test`) and how they print their verdicts: one
`ok`/`FAIL` line per check, then the `note` lines; the exit status they return.

Must never: print a check as ok that failed, or exit 0 when one did.
"""
import argparse
import sys


def check_parser(description, self_test):
    """With `--self-test`: runs `self_test` and returns None. Else a parser of `check REPORT`, to
    which the script adds its own options."""
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return None
    p = argparse.ArgumentParser(description=description)
    p.add_argument("command", choices=["check"])
    p.add_argument("report")
    return p


def print_results(results, notes=()):
    """Prints [(ok, message)] and notes; returns 0 when every check passed, else 1."""
    for ok, message in results:
        print(("ok   " if ok else "FAIL ") + message)
    for note in notes:
        print("note " + note)
    return 0 if all(ok for ok, _ in results) else 1
