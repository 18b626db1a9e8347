"""A LAVA job's log, read back: the guest's console lines (lvl "target"),
the files the guest sent in them (base64 between MAPBENCH-B64 markers, with
their size and SHA-256), the worker's QEMU, and
why a job failed. lava-run prints the log as JSON lines; a server gives it
as a YAML list of the same records."""
import base64
import binascii
import hashlib
import json
import re

import yaml

B64_START = re.compile(r"MAPBENCH-B64 (\S+) (\d+) ([0-9a-f]{64})$")
B64_END = re.compile(r"MAPBENCH-B64-END (\S+)$")


def record(line):
    """One JSON line of lava-run's log as its record, or None (not a record)."""
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None


def server_records(text):
    """The records of a server's log (/api/v0.2/jobs/N/logs/)."""
    recs = yaml.load(text, Loader=yaml.CSafeLoader if hasattr(yaml, "CSafeLoader")
                     else yaml.SafeLoader)
    return [r for r in recs or [] if isinstance(r, dict)]


def console_lines(rec):
    """The guest's console lines in one record (a target record may hold several)."""
    if rec.get("lvl") != "target":
        return []
    msg = rec.get("msg")
    return str(msg).splitlines() if msg is not None else []


class Files:
    """The files a guest sent on its console, collected as the lines go by."""

    def __init__(self):
        self.done, self.open = {}, None

    def take(self, line):
        if self.open is not None:
            name, size, digest, chunks = self.open
            end = B64_END.search(line)
            if end and end[1] == name:
                self.close(name, size, digest, chunks)
            else:
                chunks.append(line.strip())
            return
        start = B64_START.search(line)
        if start:
            self.open = (start[1], int(start[2]), start[3], [])

    def close(self, name, size, digest, chunks):
        """Keep the file if it is what the guest sent; one mangled on the way
        is dropped (its run brings no result)."""
        self.open = None
        try:
            data = base64.b64decode("".join(chunks), validate=True)
        except (binascii.Error, ValueError):
            return
        if len(data) == size and hashlib.sha256(data).hexdigest() == digest:
            self.done[name] = data

    def __call__(self):
        return self.done


def failure(rec):
    """LAVA's reason a job failed, from its result record, or None."""
    if rec.get("lvl") != "results":
        return None
    msg = rec.get("msg")
    if isinstance(msg, dict) and msg.get("result") == "fail" and msg.get("error_msg"):
        return " ".join(f"{msg.get('error_type', 'Error')}: {msg['error_msg']}".split())
    return None


def qemu_version(rec):
    """The worker's QEMU (its package version), from the record of the step that started it."""
    msg = rec.get("msg") if rec.get("lvl") == "results" else None
    if isinstance(msg, dict) and msg.get("case") == "execute-qemu":
        return (msg.get("extra") or {}).get("qemu_version")
    return None
