"""Transitional: the modules ``campaign/config.py`` and ``rerun.py`` still import from
here, until they import them from their homes (:mod:`stecflow.analysis.specs`,
:mod:`stecflow.analysis.run`); import nothing new from this module.
"""

from __future__ import annotations

from stecflow.analysis.run import run_analysis
from stecflow.analysis.specs import analysis_specs

__all__ = ["analysis_specs", "run_analysis"]
