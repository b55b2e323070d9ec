"""Shared pytest fixtures.

``uci_dir``      the offline copy of the UCI archive (``/work/shared/uci`` next to the repo, or
                 ``$MCBOOST_TEST_UCI_DIR``); tests that need it are skipped when it is absent
``uci_mirror``   that folder served over loopback HTTP for the whole session; yields its base URL
``data_home``    a fresh, empty cache root for one test
``serve``        start a loopback HTTP server with a given request handler class (stopped at
                 the end of the test); returns its base URL
(autouse)        every test gets its own empty ``MCBOOST_DATA`` and no ``MCBOOST_MIRROR``, so no
                 test reads or fills the user's real cache or follows the user's mirror setting
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

DEFAULT_UCI_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "uci"


class _QuietServer(ThreadingHTTPServer):
    """Threaded loopback server that does not print tracebacks of aborted connections.

    Failure-injection handlers close sockets on purpose and clients give up on slow servers,
    so ``BrokenPipeError`` and friends in a handler thread are expected noise.
    """

    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class QuietHandler(SimpleHTTPRequestHandler):
    """Static-file handler without per-request logging on stderr."""

    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def http_server(handler: type[BaseHTTPRequestHandler]):
    """Serve ``handler`` on 127.0.0.1 (free port) in a daemon thread; yield the base URL."""
    server = _QuietServer(("127.0.0.1", 0), handler)
    # A short poll interval makes shutdown() return quickly (default 0.5 s per server).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                              name="test-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def uci_dir() -> Path:
    """The offline UCI archive copy; skips the test when it is not on this machine."""
    folder = Path(os.environ.get("MCBOOST_TEST_UCI_DIR") or DEFAULT_UCI_DIR)
    if not folder.is_dir():
        pytest.skip(f"no UCI mirror folder at {folder}; set MCBOOST_TEST_UCI_DIR")
    return folder


@pytest.fixture(scope="session")
def uci_mirror(uci_dir: Path):
    """Base URL (``http://127.0.0.1:PORT/``) of a loopback HTTP server serving ``uci_dir``."""
    handler = functools.partial(QuietHandler, directory=str(uci_dir))
    with http_server(handler) as url:
        yield url


@pytest.fixture
def serve():
    """Factory: ``url = serve(HandlerClass)`` starts a loopback server for this test."""
    with contextlib.ExitStack() as stack:
        yield lambda handler: stack.enter_context(http_server(handler))


@pytest.fixture
def data_home(tmp_path: Path) -> Path:
    """A fresh, empty cache root."""
    path = tmp_path / "data_home"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _isolated_dataset_env(tmp_path_factory, monkeypatch):
    # Never touch the user's cache nor follow the user's mirror: a test that wants either sets
    # it explicitly (monkeypatch.setenv after this fixture has run).
    monkeypatch.setenv("MCBOOST_DATA", str(tmp_path_factory.mktemp("mcboost_data")))
    monkeypatch.delenv("MCBOOST_MIRROR", raising=False)
