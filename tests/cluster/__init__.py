"""Tests that run the workflow on a real, one-node SLURM cluster started on the spot."""
