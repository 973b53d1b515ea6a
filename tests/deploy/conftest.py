"""The deployment tests: the shipped nginx file, run by the real nginx on loopback.

They are marked ``deploy`` (pyproject.toml): ``pytest -m "not deploy"`` leaves
them out of a quick run; CI runs them (``.ci/run`` installs Debian's nginx). The
browser they drive is the session's one chromium (``browser``, tests/conftest.py).
"""
