"""A LAVA instance of a test's own on this machine: a server in a database
of its own (a PostgreSQL cluster in a temporary folder), its scheduler, and
N workers with a QEMU device each. Everything it starts is stopped and its
folders removed when the context ends; the machine's own LAVA (if any) is
not touched. Needs lava-server, lava-dispatcher and lavacli (make deps-lava)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from conftest import free_port, postgres_cluster


class LocalLava:
    def __init__(self, home, db_url):
        self.home, self.procs = home, []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        db = urllib.parse.urlsplit(db_url)
        # settings from the environment are read last: they win over the
        # machine's /etc/lava-server/settings.d (its own database)
        databases = {"default": {"ENGINE": "django.db.backends.postgresql",
                                 "NAME": db.path.lstrip("/"), "USER": db.username,
                                 "HOST": db.hostname, "PORT": db.port}}
        self.env = {**os.environ, "HOME": str(home),
                    "LAVA_YAML_SETTINGS_DATABASES": json.dumps(databases),
                    "LAVA_SETTINGS_SECRET_KEY": "mapbench-test",
                    "LAVA_SETTINGS_MEDIA_ROOT": str(home / "media"),
                    "ALLOWED_HOSTS": "127.0.0.1"}

    def up(self, workers):
        self.manage("migrate", "--no-input")
        self.manage("users", "add", "--superuser", "--staff", "--passwd", "mapbench", "mapbench")
        self.token = self.manage("tokens", "add", "--user", "mapbench").strip().splitlines()[-1]
        self.start("server", ["gunicorn3", "lava_server.wsgi", "--bind", f"127.0.0.1:{self.port}",
                              "--worker-class", "eventlet", "--timeout", "300"])
        self.start("scheduler", ["lava-server", "manage", "lava-scheduler"])
        self.wait(lambda: self.api("system/version/"), "the server to answer")
        self.lavacli("identities", "add", "--uri", f"{self.url}RPC2", "--username", "mapbench",
                     "--token", self.token, "test", identity=False)
        self.lavacli("device-types", "add", "qemu")
        self.devices = [f"qemu-{n}" for n in range(1, workers + 1)]
        for n, device in enumerate(self.devices, 1):
            self.add_worker(f"worker-{n}", device)
        self.wait(lambda: all(self.api(f"devices/{d}/")["state"] == "Idle" for d in self.devices),
                  "the devices to be idle")

    def manage(self, *args):
        return self.run(["lava-server", "manage", *args])

    def lavacli(self, *args, identity=True):
        return self.run(["lavacli", *(["-i", "test"] if identity else []), *args])

    def run(self, argv):
        proc = subprocess.run(argv, env=self.env, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(argv[:4])}: {proc.stderr.strip()[-500:]}")
        return proc.stdout

    def start(self, name, argv):
        log = open(self.home / f"{name}.log", "w")
        self.procs.append(subprocess.Popen(argv, env=self.env, stdout=log, stderr=log,
                                           stdin=subprocess.DEVNULL, start_new_session=True))
        log.close()

    def add_worker(self, worker, device):
        self.lavacli("workers", "add", worker)
        self.lavacli("devices", "add", "--type", "qemu", "--worker", worker, device)
        dictionary = self.home / f"{device}.jinja2"
        dictionary.write_text("{% extends 'qemu.jinja2' %}\n")
        self.lavacli("devices", "dict", "set", device, str(dictionary))
        self.lavacli("devices", "update", "--health", "GOOD", device)
        token = next(line.split(":", 1)[1].strip()
                     for line in self.lavacli("workers", "show", worker).splitlines()
                     if line.startswith("token"))
        (self.home / worker).mkdir()
        self.start(worker, ["lava-worker", "--name", worker, "--url", self.url, "--token", token,
                            "--worker-dir", str(self.home / worker)])

    def api(self, path, data=None):
        """GET path, or POST data (JSON) to it; the answer."""
        req = urllib.request.Request(f"{self.url}api/v0.2/{path}",
                                     data=None if data is None else json.dumps(data).encode(),
                                     headers={"Authorization": f"Token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def set_health(self, device, health):
        self.lavacli("devices", "update", "--health", health, device)

    def jobs(self):
        return self.api("jobs/?limit=1000")["results"]

    @staticmethod
    def wait(ready, what, limit=120):
        deadline = time.monotonic() + limit
        while True:
            try:
                if ready():
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {limit} s for {what}")
            time.sleep(1)

    def stop(self):
        """Every process it started, and theirs (QEMU under a worker's lava-run)."""
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@contextmanager
def local_lava(workers=2):
    home = Path(tempfile.mkdtemp(prefix="mapbench-lava-"))
    try:
        with postgres_cluster("lava") as db_url:
            lab = LocalLava(home, db_url)
            try:
                lab.up(workers)
                yield lab
            finally:
                lab.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)
