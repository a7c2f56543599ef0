"""Exactly once across processes (issue 14, item 1): four processes RECEIVE one queue of
2,000 messages in 40 conversation groups (two conversations each) — in one statement's
transaction, in explicit transactions paused between batches, through GET CONVERSATION
GROUP and RECEIVE … WHERE conversation_group_id, and through WAITFOR (RECEIVE … WHERE
conversation_handle) — rolling back one transaction in five. On an SQLite file and on
PostgreSQL: every message is recorded exactly once, each conversation's messages in
sequence order, and no group was held by two processes at once (each process logs the
interval it held each group; intervals of one group never overlap).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from cc_env import Client, build, send_block
from receive_worker import PROCEDURES

from tsqlbroker.interpreter.instance import Instance

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("receive_worker.py")
GROUPS, CONVERSATIONS, PER_CONVERSATION = 40, 2, 25
MODES = ("statement", "explicit", "group", "handle")
WORKER_SECONDS = 100


def _prepare(url: str) -> None:
    inst = Instance(url)
    try:
        admin = build(inst, groups=GROUPS, convs=CONVERSATIONS)
        send_block(admin, 0, GROUPS, 0, PER_CONVERSATION)
        admin.run("CREATE TABLE Got (id int IDENTITY PRIMARY KEY, g int NOT NULL, "
                  "c int NOT NULL, s int NOT NULL, who int NOT NULL)")
        for procedure in PROCEDURES:
            admin.run(procedure)
        total = GROUPS * CONVERSATIONS * PER_CONVERSATION
        assert admin.rows("SELECT COUNT(*) FROM InitQ") == [(total,)]
    finally:
        inst.close()


def _got(url: str) -> list[tuple[int, int, int, int]]:
    inst = Instance(url)
    try:
        admin = Client(inst)
        return [tuple(r) for r in admin.rows("SELECT g, c, s, who FROM Got ORDER BY id")]
    finally:
        inst.close()


def test_four_processes_receive_each_message_once_in_order(persistent_url: str) -> None:
    _prepare(persistent_url)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get(
        "PYTHONPATH", "")}
    seed = int.from_bytes(os.urandom(4), "big")
    procs = [subprocess.Popen([sys.executable, str(WORKER), persistent_url, str(i), mode,
                               str(seed + i), str(WORKER_SECONDS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env)
             for i, mode in enumerate(MODES)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=WORKER_SECONDS + 60))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for (out, err), p, mode in zip(outs, procs, MODES, strict=True):
        assert p.returncode == 0, f"{mode} (seed {seed}): {err[-3000:]}"

    holds: list[dict[str, Any]] = [json.loads(line) for out, _err in outs
                                   for line in out.splitlines() if line.strip()]
    # Every way of receiving took part, and some transactions rolled back.
    assert {h["proc"] for h in holds if h["committed"]} == set(range(len(MODES))), seed
    assert any(not h["committed"] for h in holds), seed

    got = _got(persistent_url)
    seen = [(g, c, s) for g, c, s, _p in got]
    assert len(seen) == len(set(seen)), f"a message was recorded twice (seed {seed})"
    assert set(seen) == {(g, c, s) for g in range(GROUPS) for c in range(CONVERSATIONS)
                         for s in range(1, PER_CONVERSATION + 1)}, seed
    # Got's ids follow the order the group's transactions committed in (one at a time).
    order: dict[tuple[int, int], list[int]] = defaultdict(list)
    for g, c, s in seen:
        order[(g, c)].append(s)
    wrong = {k: v for k, v in order.items() if v != list(range(1, PER_CONVERSATION + 1))}
    assert not wrong, f"out of conversation order (seed {seed}): {list(wrong.items())[:3]}"

    by_group: dict[str, list[tuple[datetime, datetime, int]]] = defaultdict(list)
    for h in holds:
        by_group[h["group"]].append((datetime.fromisoformat(h["start"]),
                                     datetime.fromisoformat(h["end"]), h["proc"]))
    assert len(by_group) == GROUPS
    overlaps = []
    for group, spans in by_group.items():
        spans.sort()
        for (s1, e1, p1), (s2, e2, p2) in pairwise(spans):
            if s2 <= e1:
                overlaps.append((group, p1, str(s1), str(e1), p2, str(s2), str(e2)))
    assert not overlaps, f"a group held by two processes at once (seed {seed}): {overlaps[:3]}"
    # The processes really did take turns on the same groups.
    assert sum(len({p for _s, _e, p in spans}) > 1 for spans in by_group.values()) > 0
