# SPDX-License-Identifier: GPL-2.0
"""tapcheck - the "ok"/"not ok" lines of tools/bench's host-side tests.

make check's bench step counts each line as a case (tools/testing/check).
"""


class Checks:
    """Print a TAP line per check; a failed one with the last lines of what
    the checked program said, each after "#   "."""

    def __init__(self):
        self.failed = 0

    def __call__(self, ok, what, out=''):
        print(f'{"ok" if ok else "not ok"} - {what}')
        if not ok:
            self.failed += 1
            for line in out.splitlines()[-20:]:
                print(f'#   {line}')

    def status(self):
        """The test's exit status: 1 if a check failed."""
        return 1 if self.failed else 0
