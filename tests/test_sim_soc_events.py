"""The SoC event kernel: time order, FIFO ties, server capacity and recorded busy intervals."""

from archsim.sim.soc.events import EventQueue, Server


def test_callbacks_run_in_time_order_fifo_among_equal_times():
    q = EventQueue()
    seen: list[tuple[float, str]] = []
    for t, tag in ((2.0, "c"), (1.0, "a"), (1.0, "b"), (0.5, "first")):
        q.at(t, lambda arg: seen.append((q.now, arg)), tag)
    q.run()
    assert seen == [(0.5, "first"), (1.0, "a"), (1.0, "b"), (2.0, "c")]
    assert q.events == 4


def test_server_queues_beyond_capacity_and_records_intervals():
    q = EventQueue()
    srv = Server(q, "dma", capacity=2)
    done: list[tuple[float, int]] = []
    for i, dur in enumerate((3.0, 1.0, 2.0, 0.0)):
        srv.submit(dur, "transfer", i, lambda arg: done.append((q.now, arg)), i)
    q.run()
    # two slots: tasks 0 and 1 start at 0; task 2 takes task 1's slot at 1 (ends 3); task 3
    # (zero length) takes the first slot freed after that, at 3, and records no interval
    assert sorted(done) == [(1.0, 1), (3.0, 0), (3.0, 2), (3.0, 3)]
    assert sorted(srv.intervals) == [(0.0, 1.0, "transfer", 1), (0.0, 3.0, "transfer", 0),
                                     (1.0, 3.0, "transfer", 2)]
    assert srv.busy == 0 and not srv.queue
