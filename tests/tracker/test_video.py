"""Reading ahead on a thread: order kept, errors handed over, an early stop ends the thread."""

import threading
import time

import pytest

from tracker.video import read_ahead


def test_items_come_in_order():
    assert list(read_ahead(iter(range(100)), depth=3)) == list(range(100))


def test_an_error_while_producing_reaches_the_consumer_after_the_items_before_it():
    def items():
        yield 1
        yield 2
        raise ValueError("corrupt")

    got = []
    with pytest.raises(ValueError, match="corrupt"):
        for x in read_ahead(items()):
            got.append(x)
    assert got == [1, 2]


def test_stopping_early_closes_the_source_and_ends_the_thread():
    closed = threading.Event()

    def items():
        try:
            yield from range(10_000)
        finally:
            closed.set()

    before = set(threading.enumerate())
    gen = read_ahead(items(), depth=2)
    assert next(gen) == 0
    mine = [t for t in threading.enumerate() if t not in before and t.name == "read-ahead"]
    assert len(mine) == 1
    gen.close()
    assert closed.wait(2.0)
    deadline = time.monotonic() + 2.0
    while mine[0].is_alive():
        assert time.monotonic() < deadline, "the reading thread did not end"
        time.sleep(0.01)
