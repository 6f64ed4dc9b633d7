interface LayoutShift extends PerformanceEntry {
  value: number;
  hadRecentInput: boolean;
}

/** Two frames: what changed has been laid out and painted. */
export function nextPaint(): Promise<void> {
  return new Promise((resolve) =>
    requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
  );
}

/**
 * Records the layout shifts (Cumulative Layout Shift, as Chrome counts it) from now until
 * `stop()`, which resolves with their sum: 0 when content arrived without moving what was
 * already on screen. Shifts right after user input do not count, as in CLS.
 *
 * ```ts
 * const shifts = recordLayoutShifts();
 * release(); // the data arrives
 * await expect.element(…).toBeVisible();
 * expect(await shifts.stop()).toBe(0);
 * ```
 */
export function recordLayoutShifts(): { stop: () => Promise<number> } {
  const start = performance.now();
  const entries: LayoutShift[] = [];
  const observer = new PerformanceObserver((list) => {
    entries.push(...(list.getEntries() as LayoutShift[]));
  });
  // buffered: shifts already queued (from the frame in progress) are delivered too.
  observer.observe({ type: "layout-shift", buffered: true });
  return {
    async stop() {
      await nextPaint();
      entries.push(...(observer.takeRecords() as LayoutShift[]));
      observer.disconnect();
      return entries
        .filter((entry) => entry.startTime >= start && !entry.hadRecentInput)
        .reduce((sum, entry) => sum + entry.value, 0);
    },
  };
}
