"""The one simulated clock behind run progress, token expiry, idempotency TTLs
and rate-limit windows.

With `scale=0` (the default in tests) time moves only when `advance()` is
called (`POST /__mock/clock`). With `scale>0` (`make serve`) it also follows the
wall clock, `scale` simulated seconds per real second.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime, timedelta

DEFAULT_EPOCH = datetime(2026, 4, 23, 14, 0, 0, tzinfo=UTC)


class SimClock:
    def __init__(self, start: datetime = DEFAULT_EPOCH, scale: float = 0.0) -> None:
        self._start = start
        self._scale = scale
        self._mono0 = time.monotonic()
        self._offset = 0.0
        self._frozen: datetime | None = None  # now(), while time only moves by advance()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = set()

    @property
    def scale(self) -> float:
        return self._scale

    def now(self) -> datetime:
        if not self._scale:
            if self._frozen is None:
                self._frozen = self._start + timedelta(seconds=self._offset)
            return self._frozen
        return self._start + timedelta(seconds=self.elapsed())

    def elapsed(self) -> float:
        real = (time.monotonic() - self._mono0) * self._scale if self._scale else 0.0
        return self._offset + real

    def now_ms(self) -> int:
        return int(self.now().timestamp() * 1000)

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._offset += seconds
        self._frozen = None
        self.notify()
        return self.now()

    def restart(self) -> datetime:
        """Back to the start (`POST /__mock/reset`): the clock reads its start instant again and,
        with `scale>0`, follows the wall clock from now on. What a reset seeds is stamped with the
        same instants whatever earlier callers did to the clock."""
        self._offset = 0.0
        self._mono0 = time.monotonic()
        self._frozen = None
        self.notify()
        return self.now()

    def notify(self) -> None:
        """Wake everything waiting for simulated time or state to move. Waiters
        may sit on different event loops (each test client runs its own), and
        this may be called from another thread."""
        for loop, future in list(self._waiters):
            loop.call_soon_threadsafe(lambda f=future: f.done() or f.set_result(None))

    async def wait_for_change(self, real_timeout: float) -> None:
        """Sleep until `advance()`/`notify()` or `real_timeout` real seconds."""
        loop = asyncio.get_running_loop()
        entry = (loop, loop.create_future())
        self._waiters.add(entry)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(entry[1], real_timeout)
        finally:
            self._waiters.discard(entry)

    def real_seconds_until(self, sim_seconds: float) -> float:
        """How long, in real seconds, until `sim_seconds` of simulated time pass."""
        if not self._scale:
            return float("inf")
        return max(0.0, sim_seconds / self._scale)


def rfc3339(moment: datetime) -> str:
    """§3.2 spelling: UTC with `+00:00` and microseconds."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
