"""Dumps real CPython line tables and the interpreter's own answer for every instruction offset.

Run by python_line_table_test with each CPython on the machine. For a set of code objects
(compiled here from the source below: loops, long lines, big line gaps, try/except/with, nested
functions, generators, comprehensions, lambdas, a long straight-line body), prints:

  code <name> <sys.hexversion> <co_firstlineno> <line table as hex, '-' when empty>
  <offset> <line>      one per instruction offset (bytes), -1 where CPython has no line
  end

The table is co_lnotab on 3.9 and co_linetable from 3.10; lines come from the interpreter's
PyCode_Addr2Line (through ctypes), the function the collector's decoder must agree with.
"""
import ctypes
import sys

SOURCE = '''
def loop(xs):
    total = 0
    for x in xs:
        if x % 2:
            total += x
        else:
            total -= x
    return total


def long_line(a, b, c):
    return (a + b * c - a * b + c * a - b * c + a * a + b * b + c * c + a * b * c + (a - b) * (b - c) * (c - a) + a * 2 + b * 3 + c * 4 + a * 5 + b * 6 + c * 7 + a * 8 + b * 9 + c * 10 + a * 11 + b * 12 + c * 13 + a * 14 + b * 15 + c * 16 + a * 17 + b * 18 + c * 19 + a * 20 + b * 21 + c * 22 + a * 23 + b * 24 + c * 25 + a * 26 + b * 27 + c * 28 + a * 29 + b * 30 + c * 31 + a * 32 + b * 33 + c * 34 + a * 35 + b * 36 + c * 37 + a * 38)


def big_gap(x):
    y = x + 1
''' + '\n' * 300 + '''
    z = y * 2
''' + '\n' * 70 + '''
    return z


def handlers(path):
    try:
        with open(path) as f:
            data = f.read()
    except OSError as e:
        data = str(e)
    finally:
        path = None
    return data


def nested(n):
    def inner(k):
        return [i * k for i in range(k) if i % 3]
    return inner(n)


def gen(n):
    for i in range(n):
        yield i
        yield -i


def multi_line_call(a,
                    b):
    return max(
        a,
        b,
        a +
        b,
    )


def straight():
''' + ''.join('    v%d = %d\n' % (i, i) for i in range(200)) + '''    return v0


class Model:
    def forward(self, x):
        out = x
        while out > 1:
            out = out // 2
        return out

f = lambda q: (q,
               q * 2)
'''


def code_objects(code, prefix):
    yield prefix + code.co_name, code
    for const in code.co_consts:
        if isinstance(const, type(code)):
            yield from code_objects(const, prefix + code.co_name + '.')


def main():
    addr2line = ctypes.pythonapi.PyCode_Addr2Line
    addr2line.argtypes = [ctypes.py_object, ctypes.c_int]
    addr2line.restype = ctypes.c_int
    module = compile(SOURCE, 'train.py', 'exec')
    out = []
    for name, code in code_objects(module, ''):
        table = code.co_lnotab if sys.version_info < (3, 10) else code.co_linetable
        out.append('code %s %d %d %s' % (name, sys.hexversion, code.co_firstlineno,
                                             table.hex() or '-'))
        for offset in range(-2, len(code.co_code), 2):
            line = addr2line(code, offset)
            out.append('%d %d' % (offset, line))
        out.append('end')
    sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
