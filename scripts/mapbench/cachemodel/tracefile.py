"""A boot's model input as vmrun --model-trace recorded it (plugin/trace.h),
read for questions the model's counts do not answer: which loads read what
a store had just written, and whether the chains of loads that follow
pointers bound a lookup's time."""
from collections import deque
from dataclasses import dataclass

import numpy as np

MAGIC = b"mapbench-trace 1 vcpus="
# struct mb_trace_record, little-endian as x86 writes it
RECORD = np.dtype([("type", "u1"), ("cpu", "u1"), ("arg", "u1"), ("arg2", "u1"),
                   ("store", "<u4"), ("v", "<u8", 5)])
ACCESS, MARK, END, BLOCK, CODE = ord("A"), ord("M"), ord("E"), ord("X"), ord("C")
TIMED, UNTIMED = 5, 6   # plugin/marker_cmd.h
# overlap.c's rule: a pointer leads to the page from it on and a little before it
POINTS_AHEAD, POINTS_BEHIND = 4096, 256
# records viewed first when looking for the next marker (up_to_stop)
FIRST_VIEW = 4096


class NotATrace(ValueError):
    pass


@dataclass
class Trace:
    ncpus: int
    words: str           # the machine's plugin arguments
    segments: list       # timed work: arrays of access records, one per TIMED..UNTIMED
    blocks: list         # the blocks of instructions entered in each segment (block records)
    code: dict           # an instruction's bytes by its address, as the windows ran it

    @property
    def accesses(self):
        return sum(len(s) for s in self.segments)


def read(path, limit=None):
    """The trace at path: its timed work's accesses, up to limit of them."""
    data = path.read_bytes()
    head = data.find(b"\n") + 1
    if not data.startswith(MAGIC) or not head:
        raise NotATrace(f"{path}: not a trace (no \"{MAGIC.decode()}N WORDS\" header)")
    ncpus, _, words = data[len(MAGIC):head - 1].decode().partition(" ")
    ncpus = int(ncpus)
    marks = 8 * ncpus * 2       # every vCPU's instructions, kernel and user, after a marker
    at, timed, segment, segments, taken, code = head, False, [], [], 0, [np.zeros(0, RECORD)]
    while at + RECORD.itemsize <= len(data) and (limit is None or taken < limit):
        chunk, last = up_to_stop(data, at)
        body = chunk[:last]
        code.append(body[body["type"] == CODE])
        if timed:
            accesses = np.flatnonzero(body["type"] == ACCESS)
            if limit is not None and len(accesses) > limit - taken:
                body, accesses = body[:accesses[limit - taken]], accesses[:limit - taken]
            segment.append(body[(body["type"] == ACCESS) | (body["type"] == BLOCK)])
            taken += len(accesses)
        if last == len(chunk) or chunk[last]["type"] == END:
            break
        if chunk[last]["arg"] in (TIMED, UNTIMED):
            segments.append(segment)
            segment, timed = [], chunk[last]["arg"] == TIMED
        at += (last + 1) * RECORD.itemsize + marks
    segments = [np.concatenate(s) for s in segments + [segment] if s]
    segments = [(s[s["type"] == ACCESS], s[s["type"] == BLOCK]) for s in segments]
    segments = [(a, b) for a, b in segments if len(a)]
    return Trace(ncpus, words, [a for a, _ in segments], [b for _, b in segments],
                 code_of(np.concatenate(code)))


def up_to_stop(data, at):
    """The records from byte at on, at least up to the next marker or end
    record, and that record's index in them (their count if none). The
    records after a marker are shifted by its counters, so each marker's
    are viewed anew, in views that double from FIRST_VIEW records: finding
    a marker views at most twice the records before it, not the rest of
    the trace (which made reading quadratic in markers)."""
    total = (len(data) - at) // RECORD.itemsize
    n = min(FIRST_VIEW, total)
    while True:
        chunk = np.frombuffer(data, RECORD, count=n, offset=at)
        stops = np.flatnonzero((chunk["type"] == MARK) | (chunk["type"] == END))
        if len(stops) or n == total:
            return chunk, stops[0] if len(stops) else n
        n = min(2 * n, total)


def code_of(records):
    """{address: bytes} of code records, the latest for an address."""
    raw = records["v"][:, 1:3].copy().view(np.uint8).reshape(len(records), 16)
    return {int(vaddr): bytes(raw[i, :n]) for i, (vaddr, n)
            in enumerate(zip(records["v"][:, 0], records["arg2"])) if n}


def forwarded(trace, window=60):
    """Loads that read an 8-byte word a store had written within window
    accesses before: how many, and of them by (pc, vaddr) those off the
    stack (vmalloc'd stacks live at 0xffffc9...)."""
    count, off_stack = 0, {}
    for seg in trace.segments:
        written = {}
        vaddr, store, pc = seg["v"][:, 0], seg["store"], seg["v"][:, 2]
        for i in range(len(seg)):
            word = int(vaddr[i]) >> 3
            if store[i]:
                written[word] = i
                continue
            j = written.get(word)
            if j is None or i - j > window:
                continue
            count += 1
            if int(vaddr[i]) >> 40 != 0xffffc9:
                key = (int(pc[i]), int(vaddr[i]))
                off_stack[key] = off_stack.get(key, 0) + 1
    return count, off_stack


def dataflow_cycles(trace, latency, ipc, rob, window=16):
    """Cycles the timed work takes when instructions issue at ipc, none
    more than rob after the oldest load not yet done (retirement in order),
    a load whose address a recent load's value points into waits for it,
    and every load takes latency cycles: the span of each segment, summed."""
    total = 0.0
    for seg in trace.segments:
        vaddr, store, value, insns = (seg["v"][:, 0], seg["store"], seg["v"][:, 3],
                                      seg["v"][:, 4])
        start = prev = int(insns[0])
        t = end = retired = 0.0
        inflight, recent = deque(), deque(maxlen=window)
        for i in range(len(seg)):
            n = int(insns[i])
            t += (n - prev) / ipc
            prev = n
            while inflight and inflight[0][0] <= n - rob:
                retired = max(retired, inflight.popleft()[1])
            t = max(t, retired)
            if store[i]:
                continue
            ready, addr = t, int(vaddr[i])
            for pointer, done in recent:
                if pointer - POINTS_BEHIND <= addr < pointer + POINTS_AHEAD and done > ready:
                    ready = done
            done = ready + latency
            recent.append((int(value[i]), done))
            inflight.append((n, done))
            end = max(end, done)
        total += max(end, t, (prev - start) / ipc)
    return total


def issue_cycles(trace, ipc):
    """Cycles the timed work's instructions take to issue at ipc."""
    return sum((int(s["v"][-1, 4]) - int(s["v"][0, 4])) / ipc for s in trace.segments)


def executed(trace, instructions):
    """The timed work's first instructions as they ran, up to the given
    number: (their encodings, distinct; the stream, indexes into them;
    blocks whose code the trace does not have, skipped)."""
    index, stream, missing = {}, [], 0
    known = {}      # (vaddr, n): the block's instructions as indexes, None without its code
    for blocks in trace.blocks:
        for block in zip(blocks["v"][:, 0].tolist(), blocks["store"].tolist()):
            if block not in known:
                code = block_code(trace.code, *block)
                known[block] = code and [index.setdefault(c, len(index)) for c in code]
            if known[block] is None:
                missing += 1
                continue
            stream.extend(known[block])
            if len(stream) >= instructions:
                return list(index), stream[:instructions], missing
    return list(index), stream, missing


def block_code(code, vaddr, n):
    """The encodings of the n instructions from vaddr on; None if code lacks one."""
    out = []
    for _ in range(n):
        if vaddr not in code:
            return None
        out.append(code[vaddr])
        vaddr += len(out[-1])
    return out
