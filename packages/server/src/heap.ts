import v8 from "node:v8";

/**
 * Bounds how far V8 lets the old generation grow past what the last full collection kept:
 * to (1 + percent / 100) times that, at most. 0 leaves V8's own choice.
 *
 * V8 chooses a factor between 1.1 and 4 from how fast it collects, and under a server's load it
 * chose near the top: with about 33 MiB alive, the old generation grew to 130 MiB of mostly
 * dead objects before its next full collection, and the API process to 235–245 MiB. Objects of
 * requests in flight across two young-generation collections (a write waits on PostgreSQL) are
 * promoted, and die there. At 100 (a factor of 2) the same writes peaked at 167–169 MiB, for
 * no more CPU per request (`BENCH_ONLY=writes pnpm bench`, 2026-11-27); at 50, 150 MiB and
 * about 8 % more. V8 reads the flag at every collection, so setting it at start-up is enough.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
