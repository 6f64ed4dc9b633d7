/** A club (tier): reached with `threshold` points earned over the rolling last 12 months. */
export interface Club {
  id: number;
  name: string;
  threshold: number;
  multiplier: number;
}

/** The highest club reached with `earned` points, and the next one with the points missing. */
export function clubStanding(
  clubs: readonly Club[],
  earned: number,
): { club: Club | null; next: (Club & { pointsToReach: number }) | null } {
  const sorted = [...clubs].sort((a, b) => a.threshold - b.threshold);
  const club = sorted.filter((candidate) => candidate.threshold <= earned).at(-1) ?? null;
  const next = sorted.find((candidate) => candidate.threshold > earned);
  return { club, next: next ? { ...next, pointsToReach: next.threshold - earned } : null };
}
