/**
 * Group commit for hot writes: callers hand over one item each and wait for its result, and
 * items that arrive while earlier ones are being written go together in the next statement.
 * At low load a batch is one item and nothing waits; under load one commit (and one job queue
 * notification) serves many requests. Each caller still answers only after its own item is
 * committed.
 *
 * When a batch fails, its items are retried one by one, so one bad item fails alone.
 */
export class Batcher<I, O> {
  private queue: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    /** Writes the items in one statement; returns one result per item, in order. */
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  write(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  private async run(batch: typeof this.queue): Promise<void> {
    try {
      const results = await this.flush(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(results[index] as O));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      await Promise.all(
        batch.map(async (entry) => {
          try {
            const [result] = await this.flush([entry.item]);
            entry.resolve(result as O);
          } catch (single) {
            entry.reject(single);
          }
        }),
      );
    }
  }
}
