"""How the acceptance's check scripts (labels_check.py, python_check.py, job_check.py) print their
verdicts: one `ok`/`FAIL` line per check, then the `note` lines; the exit status they return.

Must never: print a check as ok that failed, or exit 0 when one did.
"""


def print_results(results, notes=()):
    """Prints [(ok, message)] and notes; returns 0 when every check passed, else 1."""
    for ok, message in results:
        print(("ok   " if ok else "FAIL ") + message)
    for note in notes:
        print("note " + note)
    return 0 if all(ok for ok, _ in results) else 1
