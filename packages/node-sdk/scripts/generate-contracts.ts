import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  ERROR_REASONS,
  LATEST_REVISION,
  PROBLEM_CONTENT_TYPE,
  REVISIONS,
  WEBHOOK_SIGNATURE_HEADER,
} from "@loyalty/shared-types";
import * as prettier from "prettier";
import ts from "typescript";
import { virtualProgram } from "../../../scripts/virtual-program.mjs";

/*
 * Writes src/generated/contracts.ts: the types and constants of @loyalty/shared-types that the
 * SDK uses, printed as plain declarations. The SDK cannot simply re-export shared-types' types:
 * they are zod inferences, so its published .d.ts would import @loyalty/shared-types and zod,
 * which its users do not install (the SDK has no dependency). Printing the resolved types keeps
 * shared-types the one source of the contracts and the SDK free of dependencies.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, "..");
export const CONTRACTS_FILE = path.join(packageDir, "src/generated/contracts.ts");

/** Generated name, type expression (C = @loyalty/shared-types, z = zod), description. */
const TYPES: [name: string, expression: string, doc: string][] = [
  ["ApiRevision", "C.ApiRevision", "A dated revision of the API contract."],
  ["ErrorReason", "C.ErrorReason", "The `<reason>` of an error: the last segment of its `type`."],
  ["EventType", "C.EventType", "The events delivered to webhooks."],
  ["RefundStatus", "C.RefundStatus", "What a refund declaration says of the order."],
  ["RuleKind", "C.RuleKind", "The kinds of attribution rule, in order of precedence."],
  ["LedgerKind", "C.LedgerKind", "The kind of a points transaction."],
  ["VoucherKind", "C.VoucherKind", "What a discount code gives."],
  [
    "ProcessingStatus",
    "z.output<typeof C.processingStatusSchema>",
    "Whether the points of an order or a refund have been computed yet.",
  ],
  ["ReferralStatus", "z.output<typeof C.referralStatusSchema>", "The state of a referral."],
  ["ButtonAction", "C.ButtonAction", "What a widget button does."],
  ["ClaimRefusalReason", "z.output<typeof C.claimRefusalReasonSchema>", "Why a claim was refused."],
  ["OrderCustomer", "z.input<typeof C.orderCustomerSchema>", "The customer who placed an order."],
  ["OrderLine", "z.input<typeof C.orderLineSchema>", "A line of an order, as the store sends it."],
  [
    "RegisterOrderRequestV1",
    "C.RegisterOrderRequestV1Input",
    "An order to register, revision 2026-01-01: identified by `externalRef` (text).",
  ],
  [
    "RegisterOrderRequestV2",
    "C.RegisterOrderRequestV2Input",
    "An order to register, from revision 2026-06-18: identified by the numeric `externalId`, with an optional `externalReference`.",
  ],
  [
    "RegisterOrderResponseV1",
    "C.RegisterOrderResponseV1",
    "A registered order, revision 2026-01-01.",
  ],
  [
    "RegisterOrderResponseV2",
    "C.RegisterOrderResponseV2",
    "A registered order, from revision 2026-06-18.",
  ],
  [
    "RefundLine",
    "z.input<typeof C.refundLineSchema>",
    "Cumulative refunds of an order line, since the order was placed.",
  ],
  [
    "RefundOrderRequestV1",
    "C.RefundOrderRequestV1Input",
    "A refund declaration, revision 2026-01-01. Amounts and quantities are cumulative.",
  ],
  [
    "RefundOrderRequestV2",
    "C.RefundOrderRequestV2Input",
    "A refund declaration, from revision 2026-06-18. Amounts and quantities are cumulative.",
  ],
  ["RefundOrderResponseV1", "C.RefundOrderResponseV1", "A declared refund, revision 2026-01-01."],
  [
    "RefundOrderResponseV2",
    "C.RefundOrderResponseV2",
    "A declared refund, from revision 2026-06-18.",
  ],
  [
    "CalculatePointsResponse",
    "C.CalculatePointsResponse",
    "The points a product earns, and the rule that gives them.",
  ],
  [
    "ProductPoints",
    "C.ProductPoints",
    "A product of a batch as it was asked about, with the points it earns and the rule.",
  ],
  [
    "CalculateManyPointsResponse",
    "C.CalculateManyPointsResponse",
    "The points of many products, in the order asked.",
  ],
  ["ClubSummary", "C.ClubSummary", "A club (tier) of the loyalty programme."],
  ["LedgerTransactionV1", "C.LedgerTransactionV1", "A points transaction, revision 2026-01-01."],
  [
    "LedgerTransactionV2",
    "C.LedgerTransactionV2",
    "A points transaction, from revision 2026-06-18.",
  ],
  [
    "CustomerHistoryResponseV1",
    "C.CustomerHistoryResponseV1",
    "A page of a customer's history, revision 2026-01-01.",
  ],
  [
    "CustomerHistoryResponseV2",
    "C.CustomerHistoryResponseV2",
    "A page of a customer's history, from revision 2026-06-18.",
  ],
  [
    "RecordActivityRequest",
    "z.input<typeof C.recordActivityRequestSchema>",
    "Something a customer did beyond ordering, for the store's ways to earn: credited once per `activityId`.",
  ],
  [
    "RecordActivityResponse",
    "C.RecordActivityResponse",
    "What an activity earned: `credited`, `limit-reached` or `not-rewarded`, the same on every sending.",
  ],
  ["VoucherTerms", "C.VoucherTerms", "What a discount code gives."],
  ["Voucher", "C.Voucher", "The current version of a reward's voucher."],
  ["Reward", "C.Reward", "A reward of the catalogue."],
  ["ClaimRewardRequest", "z.input<typeof C.claimRewardRequestSchema>", "The reward to claim."],
  [
    "ClaimRewardResponse",
    "C.ClaimRewardResponse",
    "A successful claim: the single-use code, bound to the customer.",
  ],
  [
    "ClaimRefusal",
    "C.ClaimRefusal",
    "A refused claim (404 `application/json`, not an error): `code` is null, `reason` says why.",
  ],
  [
    "CustomerCode",
    "C.CustomerCode",
    "A reward code the customer can still use: claimed, not expired, not used by an order.",
  ],
  [
    "CustomerCodesResponse",
    "C.CustomerCodesResponse",
    "The reward codes a customer can still use, newest first.",
  ],
  [
    "CreateReferralRequest",
    "z.input<typeof C.createReferralRequestSchema>",
    "The person a customer refers.",
  ],
  [
    "CreateReferralResponse",
    "C.CreateReferralResponse",
    "A registered referral; give `hash` to the referred person.",
  ],
  [
    "RefereeCodeRequest",
    "z.input<typeof C.refereeCodeRequestSchema>",
    "The referral hash from the invitation email.",
  ],
  ["RefereeCodeResponse", "C.RefereeCodeResponse", "The referred person's discount code."],
  ["WidgetStore", "z.output<typeof C.widgetStoreSchema>", "What every widget needs of its store."],
  ["CartConfig", "C.CartConfig", "The cart widget's configuration."],
  ["CartWidgetResponse", "C.CartWidgetResponse", "The cart widget's configuration and store."],
  ["ProductPointsConfig", "C.ProductPointsConfig", "The product-points widget's configuration."],
  [
    "ProductPointsWidgetResponse",
    "C.ProductPointsWidgetResponse",
    "The product-points widget's configuration and store.",
  ],
  ["PresentationHeader", "C.PresentationHeader", "The programme presentation's banner."],
  [
    "ProgramPresentationConfig",
    "C.ProgramPresentationConfig",
    "The programme presentation widget's configuration.",
  ],
  [
    "ProgramPresentationWidgetResponse",
    "C.ProgramPresentationWidgetResponse",
    "The programme presentation widget's configuration and store.",
  ],
  ["LauncherConfig", "C.LauncherConfig", "The launcher widget's configuration."],
  [
    "ReferralOffer",
    "C.ReferralOffer",
    "What the launcher tells a customer about inviting a friend.",
  ],
  [
    "LauncherWidgetResponse",
    "C.LauncherWidgetResponse",
    "The launcher widget's configuration, store and referral offer.",
  ],
  ["ValidationIssue", "C.ValidationIssue", "One problem found by validation."],
  ["Problem", "C.Problem", "An RFC 9457 problem object: the error body from revision 2026-08-26."],
  ["LegacyError", "C.LegacyError", "The error body before revision 2026-08-26."],
  [
    "WebhookEvent",
    "C.WebhookEvent",
    "The body POSTed to a webhook endpoint. Use `id` to ignore a redelivery.",
  ],
];

/** The one reason of each status that has only one: what a legacy error body implies. */
function reasonByStatus(): Record<number, string> {
  const byStatus = new Map<number, string[]>();
  for (const [reason, { status }] of Object.entries(ERROR_REASONS)) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), reason]);
  }
  const single: Record<number, string> = {};
  for (const [status, reasons] of byStatus) {
    if (reasons.length === 1) single[status] = reasons[0]!;
  }
  return single;
}

const CONSTANTS: [name: string, value: unknown, type: string, doc: string][] = [
  [
    "API_REVISION",
    LATEST_REVISION,
    "",
    "The revision this release of the SDK is written for: what a client uses unless told otherwise.",
  ],
  [
    "API_REVISIONS",
    REVISIONS.map((r) => r.revision),
    " as const satisfies readonly ApiRevision[]",
    "Every revision of the API, oldest first.",
  ],
  [
    "WEBHOOK_SIGNATURE_HEADER",
    WEBHOOK_SIGNATURE_HEADER,
    "",
    "The header that signs a webhook delivery (lower case, as Node names request headers).",
  ],
  ["PROBLEM_CONTENT_TYPE", PROBLEM_CONTENT_TYPE, "", "The media type of problem objects."],
  [
    "REASON_BY_STATUS",
    reasonByStatus(),
    ": Readonly<Partial<Record<number, ErrorReason>>>",
    "The reason a status implies when it has only one: legacy error bodies carry no reason.",
  ],
];

function docComment(text: string): string {
  const lines = text.trim().split("\n");
  return lines.length === 1 && lines[0]
    ? `/** ${lines[0]} */\n`
    : `/**\n${lines.map((l) => ` * ${l}`.trimEnd()).join("\n")}\n */\n`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function printTypes(): string {
  const sharedTypesSrc = path.join(
    realpathSync(path.join(packageDir, "node_modules/@loyalty/shared-types")),
    "src",
  );
  // Placed among shared-types' sources so that `zod` resolves as it does for them.
  const virtualFile = path.join(sharedTypesSrc, "__sdk_contracts__.ts");
  const source = [
    `import type * as C from "./index.js";`,
    `import type { z } from "zod";`,
    ...TYPES.map(([name, expression]) => `export type ${name} = ${expression};`),
  ].join("\n");

  const configFile = ts.getParsedCommandLineOfConfigFile(
    path.join(packageDir, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!configFile) throw new Error("tsconfig.json could not be read");
  // The virtual file lives outside this package: no rootDir applies to it.
  const options = { ...configFile.options, rootDir: undefined };
  const { checker, sourceFile } = virtualProgram(ts, { file: virtualFile, source, options });
  const aliases = sourceFile.statements
    .filter(ts.isTypeAliasDeclaration)
    .map((alias) => ({ name: alias.name.text, type: checker.getTypeAtLocation(alias.name) }));

  // A nested type identical to a generated one is written by its name, and so are the members
  // of a union that make up a generated union (`RuleKind | null`).
  const names = new Map<ts.Type, string>();
  const unions: { name: string; members: Set<ts.Type> }[] = [];
  for (const { name, type } of aliases) {
    if (type.flags & ts.TypeFlags.Object && !names.has(type)) names.set(type, name);
    if (type.isUnion() && !(type.flags & ts.TypeFlags.Boolean)) {
      unions.push({ name, members: new Set(type.types) });
    }
  }
  const isNullish = (type: ts.Type) =>
    (type.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) !== 0;

  const print = (type: ts.Type, top = false): string => {
    const named = names.get(type);
    if (named && !top) return named;
    if (type.isUnion()) {
      let members = type.types;
      const parts: string[] = [];
      if (!top) {
        for (const union of unions) {
          if ([...union.members].every((m) => members.includes(m))) {
            parts.push(union.name);
            members = members.filter((m) => !union.members.has(m));
          }
        }
      }
      const booleans = members.filter((m) => m.flags & ts.TypeFlags.BooleanLiteral);
      const others = members.filter((m) => !(m.flags & ts.TypeFlags.BooleanLiteral));
      if (booleans.length === 2) parts.push("boolean");
      else parts.push(...booleans.map((m) => checker.typeToString(m)));
      // null and undefined last: `string | null` reads better than `null | string`.
      parts.push(...others.filter((m) => !isNullish(m)).map((m) => print(m)));
      parts.push(...others.filter(isNullish).map((m) => checker.typeToString(m)));
      return parts.join(" | ");
    }
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type as ts.TypeReference)[0]!;
      const printed = print(element);
      return element.isUnion() && !names.has(element) ? `(${printed})[]` : `${printed}[]`;
    }
    if (type.flags & ts.TypeFlags.Object) {
      const members = checker
        .getIndexInfosOfType(type)
        .map((info) => `[key: ${checker.typeToString(info.keyType)}]: ${print(info.type)};`);
      for (const property of checker.getPropertiesOfType(type)) {
        const doc = ts.displayPartsToString(property.getDocumentationComment(checker));
        const optional = property.flags & ts.SymbolFlags.Optional ? "?" : "";
        const key = IDENTIFIER.test(property.name) ? property.name : JSON.stringify(property.name);
        members.push(
          `${doc ? docComment(doc) : ""}${key}${optional}: ${print(checker.getTypeOfSymbol(property))};`,
        );
      }
      return `{\n${members.join("\n")}\n}`;
    }
    return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
  };

  return aliases
    .map(({ name, type }) => {
      const doc = TYPES.find(([n]) => n === name)![2];
      return `${docComment(doc)}export type ${name} = ${print(type, true)};`;
    })
    .join("\n\n");
}

function printConstants(): string {
  return CONSTANTS.map(([name, value, type, doc]) => {
    const annotation = type.startsWith(":") ? type : "";
    const suffix = type.startsWith(":") ? "" : type;
    return `${docComment(doc)}export const ${name}${annotation} = ${JSON.stringify(value)}${suffix};`;
  }).join("\n\n");
}

export async function generateContracts(): Promise<string> {
  const text = [
    "// Generated by scripts/generate-contracts.ts from @loyalty/shared-types: do not edit.",
    "// `pnpm --filter @loyalty/node-sdk generate` rewrites it; a test fails when it is stale.",
    "",
    printConstants(),
    "",
    printTypes(),
    "",
  ].join("\n");
  const options = await prettier.resolveConfig(CONTRACTS_FILE);
  return prettier.format(text, { ...options, filepath: CONTRACTS_FILE });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = await generateContracts();
  const current = (() => {
    try {
      return readFileSync(CONTRACTS_FILE, "utf8");
    } catch {
      return undefined;
    }
  })();
  if (current === text) {
    process.stdout.write(`${path.relative(process.cwd(), CONTRACTS_FILE)} is up to date\n`);
  } else {
    writeFileSync(CONTRACTS_FILE, text);
    process.stdout.write(`wrote ${path.relative(process.cwd(), CONTRACTS_FILE)}\n`);
  }
}
