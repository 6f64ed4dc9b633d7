import { expect, it } from "vitest";
import { Batcher } from "../src/db/batcher.js";

it("groups items that arrive while a batch is being written, and keeps each result with its caller", async () => {
  const batches: number[][] = [];
  const batcher = new Batcher<number, number>(
    async (items) => {
      batches.push(items);
      await new Promise((resolve) => setTimeout(resolve, 10));
      return items.map((item) => item * 2);
    },
    { maxBatch: 10, maxInFlight: 1 },
  );
  const results = await Promise.all(Array.from({ length: 25 }, (_, i) => batcher.write(i)));
  expect(results).toEqual(Array.from({ length: 25 }, (_, i) => i * 2));
  // The first item goes alone; the others wait for it and go in batches of at most 10.
  expect(batches.map((batch) => batch.length)).toEqual([1, 10, 10, 4]);
});

it("retries a failed batch item by item, so one bad item fails alone", async () => {
  const batcher = new Batcher<number, string>(
    (items) =>
      items.includes(13)
        ? Promise.reject(new Error("unlucky"))
        : Promise.resolve(items.map(String)),
    { maxBatch: 50, maxInFlight: 1 },
  );
  const settled = await Promise.allSettled([1, 2, 13, 4].map((item) => batcher.write(item)));
  expect(settled.map((result) => result.status)).toEqual([
    "fulfilled",
    "fulfilled",
    "rejected",
    "fulfilled",
  ]);
});
