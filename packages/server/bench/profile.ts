import { readFileSync } from "node:fs";

/**
 * `node --import tsx bench/profile.ts <file.cpuprofile>`: where a V8 CPU profile's time went,
 * as self time per function and per package (a dependency of node_modules, our own source, Node
 * itself), in percent of all samples. A profile comes from `BENCH_PROFILE=<directory>` with
 * `pnpm bench` (the server writes it when it stops); this is what BENCHMARKS.md quotes.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error("usage: bench/profile.ts <file.cpuprofile> [rows]");
const rows = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

/** Microseconds of self time per profile node. */
const self = new Map<number, number>();
profile.samples.forEach((id, index) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...self.values()].reduce((sum, time) => sum + time, 0);

/** The package a frame belongs to: `express`, `zod`, `(our source)`, `(node)`, `(idle)`… */
function packageOf({ url, functionName }: ProfileNode["callFrame"]): string {
  if (!url) {
    if (functionName === "(idle)" || functionName === "(program)") return functionName;
    if (functionName === "(garbage collector)") return "(garbage collection)";
    return "(native)";
  }
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + "/node_modules/".length).split("/");
    return scope?.startsWith("@") ? `${scope}/${name}` : (scope ?? url);
  }
  if (url.startsWith("node:")) return "(node)";
  if (url.includes("/packages/")) return `(our ${url.split("/packages/")[1]?.split("/")[0]})`;
  return url;
}

function table(title: string, times: Map<string, number>): void {
  process.stdout.write(`\n${title}\n`);
  const sorted = [...times].sort((a, b) => b[1] - a[1]).slice(0, rows);
  for (const [name, time] of sorted) {
    process.stdout.write(`${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}\n`);
  }
}

const functions = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, time] of self) {
  const node = byId.get(id);
  if (!node) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|packages)\//, "")}:${lineNumber + 1}` : "";
  const name = `${functionName || "(anonymous)"} ${where}`.trim();
  functions.set(name, (functions.get(name) ?? 0) + time);
  const pkg = packageOf(node.callFrame);
  packages.set(pkg, (packages.get(pkg) ?? 0) + time);
}
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
table("self time by package", packages);
table("self time by function", functions);
