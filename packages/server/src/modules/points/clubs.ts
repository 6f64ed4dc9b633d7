import type { ClubPeriod, ClubPolicy } from "@loyalty/shared-types";

/** A club (tier): reached with `threshold` of the store's basis over its period. */
export interface Club {
  id: number;
  name: string;
  threshold: number;
  multiplier: number;
}

/** What a review stored of a customer's club; nothing for a customer never reviewed. */
export interface HeldClub {
  clubId: number | null;
  keptUntil: Date | null;
}

/** The figures a standing is computed from. */
export interface ClubFigures {
  /** Over the period so far (the rolling 12 months, this calendar year, or for ever). */
  current: number;
  /** The whole of last calendar year: its club is kept this year (calendar, end-of-period). */
  previousYear: number;
  /** When the oldest of what `current` counts was earned: the figure may fall from then on. */
  oldest: Date | null;
}

export interface ClubStanding {
  club: Club | null;
  next: (Club & { toReach: number }) | null;
  /** Until when the club is kept whatever the figure; null when not kept so. */
  keptUntil: Date | null;
  /** When time alone may change the club: the next review; null when it cannot. */
  reviewAt: Date | null;
}

function addYears(date: Date, years: number): Date {
  const moved = new Date(date);
  moved.setUTCFullYear(moved.getUTCFullYear() + years);
  return moved;
}

function yearStart(date: Date, offset = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear() + offset, 0, 1));
}

/** When the period the figure counts began: null for `lifetime`. */
export function periodStart(period: ClubPeriod, now: Date): Date | null {
  if (period === "lifetime") return null;
  return period === "calendar-year" ? yearStart(now) : addYears(now, -1);
}

/** Last calendar year, [start, end): its figure is kept this year (calendar, end-of-period). */
export function previousYear(now: Date): { start: Date; end: Date } {
  return { start: yearStart(now, -1), end: yearStart(now) };
}

/** The highest club `figure` reaches. */
function reached(sorted: readonly Club[], figure: number): Club | null {
  return sorted.filter((club) => club.threshold <= figure).at(-1) ?? null;
}

function higher(a: Club | null, b: Club | null): Club | null {
  if (!a) return b;
  if (!b) return a;
  return b.threshold > a.threshold ? b : a;
}

/**
 * The club a customer stands in now, and until when: the one the figure reaches, or under an
 * end-of-period policy the higher one held, until its period ends (see `clubPolicySchema`).
 * Pure: the history, the order's multiplier, the reviews and the jobs all compute it here.
 */
export function clubStanding(
  clubs: readonly Club[],
  policy: ClubPolicy,
  held: HeldClub,
  figures: ClubFigures,
  now: Date,
): ClubStanding {
  const sorted = [...clubs].sort((a, b) => a.threshold - b.threshold);
  const qualified = reached(sorted, figures.current);
  let club = qualified;
  let keptUntil: Date | null = null;
  if (policy.downgrade === "end-of-period") {
    const heldClub = sorted.find((candidate) => candidate.id === held.clubId) ?? null;
    const stillKept =
      policy.period === "lifetime" || (held.keptUntil !== null && held.keptUntil > now);
    let kept = stillKept ? heldClub : null;
    if (policy.period === "calendar-year")
      kept = higher(kept, reached(sorted, figures.previousYear));
    club = higher(kept, qualified);
    if (club && policy.period === "calendar-year") keptUntil = yearStart(now, 1);
    if (club && policy.period === "rolling-12-months") {
      // Reached now (or reviewed at the end of the last period): kept 12 months from now.
      const renewed = club !== kept || !stillKept || held.keptUntil === null;
      keptUntil = renewed ? addYears(now, 1) : held.keptUntil;
    }
  }
  const next = sorted.find((candidate) => candidate.threshold > (club?.threshold ?? -1));
  return {
    club,
    next: next
      ? { ...next, toReach: Math.max(0, Math.ceil(next.threshold - figures.current)) }
      : null,
    keptUntil,
    reviewAt: reviewAt(policy, club, keptUntil, figures, now),
  };
}

function reviewAt(
  policy: ClubPolicy,
  club: Club | null,
  keptUntil: Date | null,
  figures: ClubFigures,
  now: Date,
): Date | null {
  const at = nextChange(policy, club, keptUntil, figures, now);
  // Strictly later than now: a review never finds itself due again.
  return at && at <= now ? new Date(now.getTime() + 1_000) : at;
}

function nextChange(
  policy: ClubPolicy,
  club: Club | null,
  keptUntil: Date | null,
  figures: ClubFigures,
  now: Date,
): Date | null {
  if (!club || club.threshold === 0) return null;
  if (keptUntil) return keptUntil;
  if (policy.downgrade === "end-of-period" || policy.period === "lifetime") return null;
  if (policy.period === "calendar-year") return yearStart(now, 1);
  // Rolling, immediately: the figure falls when its oldest earning leaves the 12 months.
  return figures.oldest ? addYears(figures.oldest, 1) : addYears(now, 1);
}
