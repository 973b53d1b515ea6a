"""The deployment tests: the shipped nginx file, run by the real nginx on loopback.

They are marked ``deploy`` (registered here): ``pytest -m "not deploy"`` leaves
them out of a quick run; CI runs them (``.ci/run`` installs Debian's nginx).
"""

from __future__ import annotations

import pytest

# one headless chromium for the session, shared with the browser tests (skips,
# saying what to install, without chromium or playwright)
from tests.browser.conftest import browser  # noqa: F401


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "deploy: runs the shipped nginx file with the real nginx in front of a "
        "real stecflow serve on loopback (needs Debian's nginx; slower)",
    )
