import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/**
 * A process with a steady set of live objects that keeps promoting objects which then die in
 * the old generation (as a server's requests in flight across young collections do), after
 * `limitHeapGrowth(percent)`: the largest the old generation grew, in MiB.
 */
async function oldGenerationPeak(percent: number): Promise<number> {
  const script = `
    import v8 from "node:v8";
    import { limitHeapGrowth } from "./src/heap.ts";
    limitHeapGrowth(${percent});
    const live = Array.from({ length: 200_000 }, (_, i) => ({ i, text: "live" + i }));
    const inFlight = new Array(300_000);
    let peak = 0;
    for (let n = 0; n < 3_000_000; n++) {
      inFlight[n % inFlight.length] = { n, values: [n, n + 1], text: "request" + n };
      if (n % 10_000 === 0) {
        const old = v8.getHeapSpaceStatistics().find((space) => space.space_name === "old_space");
        peak = Math.max(peak, old.space_size);
      }
    }
    process.stdout.write(JSON.stringify({ peak: peak / 2 ** 20, live: live.length }));
  `;
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: PACKAGE_DIR },
  );
  return (JSON.parse(stdout) as { peak: number }).peak;
}

describe("the heap's growth (HEAP_GROWTH_PERCENT)", () => {
  it("keeps the old generation well under what V8 alone lets it grow to", async () => {
    const [own, limited] = await Promise.all([oldGenerationPeak(0), oldGenerationPeak(100)]);
    // About 45 MiB alive at any time: 307 MiB at V8's own factor, 147 MiB at 2 (2026-11-27).
    expect(limited).toBeLessThan(0.7 * own);
  }, 60_000);
});
