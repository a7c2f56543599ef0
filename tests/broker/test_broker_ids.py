"""Broker identifiers: the stored text form of uniqueidentifiers and fresh GUIDs."""

from __future__ import annotations

import os
import uuid

import pytest

from tsqlbroker.engine.broker.model import new_uid, uid


def test_new_uid_is_a_random_version_4_guid_in_stored_form() -> None:
    made = [new_uid() for _ in range(2000)]
    assert len(set(made)) == len(made)
    for text in made[:200]:
        value = uuid.UUID(text)
        assert (value.version, value.variant) == (4, uuid.RFC_4122)
        assert text == str(value).upper()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_forked_child_draws_other_guids_than_its_parent() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # the child: report three and leave
        os.close(read)
        os.write(write, ",".join(new_uid() for _ in range(3)).encode())
        os._exit(0)
    os.close(write)
    parent = {new_uid() for _ in range(3)}
    with os.fdopen(read) as pipe:
        child = set(pipe.read().split(","))
    os.waitpid(pid, 0)
    assert len(child) == 3 and not parent & child


@pytest.mark.parametrize("given", [
    "5a3c0f3e-2b1d-4c4e-9f00-0123456789ab",
    "{5a3c0f3e-2b1d-4c4e-9f00-0123456789ab}",
    "5A3C0F3E-2B1D-4C4E-9F00-0123456789AB",
    uuid.UUID("5a3c0f3e-2b1d-4c4e-9f00-0123456789ab"),
    uuid.UUID("5a3c0f3e-2b1d-4c4e-9f00-0123456789ab").bytes_le,
])
def test_uid_gives_the_stored_form(given: object) -> None:
    assert uid(given) == "5A3C0F3E-2B1D-4C4E-9F00-0123456789AB"


@pytest.mark.parametrize("bad", ["", "not-a-guid", "5a3c0f3e-2b1d-4c4e-9f00-0123456789", 42])
def test_uid_refuses_what_is_not_a_guid(bad: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        uid(bad)
