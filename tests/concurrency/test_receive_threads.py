"""Many readers on real threads RECEIVE from one queue while the target keeps sending.

200 conversation groups × 3 conversations × 20 messages arrive on the initiator's queue in
installments; 8 reader sessions loop ``BEGIN TRAN; WAITFOR (RECEIVE [TOP (n)] …)`` and then
COMMIT (mostly) or ROLLBACK (sometimes, so messages come back). Checked at the end, from
what the readers recorded: every message committed exactly once, each conversation's messages
committed in sequence order, every RECEIVE confined to one conversation group, no group held
by two transactions at once, and readers really working in parallel on different groups.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import pairwise

from cc_env import Client, build, send_block

from tsqlbroker.interpreter.instance import Instance

GROUPS, CONVS, SEQS = 200, 3, 20
READERS = 8
ROLLBACK_RATE = 0.15
DEADLINE_S = 50.0     # the whole exchange; a hang fails the test instead of blocking CI


@dataclass
class Hold:
    """One reader transaction that got messages: what it held, when, and how it ended."""

    reader: int
    group: str                              # conversation_group_id of every row
    messages: list[tuple[int, int, int]]    # (group no, conversation no, sequence)
    start: float                            # just after the RECEIVE returned
    end: float                              # just before COMMIT / ROLLBACK was issued
    committed: bool


def _parse(body: bytes) -> tuple[int, int, int]:
    g, c, s = body.decode("ascii").split(":")
    return int(g), int(c), int(s)


class Exchange:
    """The shared record of the readers and the stop condition."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.lock = threading.Lock()
        self.holds: list[Hold] = []
        self.committed = 0
        self.done = threading.Event()
        self.failures: list[str] = []

    def record(self, hold: Hold) -> None:
        with self.lock:
            self.holds.append(hold)
            if hold.committed:
                self.committed += len(hold.messages)
                if self.committed >= self.total:
                    self.done.set()


def _reader(instance: Instance, idx: int, ex: Exchange, deadline: float) -> None:
    rnd = random.Random(1000 + idx)
    client = Client(instance)
    try:
        client.run("SET NOCOUNT ON")
        while not ex.done.is_set() and time.monotonic() < deadline:
            top = rnd.choice(["", "", "", "TOP (1) ", "TOP (2) ", "TOP (7) ", "TOP (25) "])
            sets = client.run(
                "BEGIN TRAN; WAITFOR (RECEIVE " + top + "conversation_group_id, "
                "conversation_handle, message_body FROM InitQ), TIMEOUT 100;")
            start = time.perf_counter()
            assert len(sets) == 1
            rows = sets[0].rows
            if not rows:
                client.run("COMMIT")
                continue
            time.sleep(rnd.random() * 0.002)   # some work while the group is held
            commit = rnd.random() >= ROLLBACK_RATE
            groups = {str(r[0]) for r in rows}
            hold = Hold(idx, min(groups), [_parse(r[2]) for r in rows], start,
                        time.perf_counter(), commit)
            client.run("COMMIT" if commit else "ROLLBACK")
            if len(groups) != 1:
                ex.failures.append(f"one RECEIVE returned several groups: {groups}")
            ex.record(hold)
    except Exception as exc:  # noqa: BLE001 - a thread's failure is reported by the test
        ex.failures.append(f"reader {idx}: {exc!r}")
        ex.done.set()
    finally:
        client.close()


def _sender(instance: Instance, ex: Exchange) -> None:
    client = Client(instance)
    try:
        # Four installments of 5 sequence numbers per conversation, 20 groups per transaction.
        for block in range(SEQS // 5):
            for g0 in range(0, GROUPS, 20):
                send_block(client, g0, g0 + 20, block * 5, block * 5 + 5)
    except Exception as exc:  # noqa: BLE001 - reported by the test
        ex.failures.append(f"sender: {exc!r}")
        ex.done.set()
    finally:
        client.close()


def test_readers_get_every_message_once_in_order_with_exclusive_groups(
        instance: Instance) -> None:
    admin = build(instance, GROUPS, CONVS)
    group_of = {g: str(grp) for g, grp in admin.rows("SELECT g, grp FROM Map")}
    ex = Exchange(GROUPS * CONVS * SEQS)
    deadline = time.monotonic() + DEADLINE_S
    threads = [threading.Thread(target=_reader, args=(instance, i, ex, deadline))
               for i in range(READERS)]
    threads.append(threading.Thread(target=_sender, args=(instance, ex)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE_S + 30)
    assert not any(t.is_alive() for t in threads), "a session is stuck"
    assert not ex.failures, ex.failures
    holds = ex.holds

    # Every message committed exactly once (rolled-back ones came back and were taken again).
    committed = Counter(m for h in holds if h.committed for m in h.messages)
    expected = {(g, c, s) for g in range(GROUPS) for c in range(CONVS)
                for s in range(1, SEQS + 1)}
    assert set(committed) == expected
    assert max(committed.values()) == 1
    rolled_back = [h for h in holds if not h.committed]
    assert rolled_back, "no transaction rolled back: the test did not exercise redelivery"

    # A RECEIVE returns one group, the one the sender's group number maps to.
    for h in holds:
        assert {group_of[g] for g, _c, _s in h.messages} == {h.group}

    # Per conversation, the committed receives (in the order they held the group) carry the
    # sequence numbers 1 … 20 in ascending order.
    per_conv: dict[tuple[int, int], list[int]] = defaultdict(list)
    for h in sorted((h for h in holds if h.committed), key=lambda h: h.start):
        for g, c, s in h.messages:
            per_conv[(g, c)].append(s)
    assert all(seqs == list(range(1, SEQS + 1)) for seqs in per_conv.values())

    # No group held by two transactions at once (recorded intervals lie inside the true
    # holding time, from inside RECEIVE to inside COMMIT/ROLLBACK).
    by_group: dict[str, list[Hold]] = defaultdict(list)
    for h in holds:
        by_group[h.group].append(h)
    for group, hs in by_group.items():
        hs.sort(key=lambda h: h.start)
        for a, b in pairwise(hs):
            assert a.end <= b.start, f"group {group} held twice at once: {a} / {b}"

    # Readers were not serialised: some holds of different groups by different readers
    # overlap in time.
    ordered = sorted(holds, key=lambda h: h.start)
    overlapping = sum(1 for a, b in pairwise(ordered)
                      if b.start < a.end and a.reader != b.reader and a.group != b.group)
    assert overlapping > 0
