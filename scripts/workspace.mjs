// What the root scripts (check-changesets.mjs, release.mjs) share: the repository's root, the
// changesets CLI, and the workspace's packages.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const changesetBin = path.join(root, "node_modules", "@changesets", "cli", "bin.js");

/**
 * The workspace's packages as pnpm itself lists them (`pnpm -r ls --json`, the root left out),
 * as `{ dir, name, version, private }` sorted by folder. Throws an Error if pnpm cannot say.
 */
export function workspacePackages() {
  const listed = spawnSync("pnpm", ["-r", "ls", "--depth", "-1", "--json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (listed.status !== 0) {
    throw new Error(`pnpm -r ls failed (${listed.status}): ${listed.stderr.trim()}`);
  }
  return JSON.parse(listed.stdout)
    .filter((entry) => path.resolve(entry.path) !== root)
    .map((entry) => ({
      dir: path.relative(root, entry.path).split(path.sep).join("/"),
      name: entry.name,
      version: entry.version,
      private: !!entry.private,
    }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
}
