import { OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { RecordActivityResponse } from "../../src/index.js";
import { answer, client, CREDENTIALS, json, useMockApi } from "../support/api.js";

useMockApi();

const example = OPERATION_EXAMPLES.recordActivity;
const basic = `Basic ${Buffer.from(`${CREDENTIALS.apiKey}:`).toString("base64")}`;

describe("activities.record", () => {
  it("POSTs the activity with Basic authentication and answers what it earned", async () => {
    const seen = answer("post", "/api/activity", () => json(example.response, 201));

    const recorded = await client().activities.record(example.request);

    expect(recorded).toEqual(example.response);
    expectTypeOf(recorded).toEqualTypeOf<RecordActivityResponse>();
    const [request] = seen;
    expect(request!.headers.get("authorization")).toBe(basic);
    expect(request!.headers.get("revision")).toBe("2026-08-26");
    expect(request!.body).toEqual(example.request);
  });
});
