"""Runs unittest test modules and prints TAP, one line per test, so that
the Python tests of rfx (tests/t_python.sh) join the prove harness of
`make check`. A skipped test is "ok N # SKIP reason"; a failure or error
is "not ok N" with its traceback as "#" comment lines. The exit status is
0 when nothing failed.

    python3 tests/python/tap.py test_api test_sklearn   (from tests/python)
"""
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, test, status, extra=""):
        self.n += 1
        print("%s %d - %s%s" % (status, self.n, test.id(), extra), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, "ok")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, "ok", " # SKIP " + reason)

    def _fail(self, test, err):
        self._line(test, "not ok")
        for ln in self._exc_info_to_string(err, test).splitlines():
            print("#     " + ln)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._fail(subtest, err)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line(test, "not ok", " # expected failure is not allowed")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line(test, "not ok", " # unexpected success")


def main(names):
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    res = TapResult()
    suite.run(res)
    print("1..%d" % res.n)
    return 0 if res.wasSuccessful() and res.n > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
