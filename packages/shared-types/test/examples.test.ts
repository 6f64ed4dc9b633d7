import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ADMIN_OPERATIONS,
  OPERATIONS,
  OPERATION_EXAMPLES,
  PARAMETER_EXAMPLES,
  type OperationDefinition,
} from "../src/index.js";

type Part = "request" | "response" | "refusal";
type Examples = Partial<Record<Part, unknown>>;

const operations = Object.entries({ ...OPERATIONS, ...ADMIN_OPERATIONS }) as [
  string,
  OperationDefinition,
][];
const examples = OPERATION_EXAMPLES as Record<string, Examples>;

const schemaOf = (operation: OperationDefinition, part: Part) =>
  part === "request"
    ? operation.body
    : part === "response"
      ? operation.response
      : operation.refusal;

/** The (label, schema, example) triples of one part: one, or one per revision. */
function cases(name: string, part: Part): [string, z.ZodType, unknown][] {
  const operation = operations.find(([n]) => n === name)![1];
  const schema = schemaOf(operation, part)!;
  const example = examples[name]?.[part];
  if (schema instanceof z.ZodType) return [[`${name} ${part}`, schema, example]];
  return Object.entries(schema).map(([revision, revisionSchema]) => [
    `${name} ${part} ${revision}`,
    revisionSchema,
    (example as Record<string, unknown> | undefined)?.[revision],
  ]);
}

const withPart = (part: Part) =>
  operations.filter(([, operation]) => schemaOf(operation, part)).map(([name]) => name);

const issues = (error: z.ZodError) =>
  error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");

describe("OPERATION_EXAMPLES", () => {
  it("has an example for every body of every operation, and none for bodies that do not exist", () => {
    expect(Object.keys(examples).sort()).toEqual(operations.map(([name]) => name).sort());
    for (const [name, operation] of operations) {
      const expected = (["request", "response", "refusal"] as const).filter((part) =>
        schemaOf(operation, part),
      );
      expect(Object.keys(examples[name]!).sort(), name).toEqual([...expected].sort());
    }
  });

  it.each(withPart("request"))("%s: the request example is accepted", (name) => {
    for (const [label, schema, example] of cases(name, "request")) {
      expect(example, label).toBeDefined();
      const parsed = schema.safeParse(example);
      expect(parsed.success ? "" : issues(parsed.error), label).toBe("");
    }
  });

  it.each([...withPart("response"), ...withPart("refusal").map((name) => `${name} refusal`)])(
    "%s: the response example is what the server would send",
    (entry) => {
      const [name, part] = entry.endsWith(" refusal")
        ? [entry.slice(0, -" refusal".length), "refusal" as const]
        : [entry, "response" as const];
      for (const [label, schema, example] of cases(name, part)) {
        expect(example, label).toBeDefined();
        const parsed = schema.safeParse(example);
        expect(parsed.success ? "" : issues(parsed.error), label).toBe("");
        // Output schemas strip unknown keys: an example must not show a field that is never sent.
        expect(parsed.data, label).toEqual(example);
      }
    },
  );

  it("gives each revision of a per-revision body an example the other revision refuses", () => {
    let checked = 0;
    for (const part of ["request", "response"] as const) {
      for (const name of withPart(part)) {
        const all = cases(name, part);
        if (all.length < 2) continue;
        for (const [label, , example] of all) {
          for (const [otherLabel, otherSchema] of all) {
            if (otherLabel === label) continue;
            expect(otherSchema.safeParse(example).success, `${label} under ${otherLabel}`).toBe(
              false,
            );
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });
});

describe("PARAMETER_EXAMPLES", () => {
  const asText = (value: string | number | number[] | string[]) =>
    Array.isArray(value) ? value.map(String) : String(value);

  it.each(
    operations.flatMap(([name, operation]) =>
      (["query", "pathParams"] as const)
        .filter((part) => operation[part])
        .map((part) => [name, part] as const),
    ),
  )("%s %s: every parameter has an example, and the operation accepts them", (name, part) => {
    const schema = operations.find(([n]) => n === name)![1][part] as z.ZodObject;
    const names = Object.keys(schema.shape);
    const missing = names.filter((parameter) => !(parameter in PARAMETER_EXAMPLES));
    expect(missing).toEqual([]);
    const values = Object.fromEntries(
      names.map((parameter) => [parameter, asText(PARAMETER_EXAMPLES[parameter]!)]),
    );
    const parsed = schema.safeParse(values);
    expect(parsed.success ? "" : issues(parsed.error)).toBe("");
  });
});
