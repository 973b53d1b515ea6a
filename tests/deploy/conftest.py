"""The deployment tests: the shipped nginx file, run by the real nginx on loopback.

They are marked ``deploy`` (pyproject.toml): ``pytest -m "not deploy"`` leaves
them out of a quick run; CI runs them (``.ci/run`` installs Debian's nginx).
"""

from __future__ import annotations

# one headless chromium for the session, shared with the browser tests (skips,
# saying what to install, without chromium or playwright)
from tests.browser.conftest import browser  # noqa: F401
