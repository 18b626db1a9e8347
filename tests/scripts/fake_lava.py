"""A stand-in for a LAVA server's REST API (v0.2), as much of it as
mapbench uses: whoami, submit, a job's state, its log, cancel, the device
types, workers and devices. Each submitted job plays a script of (state,
health) steps, one per look, and serves a recorded job log; cancels are
remembered."""
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

# device -> (health, worker, worker online): two qemu devices that can take jobs
DEVICES = {"qemu-1": ("Good", "worker-qemu-1", True), "qemu-2": ("Good", "worker-qemu-2", True)}


class FakeLava:
    def __init__(self, token="good", log_records=(), steps=None, refuse_job=None,
                 devices=DEVICES):
        self.token, self.records, self.devices = token, list(log_records), devices
        self.steps = steps or [("Submitted", "Unknown"), ("Running", "Unknown"),
                               ("Finished", "Complete")]
        self.refuse_job = refuse_job
        self.jobs, self.cancelled, self.definitions = {}, [], []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def job_state(self, job_id):
        with self.lock:
            looks = self.jobs[job_id]
            self.jobs[job_id] = looks + 1
        if job_id in self.cancelled:
            return "Finished", "Canceled"
        return self.steps[min(looks, len(self.steps) - 1)]

    def handler(self):
        lab = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_):
                pass

            def reply(self, code, body, kind="application/json"):
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def authorized(self):
                given = self.headers.get("Authorization")
                if given and given != f"Token {lab.token}":
                    self.reply(401, {"detail": "Invalid token."})
                    return None
                return bool(given)

            def do_GET(self):
                known = self.authorized()
                if known is None:
                    return
                url = urllib.parse.urlsplit(self.path)
                parts = url.path.strip("/").split("/")[2:]     # after api/v0.2
                query = dict(urllib.parse.parse_qsl(url.query))
                if parts == ["system", "whoami"]:
                    return self.reply(200, {"user": "tester" if known else ""})
                if parts == ["devicetypes"]:
                    return self.reply(200, {"results": [{"name": "qemu"}]})
                if parts == ["workers"]:
                    return self.reply(200, {"results": [
                        {"hostname": w, "state": "Online" if up else "Offline"}
                        for _, w, up in lab.devices.values()]})
                if parts == ["devices"]:
                    return self.reply(200, {"results": [
                        {"hostname": d, "health": health, "worker_host": w}
                        for d, (health, w, _) in lab.devices.items()
                        if query.get("device_type") == "qemu"]})
                if parts[0] == "devices":
                    return self.reply(200, {"hostname": parts[1], "worker_host": "worker-" + parts[1]})
                job_id = int(parts[1])
                if len(parts) == 2:
                    state, health = lab.job_state(job_id)
                    return self.reply(200, {"id": job_id, "state": state, "health": health,
                                            "actual_device": None if state == "Submitted"
                                            else f"qemu-{job_id % 2 + 1}"})
                if parts[2] == "logs":
                    return self.reply(200, yaml.safe_dump(lab.records).encode(),
                                      "application/yaml")
                if parts[2] == "cancel":
                    with lab.lock:
                        lab.cancelled.append(job_id)
                    return self.reply(200, {"message": "Job cancel signal sent."})
                self.reply(404, {"detail": "Not found."})

            def do_POST(self):
                if not self.authorized():
                    return self.reply(401, {"detail": "Authentication credentials were not "
                                                      "provided."})
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if lab.refuse_job:
                    return self.reply(400, {"message": lab.refuse_job})
                with lab.lock:
                    job_id = len(lab.jobs) + 1
                    lab.jobs[job_id] = 0
                    lab.definitions.append(body["definition"])
                self.reply(201, {"message": "job(s) successfully submitted", "job_ids": [job_id]})

        return Handler
