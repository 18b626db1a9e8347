"""A LAVA server through its REST API (v0.2): submit a job, follow its
state, read its log, cancel it, and where it ran. A server that cannot be
reached, or that refuses the token, is one line and its own exit status."""
import json
import urllib.error
import urllib.parse
import urllib.request

from ..cli import EXIT_INPUT, EXIT_LAB
from ..model import InputError

# A job's states in LAVA's words (TestJob.STATE_CHOICES), as progress says
# them; a finished job by its health (a job cancelled in the queue finishes too).
STATE_WORDS = {"Submitted": "queued", "Scheduling": "queued", "Scheduled": "starting",
               "Running": "running", "Canceling": "cancelling"}
HEALTH_WORDS = {"Complete": "complete", "Incomplete": "incomplete", "Canceled": "cancelled"}


def state_words(job):
    """"queued", "running", "cancelled", ...: a job's state as progress says it."""
    if job["state"] == "Finished":
        return HEALTH_WORDS.get(job.get("health"), "finished")
    return STATE_WORDS.get(job["state"], job["state"])


class Server:
    def __init__(self, url, token, timeout=60):
        self.url = url.rstrip("/") + "/"
        self.token, self.timeout = token, timeout

    def request(self, method, path, data=None):
        """The response's body (bytes); one line and EXIT_LAB if the server
        cannot be reached or refuses the token."""
        req = urllib.request.Request(urllib.parse.urljoin(self.url, f"api/v0.2/{path}"),
                                     method=method)
        if self.token:
            req.add_header("Authorization", f"Token {self.token}")
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, body, timeout=self.timeout) as resp:
                return resp.read()
        except urllib.error.HTTPError as e:
            detail = message(e.read())
            if e.code in (401, 403):
                raise InputError(f"the LAVA server at {self.url} refused the token ({detail}): "
                                 "give a valid one with --lava-token or MAPBENCH_LAVA_TOKEN "
                                 "(lava-server manage tokens add --user USER)", EXIT_LAB) from None
            if e.code == 400:
                raise InputError(f"the LAVA server at {self.url} refused the job: {detail}",
                                 EXIT_INPUT) from None
            raise InputError(f"the LAVA server at {self.url} answered {path} with HTTP {e.code} "
                             f"({detail})", EXIT_LAB) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise InputError(f"cannot reach the LAVA server at {self.url} ({reason}): check "
                             "--lava-url", EXIT_LAB) from None

    def get(self, path):
        return json.loads(self.request("GET", path))

    def check_token(self):
        """Who the token is, or one line (a server answers whoami for anyone)."""
        if not self.token:
            raise InputError(f"no token for the LAVA server at {self.url}: give one with "
                             "--lava-token or MAPBENCH_LAVA_TOKEN (scripts/lab up prints its "
                             "lab's)", EXIT_LAB)
        user = self.get("system/whoami/").get("user")
        if not user:
            raise InputError(f"the LAVA server at {self.url} does not know the token: give a "
                             "valid one with --lava-token or MAPBENCH_LAVA_TOKEN", EXIT_LAB)
        return user

    def check_devices(self, device_type):
        """Devices of the type that can take a job now (healthy, their worker
        online), or one line saying why none can."""
        types = {t["name"] for t in self.get("devicetypes/?limit=1000")["results"]}
        if device_type not in types:
            raise InputError(f"the LAVA server at {self.url} has no device type {device_type} "
                             f"(it has {', '.join(sorted(types)) or 'none'}): give "
                             "--lava-device-type", EXIT_LAB)
        online = {w["hostname"] for w in self.get("workers/?limit=1000")["results"]
                  if w.get("state") == "Online"}
        devices = [d for d in self.get(f"devices/?device_type={urllib.parse.quote(device_type)}"
                                        "&limit=1000")["results"]
                   if d.get("health") in ("Good", "Unknown") and d.get("worker_host") in online]
        if not devices:
            raise InputError(f"the LAVA server at {self.url} has no {device_type} device that is "
                             "healthy on a worker online: start a worker (scripts/lab status "
                             "says which)", EXIT_LAB)
        return [d["hostname"] for d in devices]

    def submit(self, text):
        return json.loads(self.request("POST", "jobs/", {"definition": text}))["job_ids"][0]

    def job(self, job_id):
        return self.get(f"jobs/{job_id}/")

    def log(self, job_id):
        """The job's log: its records, as text (YAML)."""
        return self.request("GET", f"jobs/{job_id}/logs/").decode(errors="replace")

    def cancel(self, job_id):
        self.request("GET", f"jobs/{job_id}/cancel/")

    def worker_of(self, device):
        return self.get(f"devices/{urllib.parse.quote(device)}/").get("worker_host")

    def job_url(self, job_id):
        return urllib.parse.urljoin(self.url, f"scheduler/job/{job_id}")


def message(body):
    """A server's complaint in one line: its JSON message or detail, else the text."""
    try:
        doc = json.loads(body)
        text = doc.get("message") or doc.get("detail") or json.dumps(doc)
    except (ValueError, AttributeError):
        text = body.decode(errors="replace")
    return " ".join(str(text).split())[:300]
