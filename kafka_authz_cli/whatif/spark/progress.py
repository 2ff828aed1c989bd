"""Progress of a Spark job for authz's own bar (Spark's console bar is off)."""

from __future__ import annotations

import threading
from typing import Callable


class StatusProgress:
    """Polls Spark's status tracker (tasks of the running jobs) for authz's own progress bar."""

    def __init__(self, spark, callback: Callable[[str, int, int], None] | None, interval: float = 0.3):
        self.sc = spark.sparkContext
        self.callback = callback
        self.interval = interval
        self.phase = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self):
        if self.callback is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def set(self, phase: str) -> None:
        self._tick()  # the finished phase's final count
        self._n = getattr(self, "_n", 0) + 1
        self.phase = phase
        self.sc.setJobGroup(f"authz-{self._n}", phase, interruptOnCancel=True)

    def _tick(self) -> None:
        if self.callback is None or not self.phase:
            return
        try:
            tracker = self.sc.statusTracker()
            done = total = 0
            for job in tracker.getJobIdsForGroup(f"authz-{self._n}"):
                info = tracker.getJobInfo(job)
                if info is None:
                    continue
                for sid in info.stageIds:
                    st = tracker.getStageInfo(sid)
                    if st is not None:
                        done += st.numCompletedTasks
                        total += st.numTasks
            self.callback(self.phase, done, total)
        except Exception:  # noqa: BLE001 - progress must never break the job
            pass

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._tick()

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._tick()
        return False
