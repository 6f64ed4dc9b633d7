// `pnpm audit:deps` (CI): the production dependencies against the registry's advisories; a high
// or critical one fails. Decided from `pnpm audit --json`, never from its text. A registry that
// has no audit service (a mirror or a closed network: the endpoints answer 404 or 405, or
// cannot be reached) is said plainly and skipped: that is no finding about the dependencies.
// Any other failure (5xx, refused credentials, unreadable output) fails.
import { spawnSync } from "node:child_process";

const result = spawnSync("pnpm", ["audit", "--prod", "--json"], {
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
let report;
try {
  report = JSON.parse(result.stdout);
} catch {
  process.stderr.write(
    `audit: unreadable output (exit ${result.status})\n${result.stdout}${result.stderr}`,
  );
  process.exit(1);
}

if (report.error) {
  const { code = "", message = "" } = report.error;
  const noService =
    (code === "ERR_PNPM_AUDIT_BAD_RESPONSE" && /responded with 40[45]\b/.test(message)) ||
    /ERR_PNPM_AUDIT_ENDPOINT_NOT_EXISTS|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN/.test(code);
  process.stdout.write(`${code}: ${message}\n`);
  if (noService) {
    process.stdout.write(
      "audit: SKIPPED, this registry offers no audit service; run `pnpm audit:deps` where registry.npmjs.org answers.\n",
    );
    process.exit(0);
  }
  process.exit(1);
}

const counts = report.metadata?.vulnerabilities ?? {};
const serious = Object.values(report.advisories ?? {}).filter((advisory) =>
  ["high", "critical"].includes(advisory.severity),
);
for (const advisory of serious) {
  process.stdout.write(
    `${advisory.severity.toUpperCase()} ${advisory.module_name} ${advisory.vulnerable_versions}: ${advisory.title} (${advisory.url})\n`,
  );
}
process.stdout.write(
  `audit: ${["critical", "high", "moderate", "low"].map((level) => `${counts[level] ?? 0} ${level}`).join(", ")}\n`,
);
process.exit(serious.length > 0 ? 1 : 0);
