"""A LAVA lab of one's own, in one folder: a PostgreSQL cluster (LAVA's
database, and one for the history's store), the server (gunicorn), its
scheduler, and N QEMU workers on this machine; workers on other machines
join it with the command up() gives for each. up() records every process
it starts (pid and start time) in FOLDER/lab.json, and down() stops those
and nothing else. The machine's own LAVA settings are never touched: the
server's come from the environment. Needs lava-server, lava-dispatcher and
lavacli (make deps-lava) and PostgreSQL 15 (make deps), and root (the
cluster runs as the postgres user)."""
import json
import os
import shutil
import signal
import socket
import subprocess  # processes of their own: PostgreSQL, LAVA's servers
import time
import urllib.parse
import urllib.request
from pathlib import Path

from ..cli import EXIT_INPUT, EXIT_LAB
from ..model import InputError

PG_BIN = Path("/usr/lib/postgresql/15/bin")
RECORD = "lab.json"
NEEDED = {"lava-server": "lava-server", "lava-worker": "lava-dispatcher",
          "lavacli": "lavacli", "gunicorn3": "gunicorn"}
USER = "mapbench"
IDENTITY = "mapbench-lab"       # lavacli's name for the lab's server and token
AS_PG = ["runuser", "-u", "postgres", "--"]


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def started(pid):
    """A process's start time (clock ticks since boot), or None when there
    is no such process: with the pid, what tells it from a later one."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


class Postgres:
    """A PostgreSQL 15 cluster in folder, trusting 127.0.0.1 at its port."""

    def __init__(self, folder, port):
        self.folder, self.port = Path(folder), port

    def start(self, databases):
        if os.geteuid() != 0 or not (PG_BIN / "initdb").exists():
            raise InputError("a lab's database needs root and PostgreSQL 15: run make deps as "
                             "root", EXIT_INPUT)
        self.folder.mkdir(parents=True)
        if subprocess.run(AS_PG + ["test", "-x", str(self.folder.parent)]).returncode:
            raise InputError(f"the postgres user cannot reach {self.folder.parent} (a folder on "
                             "the way is not open to others): give a folder it can reach",
                             EXIT_INPUT)
        shutil.chown(self.folder, "postgres")
        data = self.folder / "data"
        pg(["initdb", "-D", str(data), "-A", "trust"])
        pg(["pg_ctl", "-D", str(data), "-w", "-l", str(self.folder / "log"), "-o",
            f"-k {self.folder} -c listen_addresses=127.0.0.1 -p {self.port}", "start"])
        for db in databases:
            pg(["createdb", "-h", "127.0.0.1", "-p", str(self.port), db])

    def url(self, db):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def stop(self):
        """Stopped, if it runs; True if it did."""
        data = self.folder / "data"
        if not (data / "postmaster.pid").exists():
            return False
        subprocess.run(AS_PG + [str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-m", "fast",
                                "stop"], capture_output=True)
        return True


def pg(argv):
    proc = subprocess.run(AS_PG + [str(PG_BIN / argv[0]), *argv[1:]], capture_output=True,
                          text=True)
    if proc.returncode:
        raise InputError(f"PostgreSQL's {argv[0]} failed: {proc.stderr.strip()[-300:]}")


class Lab:
    """A lab as its record says: its server's URL and token, its processes,
    its workers; the server's API and lavacli on its identity."""

    def __init__(self, folder, record):
        self.folder, self.record = Path(folder), record
        self.url, self.token = record["url"], record["token"]
        self.devices = [w["device"] for w in record["workers"]]
        self.env = server_env(self.folder, record["databases"]["lava"],
                              urllib.parse.urlsplit(self.url).hostname)

    @classmethod
    def of(cls, folder):
        """The lab whose record is in folder; one line where there is none."""
        try:
            return cls(folder, json.loads((Path(folder) / RECORD).read_text()))
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"no lab in {folder} ({e.__class__.__name__}): start one with "
                             "scripts/lab up", EXIT_INPUT) from None

    def api(self, path, data=None):
        """GET path, or POST data (JSON) to it; the answer."""
        req = urllib.request.Request(f"{self.url}api/v0.2/{path}",
                                     data=None if data is None else json.dumps(data).encode(),
                                     headers={"Authorization": f"Token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def lavacli(self, *args):
        """lavacli as the lab's user (the identity up() wrote in the lab's
        HOME, the folder)."""
        return run(["lavacli", "-i", IDENTITY, *args], self.env)

    def jobs(self):
        return self.api("jobs/?limit=1000")["results"]

    def set_health(self, device, health):
        self.lavacli("devices", "update", "--health", health, device)

    def running(self):
        """{name: pid} of the lab's processes that still run (the same
        processes: a pid taken again since is not one)."""
        return {p["name"]: p["pid"] for p in self.record["processes"]
                if started(p["pid"]) == p["started"]}


def server_env(folder, db_url, host):
    """The server's settings, from the environment (read after the
    machine's /etc/lava-server/settings.d, so they win): its own database,
    media folder and host."""
    db = urllib.parse.urlsplit(db_url)
    databases = {"default": {"ENGINE": "django.db.backends.postgresql",
                             "NAME": db.path.lstrip("/"), "USER": db.username,
                             "HOST": db.hostname, "PORT": db.port}}
    return {**os.environ, "HOME": str(folder),
            "LAVA_YAML_SETTINGS_DATABASES": json.dumps(databases),
            "LAVA_SETTINGS_SECRET_KEY": f"mapbench-lab-{folder.name}",
            "LAVA_SETTINGS_MEDIA_ROOT": str(folder / "media"), "ALLOWED_HOSTS": host}


def run(argv, env):
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise InputError(f"{' '.join(argv[:4])} failed: {proc.stderr.strip()[-300:]}", EXIT_LAB)
    return proc.stdout


def start(folder, name, argv, env, processes):
    """argv started in a session of its own (it outlives up, and down stops
    its children with it), its output in FOLDER/NAME.log; recorded."""
    with open(folder / f"{name}.log", "w") as log:
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    processes.append({"name": name, "pid": proc.pid, "started": started(proc.pid)})


def wait(ready, what, limit=120):
    deadline = time.monotonic() + limit
    while True:
        try:
            if ready():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise InputError(f"the lab did not come up: waited {limit} s for {what}", EXIT_LAB)
        time.sleep(1)


def missing():
    """The Debian package of the first tool a lab needs that is not here."""
    return next((pkg for tool, pkg in NEEDED.items() if not shutil.which(tool)), None)


def worker_command(url, name, token, folder="WORKER-DIR"):
    return ["lava-worker", "--name", name, "--url", url, "--token", token, "--worker-dir",
            str(folder)]


def up(folder, workers, remote=0, host="127.0.0.1", progress=lambda text: None):
    """A lab in folder (which must not hold one): its Lab. Workers on this
    machine are started; remote ones are made on the server, and their
    record holds the command that joins them from another machine."""
    folder = Path(folder).resolve()
    if (folder / RECORD).exists():
        raise InputError(f"{folder} holds a lab already: scripts/lab status, or scripts/lab down "
                         "first", EXIT_INPUT)
    if folder.exists() and any(folder.iterdir()):
        raise InputError(f"{folder} is not empty: give a new folder for the lab (down removes "
                         "it)", EXIT_INPUT)
    if (pkg := missing()):
        raise InputError(f"a lab needs {pkg}: run make deps-lava as root", EXIT_INPUT)
    folder.mkdir(parents=True, exist_ok=True)
    postgres = Postgres(folder / "postgres", free_port())
    record = {"folder": str(folder), "postgres": str(postgres.folder), "processes": [],
              "databases": {"lava": postgres.url("lava"), "history": postgres.url("history")},
              "workers": []}
    try:
        progress("starting PostgreSQL (LAVA's database and the history's)")
        postgres.start(["lava", "history"])
        port = free_port(host)
        record["url"] = f"http://{host}:{port}/"
        env = server_env(folder, record["databases"]["lava"], host)
        progress("creating LAVA's tables, its user and token")
        run(["lava-server", "manage", "migrate", "--no-input"], env)
        run(["lava-server", "manage", "users", "add", "--superuser", "--staff", "--passwd",
             USER, USER], env)
        record["token"] = run(["lava-server", "manage", "tokens", "add", "--user", USER],
                              env).strip().splitlines()[-1]
        progress(f"starting the server at {record['url']} and its scheduler")
        start(folder, "server", ["gunicorn3", "lava_server.wsgi", "--bind", f"{host}:{port}",
                                 "--worker-class", "eventlet", "--timeout", "300"], env,
              record["processes"])
        start(folder, "scheduler", ["lava-server", "manage", "lava-scheduler"], env,
              record["processes"])
        save(folder, record)
        lab = Lab(folder, record)
        wait(lambda: lab.api("system/version/"), "the server to answer")
        run(["lavacli", "identities", "add", "--uri", f"{record['url']}RPC2", "--username", USER,
             "--token", record["token"], IDENTITY], env)
        lab.lavacli("device-types", "add", "qemu")
        for n in range(1, workers + remote + 1):
            here = n <= workers
            record["workers"].append(add_worker(lab, f"worker-{n}", f"qemu-{n}", here))
            save(folder, record)
        lab = Lab(folder, record)
        local = [w["device"] for w in record["workers"] if w["here"]]
        progress(f"waiting for {len(local)} device(s) on this machine to be idle")
        wait(lambda: all(lab.api(f"devices/{d}/")["state"] == "Idle" for d in local),
             "the devices to be idle")
        return lab
    except BaseException:
        down(folder)
        raise


def add_worker(lab, worker, device, here):
    """A worker and its QEMU device on the server, started on this machine
    or left for another to join: its record."""
    lab.lavacli("workers", "add", worker)
    lab.lavacli("devices", "add", "--type", "qemu", "--worker", worker, device)
    dictionary = lab.folder / f"{device}.jinja2"
    dictionary.write_text("{% extends 'qemu.jinja2' %}\n")
    lab.lavacli("devices", "dict", "set", device, str(dictionary))
    lab.lavacli("devices", "update", "--health", "GOOD", device)
    token = next(line.split(":", 1)[1].strip()
                 for line in lab.lavacli("workers", "show", worker).splitlines()
                 if line.startswith("token"))
    command = worker_command(lab.url, worker, token, lab.folder / worker if here else "DIR")
    if here:
        (lab.folder / worker).mkdir()
        start(lab.folder, worker, command, lab.env, lab.record["processes"])
    return {"name": worker, "device": device, "here": here, "command": command}


def save(folder, record):
    tmp = folder / f".{RECORD}.tmp"
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    tmp.rename(folder / RECORD)


def down(folder):
    """Every process the lab's record names that still runs (and its
    session: QEMU under a worker's lava-run), then its PostgreSQL; the
    folder removed. [(what, pid)] of what was stopped."""
    folder = Path(folder).resolve()
    try:
        record = json.loads((folder / RECORD).read_text())
    except (OSError, ValueError):
        record = {"processes": [], "postgres": str(folder / "postgres")}
    alive = [p for p in record["processes"] if started(p["pid"]) == p["started"]]
    for p in alive:
        os.killpg(p["pid"], signal.SIGTERM)
    deadline = time.monotonic() + 30
    for p in alive:
        while started(p["pid"]) == p["started"] and time.monotonic() < deadline:
            time.sleep(0.2)
        if started(p["pid"]) == p["started"]:
            os.killpg(p["pid"], signal.SIGKILL)
    stopped = [(p["name"], p["pid"]) for p in alive]
    if Postgres(record["postgres"], 0).stop():
        stopped.append(("postgres", None))
    shutil.rmtree(folder, ignore_errors=True)
    return stopped
