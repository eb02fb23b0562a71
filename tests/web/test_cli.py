"""``sly-scout serve`` as a user starts it: a real process, real HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest

from sly_scout_env.agents.ui.web.cli import is_loopback

from .conftest import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def serve(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "sly_scout_env.agents", "serve", "--state-dir", str(tmp_path), *args]
    return subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def wait_up(url, proc):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            return httpx.get(url + "/api/setup", timeout=2)
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError("sly-scout serve did not answer")


@pytest.mark.parametrize("host,warned", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_serve_binds_loopback_by_default_and_warns_otherwise(tmp_path, host, warned):
    port = free_port()
    args = ["--port", str(port)] + ([] if host == "127.0.0.1" else ["--host", host])
    proc = serve(tmp_path, *args)
    try:
        assert wait_up(f"http://127.0.0.1:{port}", proc).status_code == 200
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
        assert page.status_code == 200 and "/static/app.js" in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/static/scout.js", timeout=5).status_code == 200
    finally:
        proc.terminate()
        err = proc.communicate(timeout=20)[1]
    assert f"http://127.0.0.1:{port}/" in err
    assert ("WARNING: bound to 0.0.0.0" in err) == warned, err


def test_serve_refuses_a_bad_checkpoint_argument(tmp_path):
    proc = serve(tmp_path, "--checkpoint", "strong")
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 2 and "NAME=BOT:PATH" in err


def test_is_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.org")


def test_serve_refuses_foreign_hosts_and_cross_site_posts(tmp_path):
    """The two attacks on the real process: a page of another site posting a game as
    text/plain (used to give 201) and a request for another host name (used to give 200)."""
    port = free_port()
    proc = serve(tmp_path, "--port", str(port), "--allow-host", "mybox.lan")
    url = f"http://127.0.0.1:{port}"
    try:
        wait_up(url, proc)
        body = '{"game": "sly", "players": 2, "bots": ["random"]}'
        r = httpx.post(url + "/api/games", content=body,
                       headers={"Content-Type": "text/plain", "Origin": "http://evil.example.com"}, timeout=10)
        assert r.status_code == 403
        r = httpx.get(url + "/", headers={"Host": "evil.example.com"}, timeout=10)
        assert r.status_code == 400 and "sly-scout" not in r.text
        assert httpx.get(url + "/api/games", timeout=10).json()["games"] == []
        assert httpx.get(url + "/", headers={"Host": f"mybox.lan:{port}"}, timeout=10).status_code == 200
        r = httpx.post(url + "/api/games", content=body, headers={"Content-Type": "application/json"}, timeout=30)
        assert r.status_code == 201
        assert "content-security-policy" in r.headers
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
