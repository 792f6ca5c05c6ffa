"""Injected faults (`POST /__mock/faults`): latency, an error status, a dropped stream."""

from __future__ import annotations

from dataclasses import dataclass

from .compile import Operation

FAULT_FIELDS = ("operation_id", "method", "path", "status", "latency_ms", "sse_drop_after")


@dataclass
class Fault:
    operation_id: str | None = None
    method: str | None = None
    path: str | None = None
    status: int | None = None
    latency_ms: int = 0
    sse_drop_after: int | None = None

    def applies(self, op: Operation | None, method: str, path: str) -> bool:
        if self.operation_id and (op is None or op.operation_id != self.operation_id):
            return False
        if self.method and self.method.upper() != method:
            return False
        return not (self.path and self.path not in (path, op.template if op else None))


class Faults(list[Fault]):
    def for_request(self, op: Operation | None, method: str, path: str) -> Fault | None:
        for fault in self:
            if (fault.status or fault.latency_ms) and fault.applies(op, method, path):
                return fault
        return None

    def stream_drop_after(self, op: Operation) -> int | None:
        """After how many events a stream of this operation is cut, if a fault says so."""
        for fault in self:
            if fault.sse_drop_after is not None and fault.applies(op, op.method, op.template):
                return fault.sse_drop_after
        return None
