"""LAVA's dispatcher on this machine with no server: lava-run runs a job
given a rendered device configuration, and prints the job's log on stdout
as it goes. The qemu device type's template ships only in lava-server: its
.deb is fetched once (nothing installed) and its device-types/ kept under
build/lava/."""
import shutil
import signal
import subprocess  # processes of their own: dpkg-deb, LAVA's lava-run
import tempfile
from pathlib import Path

from .. import debian
from ..cli import EXIT_INPUT
from ..model import InputError
from ..paths import ROOT
from . import joblog

HOME = ROOT / "build" / "lava"
TEMPLATES = HOME / "device-types"
LAVA_RUN = "lava-run"


def templates(progress=lambda _: None):
    """The device-type templates of lava-server's .deb, fetched once."""
    if (TEMPLATES / "qemu.jinja2").exists():
        return TEMPLATES
    progress("fetching LAVA's device-type templates (lava-server's .deb, once) ...")
    download = HOME / "download"
    debs = debian.download(["lava-server"], None, download)
    if not debs:
        raise InputError("cannot download lava-server's .deb for its device-type templates: "
                         "check apt's sources (apt-get download lava-server)", EXIT_INPUT)
    with tempfile.TemporaryDirectory(prefix="mapbench-lava-") as d:
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), d], check=True)
        shutil.rmtree(TEMPLATES, ignore_errors=True)
        shutil.copytree(Path(d) / "usr" / "share" / "lava-server" / "device-types", TEMPLATES)
    shutil.rmtree(download)
    return TEMPLATES


def device(job, template_dir):
    """The device configuration lava-run needs for a job: its device type's
    template rendered with the job's context, as a server renders it."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template_dir)),
                             autoescape=False, trim_blocks=True)
    return env.get_template(f"{job['device_type']}.jinja2").render(**job.get("context", {}))


def ready():
    if not shutil.which(LAVA_RUN):
        raise InputError("--engine lava-run needs LAVA's dispatcher: apt-get install "
                         "--no-install-recommends lava-dispatcher", EXIT_INPUT)


class Run:
    """One job under lava-run: its records as they come, and its end."""

    def __init__(self, job_text, device_text, workdir, job_id):
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "job.yaml").write_text(job_text)
        (workdir / "device.yaml").write_text(device_text)
        self.proc = subprocess.Popen(
            [LAVA_RUN, "--job-id", str(job_id), "--output-dir", str(workdir / "output"),
             "--device", str(workdir / "device.yaml"), str(workdir / "job.yaml")],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, errors="replace", start_new_session=True)

    def records(self):
        for line in self.proc.stdout:
            rec = joblog.record(line)
            if rec is not None:
                yield rec

    def kill(self):
        """Cancel the job: lava-run ends its QEMU on SIGTERM, as on a server's cancel."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def wait(self):
        self.proc.stdout.close()
        return self.proc.wait()
