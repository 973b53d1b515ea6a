"""``python -m stecflow.studies.server {serve,export} STUDY [options]``."""

from stecflow.studies.server.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
