"""A real Redis server for the tests that need one, started on 127.0.0.1 only.

``redis-server`` is installed from Debian's packages when missing (``apt-get install -y
redis-server`` as root; ``apt-get update`` first when the package is not known); a test that
uses the ``redis_url`` fixture skips, saying why, where that cannot be done.  The Python client
is the ``redis`` package (the ``redis`` optional extra of pyproject.toml).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest


def _install_redis_server() -> str:
    exe = shutil.which("redis-server")
    if exe:
        return exe
    if not shutil.which("apt-get"):
        pytest.skip("redis-server is not installed and there is no apt-get to install it")
    if os.geteuid() != 0:
        pytest.skip("redis-server is not installed and installing it needs root (apt-get install redis-server)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "redis-server"]
    try:
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:  # an empty or old package list: update it once
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600)
            done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot install redis-server: {e}")
    exe = shutil.which("redis-server") or ("/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None)
    if done.returncode != 0 or exe is None:
        pytest.skip(f"cannot install redis-server: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return exe


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = pytest.importorskip("redis", reason="the redis client: pip install 'stablehlo-conformance[redis]'")
    exe = _install_redis_server()
    port = _free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                               "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None:
                    pytest.skip(f"redis-server exited with {server.returncode}")
                time.sleep(0.05)
        else:
            pytest.skip("redis-server did not answer within 5 s")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
