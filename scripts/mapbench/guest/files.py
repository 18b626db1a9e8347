"""Where a guest's results land: who boots when, and each file's name
(results/LABEL/CONFIG/{run,warmup}-N.json, the kernel tool's logs beside
them), numbered by boot and run whichever guest finishes first."""
import json
import random

from .. import cachemodel, results
from ..cachemodel import qemu10
from .qemu import QEMU, qemu_version

class Plan:
    """Who boots when, and where each guest file lands."""

    def __init__(self, args, kernels, labels, configs):
        self.args, self.kernels, self.labels, self.configs = args, kernels, labels, configs
        self.machine = cachemodel.named(args.model)
        self.qemu = qemu10.argv() if self.machine else [QEMU]
        self.qemu_version = qemu10.version() if self.machine else qemu_version()
        self.clock = "host"     # set once the accelerator is known (clock_for)
        rng = random.Random(args.seed)
        self.boots = []
        for r in range(args.boots):
            order = list(range(len(kernels)))
            if args.order == "random":
                rng.shuffle(order)
            self.boots += [(r, k) for k in order]
        self.active = set()     # Boots running now, for Ctrl-C
        self.interrupted = False
        # A file's number comes from its boot and run, after the files already
        # there (ab's rounds add boots to a set): the same names whichever
        # boot of a parallel run finishes first.
        self.taken = {kind: last_number(*kind) for k in range(len(kernels))
                      for cid, _ in configs for kind in self.kinds(k, cid)}

    def label_dir(self, k):
        return results.label_dir(self.labels[k])

    def peer_dir(self, k):
        label = self.label_dir(k)
        return label.with_name(label.name + "-kernel")

    def kinds(self, k, cid):
        """(folder, stem, suffix) of each kind of file a configuration leaves."""
        return [(self.label_dir(k) / cid, "run", ".json"),
                (self.label_dir(k) / cid, "warmup", ".json"),
                (self.peer_dir(k) / cid, "run", ".log")]

    def path(self, k, name, boot_of_kernel, suffix=".json", peer=False):
        """Where the run NAME ("3:r1", "3:w0", "3:r1:k") of the kernel's
        boot_of_kernel-th boot (from 0) goes: STEM-N.SUFFIX, N counting from
        the files there before this vmrun, boot by boot; and N, the run's
        round (kernels' boots alternate, so run N of each ran side by side)."""
        idx, kind = name.split(":")[:2]
        cid = self.configs[int(idx)][0]
        stem = "warmup" if kind.startswith("w") else "run"
        per_boot = self.args.warmup_runs if stem == "warmup" else self.args.runs
        folder = (self.peer_dir(k) if peer else self.label_dir(k)) / cid
        n = self.taken[(folder, stem, suffix)] + boot_of_kernel * per_boot + int(kind[1:]) + 1
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{stem}-{n}{suffix}", n

    def store(self, k, name, doc, vm):
        """Write one guest result (doc, the guest's with the cache model's
        block where there is one) as results/LABEL/CONFIG/{run,warmup}-N.json,
        with where and when it ran."""
        warmup = name.split(":")[1].startswith("w")
        path, n = self.path(k, name, vm["boot_of_kernel"] - 1)
        doc["environment"]["label"] = self.label_dir(k).name
        doc["environment"]["round"] = None if warmup else n
        doc["environment"]["vm"] = dict(vm, warmup=warmup)
        write_atomically(path, json.dumps(doc, indent=1) + "\n")
        return doc

    def store_peer(self, k, name, payload, boot_of_kernel):
        """The kernel bench's output as results/LABEL-kernel/CONFIG/run-N.log,
        where scripts/report --peer reads it (as the host's suite --peer writes)."""
        path, _ = self.path(k, name, boot_of_kernel, ".log", peer=True)
        text = payload.decode(errors="replace")
        write_atomically(path, text)
        return text, path


def last_number(folder, stem, suffix):
    """The largest N of folder/STEM-N.SUFFIX there now, or 0."""
    return max([int(p.stem.split("-")[1]) for p in folder.glob(f"{stem}-*{suffix}")
                if p.stem.split("-")[1].isdigit()] + [0])


def write_atomically(path, text):
    tmp = path.with_name(path.name + ".tmp" + path.suffix)
    tmp.write_text(text)
    tmp.replace(path)
