"""The HTTP layer under stecflow's web applications.

Everything a web application of stecflow needs of HTTP that is not its own
business: the production server (:mod:`~stecflow.serving.server`: waitress
with the connection limits, time-outs, request sizes and the trusted reverse
proxy), reading a request (:mod:`~stecflow.serving.request`: strict JSON
bodies, errors as answers, the client's address, per-address rate limits) and
static files (:mod:`~stecflow.serving.static`). The collection server of the
human studies (:mod:`stecflow.studies.server`) is built on it; so is any other
application that faces participants or teams. How it is deployed behind nginx:
``docs/deployment.md``.

May import: :mod:`stecflow.core`.
"""
