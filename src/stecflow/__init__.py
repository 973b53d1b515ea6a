"""stecflow: run a shared-task evaluation campaign for referring expression generation.

Importing the package is cheap on purpose: it is imported at the start of every
Snakemake job, so heavy libraries (pandas, scipy, statsmodels) are imported only
inside the functions that need them.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
