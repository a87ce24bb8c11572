"""Retries, deadline, write pacing and token scrubbing, shared by both forges.

Library-neutral: a forge turns its HTTP library's failure into an :class:`HttpFailure`
(status, headers, message) and :class:`Retrier` decides. 5xx, 429 and rate-limited 403s
are retried; other 4xx are raised at once. Waits follow GitHub's documented rules for
rate limits: ``Retry-After`` when present, else the ``X-RateLimit-Reset`` time when
``X-RateLimit-Remaining`` is 0, else (a secondary limit says only so in its message) at
least a minute, doubling while the limit persists. Other failures back off exponentially
with full jitter. Network errors are retried for reads
and, for writes, only when the request provably never left (``sent=False``). Waits run on
an injectable :class:`Clock`, so tests never sleep.

The deadline bounds each request as a whole (connect, headers, body), not only the waits
between tries: an HTTP library's timeout is per socket operation, so a server that sends a
byte a second never trips it. Each try runs in a worker thread the caller waits for no
longer than the deadline leaves; one still running then is given up (``abort`` lets the
forge close its connections) and the publish fails with the deadline.
"""

from __future__ import annotations

import contextlib
import email.utils
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from reviewbot.forge.base import ForgeError

T = TypeVar("T")


class Clock(Protocol):
    """Time source and sleeper; the real one is :class:`SystemClock`."""

    def monotonic(self) -> float: ...

    def time(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """How a forge request is retried: attempts, backoff, deadline, write spacing."""

    max_attempts: int = 5  # per request, the first try included
    base_delay: float = 1.0  # backoff: uniform(0, min(max_delay, base_delay * 2**n))
    max_delay: float = 30.0
    deadline: float = 180.0  # seconds for a whole publish, waits included
    write_interval: float = 1.0  # minimum gap between two writes (GitHub's advice)


class Sockets:
    """The sockets a client connected, to shut down when the deadline passes mid-request:
    shutting a socket down wakes the worker blocked reading it (closing it would not)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []

    def add(self, sock: object) -> None:
        if isinstance(sock, socket.socket):
            with self._lock:
                self._open = [s for s in self._open if s.fileno() != -1] + [sock]

    def shutdown(self) -> None:
        with self._lock:
            doomed, self._open = self._open, []
        for sock in doomed:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)


class HttpFailure(Exception):
    """One failed HTTP exchange, as a forge reports it to the retrier.

    ``status`` is None for a network error; ``sent`` is False when the request never
    reached the server (connection refused), which makes a write safe to repeat.
    """

    def __init__(
        self,
        status: int | None,
        message: str,
        headers: Mapping[str, str] | None = None,
        *,
        sent: bool = True,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = {k.lower(): str(v) for k, v in (headers or {}).items()}
        self.sent = sent


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """Replace every secret in ``text`` by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def retry_after_seconds(headers: Mapping[str, str], now: float) -> float | None:
    """The server's requested wait: ``Retry-After`` (seconds or HTTP date), else the
    rate-limit reset when the remaining quota is zero; None when the server said nothing."""
    value = headers.get("retry-after")
    if value is not None:
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            return max(0.0, when.timestamp() - now)
    if headers.get("x-ratelimit-remaining") == "0":
        reset = headers.get("x-ratelimit-reset", "")
        if reset.isdigit():
            return max(0.0, float(reset) - now)
    return None


RATE_LIMIT_WAIT = 60.0  # GitHub: without a header, "wait for at least one minute"
_RATE_LIMIT_TEXT = (  # the messages GitHub's 403s carry (PyGithub matches the same)
    "api rate limit exceeded",
    "secondary rate limit",
    "please retry your request again later",
    "please wait a few minutes before you try again",
)


def is_rate_limited(failure: HttpFailure) -> bool:
    """A 429, or a 403 that is a primary or secondary rate limit rather than a refusal.

    GitHub's secondary limit 403 often has no ``Retry-After`` and a non-zero
    ``X-RateLimit-Remaining``; only its message tells it from "the token may not write".
    """
    if failure.status == 429:
        return True
    if failure.status != 403:
        return False
    headers = failure.headers
    if "retry-after" in headers or headers.get("x-ratelimit-remaining") == "0":
        return True
    message = failure.message.lower()
    return any(text in message for text in _RATE_LIMIT_TEXT)


def is_retryable(failure: HttpFailure, *, write: bool) -> bool:
    if failure.status is None:
        return not write or not failure.sent
    if failure.status >= 500:
        return True
    return is_rate_limited(failure)


class Retrier:
    """Runs requests with retries inside one overall deadline; writes one at a time.

    One instance serves one publish: the deadline starts when it is created.
    """

    def __init__(
        self,
        clock: Clock,
        policy: RetryPolicy,
        *,
        rng: random.Random | None = None,
        secrets: tuple[str, ...] = (),
        abort: Callable[[], None] | None = None,
    ) -> None:
        self._clock = clock
        self._abort = abort
        self._policy = policy
        self._rng = rng if rng is not None else random.Random()
        self._secrets = secrets
        self._deadline_at = clock.monotonic() + policy.deadline
        self._write_lock = threading.Lock()
        self._last_write: float | None = None
        self.attempts = 0
        self.waits: list[float] = []

    def _fail(self, message: str) -> ForgeError:
        return ForgeError(scrub(message, self._secrets))

    def _wait(self, seconds: float, what: str) -> None:
        remaining = self._deadline_at - self._clock.monotonic()
        if seconds > remaining:
            raise self._fail(
                f"{what}: giving up, the forge asks to wait {seconds:.0f}s and only "
                f"{max(0.0, remaining):.0f}s remain of the {self._policy.deadline:.0f}s deadline"
            )
        if seconds > 0:
            self.waits.append(seconds)
            self._clock.sleep(seconds)

    def _backoff(self, attempt: int, failure: HttpFailure, limited: int) -> float:
        """The wait before the next try; ``limited`` counts this request's earlier
        rate-limited answers without a hint (the minute doubles each time)."""
        hinted = retry_after_seconds(failure.headers, self._clock.time())
        ceiling = min(self._policy.max_delay, self._policy.base_delay * (2**attempt))
        if hinted is not None:
            return hinted + self._rng.uniform(0.0, min(1.0, ceiling))
        if is_rate_limited(failure):
            return RATE_LIMIT_WAIT * (2**limited) + self._rng.uniform(0.0, 1.0)
        return self._rng.uniform(0.0, ceiling)

    def call(
        self,
        what: str,
        func: Callable[[], T],
        *,
        write: bool = False,
        retryable: Callable[[HttpFailure], bool] | None = None,
    ) -> T:
        """Run ``func`` (which raises :class:`HttpFailure` on failure) with retries.

        ``retryable`` replaces the default rule for requests that must not be repeated
        after the server may have acted on them. Non-retryable failures propagate as
        :class:`HttpFailure`; exhausting the attempts or the deadline raises
        :class:`ForgeError`.
        """
        if write:
            with self._write_lock:
                if self._last_write is not None:
                    gap = self._last_write + self._policy.write_interval - self._clock.monotonic()
                    self._wait(gap, what)
                try:
                    return self._call(what, func, write=True, retryable=retryable)
                finally:
                    self._last_write = self._clock.monotonic()
        return self._call(what, func, write=False, retryable=retryable)

    def _call(
        self,
        what: str,
        func: Callable[[], T],
        *,
        write: bool,
        retryable: Callable[[HttpFailure], bool] | None,
    ) -> T:
        attempt = 0
        limited = 0
        while True:
            if self._clock.monotonic() >= self._deadline_at:
                raise self._fail(f"{what}: deadline of {self._policy.deadline:.0f}s exceeded")
            attempt += 1
            self.attempts += 1
            try:
                return self._bounded(what, func, write=write)
            except HttpFailure as failure:
                failure.message = scrub(failure.message, self._secrets)
                if retryable is not None:
                    again = retryable(failure)
                else:
                    again = is_retryable(failure, write=write)
                if not again:
                    raise
                if attempt >= self._policy.max_attempts:
                    status = failure.status if failure.status is not None else "network error"
                    raise self._fail(
                        f"{what}: failed after {attempt} attempts ({status}): {failure.message}"
                    ) from None
                hinted = retry_after_seconds(failure.headers, self._clock.time()) is not None
                wait = self._backoff(attempt - 1, failure, limited)
                if is_rate_limited(failure) and not hinted:
                    limited += 1
                self._wait(wait, what)

    def _bounded(self, what: str, func: Callable[[], T], *, write: bool) -> T:
        """``func()``, given up when the deadline passes before it returns."""
        remaining = self._deadline_at - self._clock.monotonic()
        outcome: list[tuple[bool, object]] = []

        def run() -> None:
            try:
                outcome.append((True, func()))
            except BaseException as exc:  # handed to the caller's thread below
                outcome.append((False, exc))

        worker = threading.Thread(target=run, name=f"reviewbot-forge: {what}", daemon=True)
        worker.start()
        worker.join(max(0.0, remaining))
        if not outcome:
            if self._abort is not None:
                self._abort()
            landed = " (the write may still land)" if write else ""
            raise self._fail(
                f"{what}: deadline of {self._policy.deadline:.0f}s exceeded: the forge had not "
                f"answered completely within the {max(0.0, remaining):.0f}s left{landed}"
            )
        done, value = outcome[0]
        if not done:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[return-value]
