import { describe, expect, it } from "vitest";
import {
  API_REVISIONS,
  LATEST_REVISION,
  apiRevisionSchema,
  parseCalendarDay,
  resolveRevision,
  revisionLifecycle,
  supportedRevisions,
  usesLegacyOrderRef,
  usesProblemDetails,
  type RevisionResolution,
} from "../src/index.js";

/** UTC midnight of a day, or a precise instant when a time is given. */
function at(day: string, time = "00:00:00"): Date {
  return new Date(`${day}T${time}Z`);
}

function expectOk(resolution: RevisionResolution) {
  if (!resolution.ok) throw new Error(`expected a revision, got ${resolution.reason}`);
  return resolution.lifecycle;
}

function expectRefusal(resolution: RevisionResolution) {
  if (resolution.ok) throw new Error(`expected a refusal, got ${resolution.lifecycle.revision}`);
  return resolution;
}

describe("revision registry", () => {
  it("lists the three published revisions, oldest first, the latest being 2026-08-26", () => {
    expect(API_REVISIONS).toEqual(["2026-01-01", "2026-06-18", "2026-08-26"]);
    expect(LATEST_REVISION).toBe("2026-08-26");
    expect(API_REVISIONS.at(-1)).toBe(LATEST_REVISION);
  });

  it("accepts only published revisions in apiRevisionSchema", () => {
    expect(apiRevisionSchema.safeParse("2026-06-18").success).toBe(true);
    expect(apiRevisionSchema.safeParse("2026-06-19").success).toBe(false);
  });

  it("switches to problem details from 2026-08-26 and to externalId from 2026-06-18", () => {
    expect(API_REVISIONS.map(usesProblemDetails)).toEqual([false, false, true]);
    expect(API_REVISIONS.map(usesLegacyOrderRef)).toEqual([true, false, false]);
  });
});

describe("parseCalendarDay", () => {
  it("parses a real day as UTC midnight", () => {
    expect(parseCalendarDay("2028-02-29")?.toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });

  it.each(["2026-13-01", "2026-02-30", "2026-02-29", "2026-00-10", "2026-04-31", "2026-1-01"])(
    "rejects %s",
    (value) => {
      expect(parseCalendarDay(value)).toBeUndefined();
    },
  );
});

describe("revisionLifecycle", () => {
  it("is stable for a year from release, then deprecated for a year, then retired", () => {
    expect(revisionLifecycle("2026-01-01", at("2026-12-31", "23:59:59")).status).toBe("stable");
    expect(revisionLifecycle("2026-01-01", at("2027-01-01")).status).toBe("deprecated");
    expect(revisionLifecycle("2026-01-01", at("2027-12-31", "23:59:59")).status).toBe("deprecated");
    expect(revisionLifecycle("2026-01-01", at("2028-01-01")).status).toBe("retired");
  });

  it("dates deprecation and sunset from the revision's own release day", () => {
    const lifecycle = revisionLifecycle("2026-06-18", at("2026-11-22"));
    expect(lifecycle.releasedOn.toISOString()).toBe("2026-06-18T00:00:00.000Z");
    expect(lifecycle.deprecatedOn.toISOString()).toBe("2027-06-18T00:00:00.000Z");
    expect(lifecycle.sunsetOn.toISOString()).toBe("2028-06-18T00:00:00.000Z");
  });

  it("drops retired revisions from the supported list", () => {
    expect(supportedRevisions(at("2026-11-22"))).toEqual([
      "2026-01-01",
      "2026-06-18",
      "2026-08-26",
    ]);
    expect(supportedRevisions(at("2028-01-02"))).toEqual(["2026-06-18", "2026-08-26"]);
    expect(supportedRevisions(at("2028-08-26"))).toEqual([]);
  });
});

describe("revisions not yet released", () => {
  it("are not served before their release day", () => {
    const before = new Date("2026-08-25T23:59:59Z");
    expect(supportedRevisions(before)).toEqual(["2026-01-01", "2026-06-18"]);
    const resolution = resolveRevision("2026-08-26", before);
    expect(resolution).toMatchObject({ ok: false, reason: "unknown-api-revision" });
  });

  it("reads years below 100 as written, so 0026-01-01 is a day but no revision", () => {
    expect(parseCalendarDay("0026-01-01")?.getUTCFullYear()).toBe(26);
    expect(resolveRevision("0026-01-01", new Date("2026-11-22T00:00:00Z"))).toMatchObject({
      ok: false,
      reason: "unknown-api-revision",
    });
  });
});

describe("resolveRevision", () => {
  const today = at("2026-11-22");

  it("serves the oldest supported revision, stable, when no header is sent", () => {
    const lifecycle = expectOk(resolveRevision(undefined, today));
    expect(lifecycle.revision).toBe("2026-01-01");
    expect(lifecycle.status).toBe("stable");
  });

  it.each(["2026-01-01", "2026-06-18", "2026-08-26"])("serves %s when it is asked", (header) => {
    const lifecycle = expectOk(resolveRevision(header, today));
    expect(lifecycle.revision).toBe(header);
    expect(lifecycle.status).toBe("stable");
  });

  it.each(["2026-13-01", "2026-02-30", "20260101", "latest", "", " 2026-01-01", "2026-01-01T00"])(
    "answers invalid-revision-header to %j",
    (header) => {
      const refusal = expectRefusal(resolveRevision(header, today));
      expect(refusal.reason).toBe("invalid-revision-header");
      expect(refusal.message).toContain("YYYY-MM-DD");
    },
  );

  it("quotes at most 40 characters of an invalid header", () => {
    const refusal = expectRefusal(resolveRevision("x".repeat(500), today));
    expect(refusal.reason).toBe("invalid-revision-header");
    expect(refusal.message).toContain(`"${"x".repeat(40)}"`);
    expect(refusal.message).not.toContain("x".repeat(41));
  });

  it.each(["2025-01-01", "2026-06-19", "2028-02-29"])(
    "answers unknown-api-revision to the real day %s that names no revision",
    (header) => {
      const refusal = expectRefusal(resolveRevision(header, today));
      expect(refusal.reason).toBe("unknown-api-revision");
      expect(refusal.message).toContain(header);
      expect(refusal.message).toContain("2026-01-01, 2026-06-18, 2026-08-26");
    },
  );

  it("serves 2026-01-01 as deprecated during its second year", () => {
    const lifecycle = expectOk(resolveRevision("2026-01-01", at("2027-03-01")));
    expect(lifecycle.status).toBe("deprecated");
    expect(lifecycle.deprecatedOn.toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(lifecycle.sunsetOn.toISOString()).toBe("2028-01-01T00:00:00.000Z");

    const byDefault = expectOk(resolveRevision(undefined, at("2027-03-01")));
    expect(byDefault.revision).toBe("2026-01-01");
    expect(byDefault.status).toBe("deprecated");
  });

  it("refuses 2026-01-01 once retired and serves 2026-06-18 by default instead", () => {
    const later = at("2028-01-02");
    const refusal = expectRefusal(resolveRevision("2026-01-01", later));
    expect(refusal.reason).toBe("unknown-api-revision");
    expect(refusal.message).toContain("2026-06-18, 2026-08-26");
    expect(refusal.message).not.toContain("Supported revisions: 2026-01-01");
    expect(refusal.message.match(/2026-01-01/g)).toHaveLength(1);

    const byDefault = expectOk(resolveRevision(undefined, later));
    expect(byDefault.revision).toBe("2026-06-18");
    expect(byDefault.status).toBe("deprecated");
  });

  it("refuses requests without a header once every revision is retired", () => {
    const refusal = expectRefusal(resolveRevision(undefined, at("2030-01-01")));
    expect(refusal.reason).toBe("unknown-api-revision");
  });
});
