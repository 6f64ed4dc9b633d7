// `pnpm release`: build every package, check the tarballs of the published ones, then
// `changeset publish` (publishes each package whose version is not on npm yet, and tags it;
// the server, private, is tagged only). Run it after the "Version Packages" commit, on a clean
// checkout of main, logged in to npm (see docs/maintainers.md). On GitHub Actions or GitLab
// CI/CD it publishes with provenance (npm's `--provenance`), which needs each manifest's
// "repository" and, on GitHub, the job's `id-token: write` permission.
//
// `pnpm release --dry-run [--no-build]` (CI): changes nothing in the checkout and contacts no
// registry. It runs the real `changeset version` on a copy of the manifests and the changesets
// in a temporary directory and prints each package's next version and changelog, builds (unless
// --no-build: CI has built already), packs each published package with `pnpm pack` (which turns
// `workspace:*` into versions) and checks the tarball: no `workspace:` range left, every file its
// manifest names is inside, a README, "repository", "homepage" and "bugs", every package its code
// and declarations import among its dependencies, and no dependency imported by its declarations
// alone.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { changesetBin, root, workspacePackages } from "./workspace.mjs";

const USAGE = "usage: pnpm release [--dry-run [--no-build]]";
/** Export conditions for the monorepo's own tools (source files, not in the tarball). */
const DEV_CONDITIONS = new Set(["@loyalty/source"]);
const FIELDS_NAMING_FILES = [
  "main",
  "module",
  "types",
  "typings",
  "browser",
  "unpkg",
  "jsdelivr",
  "customElements",
];
const DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
];
/** What the tarball ships that imports packages: code and type declarations. */
const CODE_FILE = /\.(?:[mc]?js|d\.[mc]?ts)$/;
const DECLARATION_FILE = /\.d\.[mc]?ts$/;
/** `from "x"`, `import("x")`, `require("x")` and `/// <reference types="x" />`. */
const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|<reference\s+types=|^\s*import\s+)(["'])([^"'\s]+)\1/gm;
const BUILTINS = new Set(builtinModules);
/**
 * npm signs provenance (which build, from which commit, made the tarball) only where the CI
 * provider vouches for the build with an OIDC token: GitHub Actions and GitLab CI/CD.
 */
const provenanceProvider =
  process.env.GITHUB_ACTIONS === "true"
    ? "GitHub Actions"
    : process.env.GITLAB_CI === "true"
      ? "GitLab CI/CD"
      : undefined;
// pnpm's update notifier would ask the registry for pnpm's latest version.
const env = { ...process.env, npm_config_update_notifier: "false", NO_COLOR: "1" };

const out = (text = "") => process.stdout.write(`${text}\n`);
const err = (text = "") => process.stderr.write(`${text}\n`);
const started = performance.now();
const elapsed = (since = started) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const temps = [];
function cleanUp() {
  for (const dir of temps.splice(0)) {
    // The node_modules link first, so that nothing could ever follow it.
    const link = path.join(dir, "node_modules");
    if (existsSync(link) && lstatSync(link).isSymbolicLink()) unlinkSync(link);
    rmSync(dir, { recursive: true, force: true });
  }
}
process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}
const tempDir = (name) => {
  const dir = mkdtempSync(path.join(tmpdir(), `loyalty-release-${name}-`));
  temps.push(dir);
  return dir;
};

class Failure extends Error {}

function run(command, args, { cwd = root, inherit = false, extraEnv = {} } = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...env, ...extraEnv },
    encoding: "utf8",
    stdio: inherit ? "inherit" : "pipe",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

const pendingChangesets = () =>
  readdirSync(path.join(root, ".changeset")).filter(
    (file) => file.endsWith(".md") && file !== "README.md",
  );

/** Consecutive equal lines once, with a count ("Updated dependencies" comes once per changeset). */
function collapse(lines) {
  const result = [];
  for (const line of lines) {
    const last = result.at(-1);
    if (last && last.line === line) last.count += 1;
    else result.push({ line, count: 1 });
  }
  return result.map(({ line, count }) => (count > 1 ? `${line} (×${count})` : line));
}

/** The newest section of a changelog: from its first `## ` heading to the next. */
function newestSection(changelog) {
  const lines = changelog.split(/\r?\n/);
  const start = lines.findIndex((line) => line.startsWith("## "));
  if (start === -1) return [];
  const next = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start, next === -1 ? undefined : next).filter((line) => line.trim() !== "");
}

// --- (a) the version step, for real, on a copy ---------------------------------------------------

function previewVersionStep(packages) {
  const copy = tempDir("version");
  for (const file of ["package.json", "pnpm-workspace.yaml", ".prettierrc.json", ".prettierrc"]) {
    if (existsSync(path.join(root, file)))
      copyFileSync(path.join(root, file), path.join(copy, file));
  }
  for (const pkg of packages) {
    mkdirSync(path.join(copy, pkg.dir), { recursive: true });
    for (const file of ["package.json", "CHANGELOG.md"]) {
      const from = path.join(root, pkg.dir, file);
      if (existsSync(from)) copyFileSync(from, path.join(copy, pkg.dir, file));
    }
  }
  mkdirSync(path.join(copy, ".changeset"));
  for (const entry of readdirSync(path.join(root, ".changeset"), { withFileTypes: true })) {
    if (entry.isFile()) {
      copyFileSync(
        path.join(root, ".changeset", entry.name),
        path.join(copy, ".changeset", entry.name),
      );
    }
  }
  // Changesets formats the changelogs with the project's prettier, found from the copy.
  symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"), "dir");

  // No git repository in the copy (and none looked for above it): the changelog lines go without
  // the commit hashes the real run adds.
  const { status, output } = run(process.execPath, [changesetBin, "version"], {
    cwd: copy,
    extraEnv: { GIT_CEILING_DIRECTORIES: path.dirname(copy) },
  });
  if (status !== 0) {
    throw new Failure(
      `\`changeset version\` cannot apply the pending changesets:\n${output.trim()}`,
    );
  }

  const problems = [];
  let bumped = 0;
  for (const pkg of packages) {
    const next = JSON.parse(readFileSync(path.join(copy, pkg.dir, "package.json"), "utf8"));
    if (next.version === pkg.version) continue;
    bumped += 1;
    out(
      `  ${pkg.name}: ${pkg.version} → ${next.version}${pkg.private ? " (private: tag only)" : ""}`,
    );
    if (pkg.dir.startsWith("examples/")) {
      problems.push(
        `${pkg.name} (${pkg.dir}) would be versioned: an example must have no "version"`,
      );
    }
    const changelog = path.join(copy, pkg.dir, "CHANGELOG.md");
    if (!existsSync(changelog)) {
      problems.push(`${pkg.name}: \`changeset version\` wrote no CHANGELOG.md`);
      continue;
    }
    const section = collapse(newestSection(readFileSync(changelog, "utf8")));
    for (const line of section.slice(0, 10)) {
      out(`      ${line.length > 120 ? `${line.slice(0, 119)}…` : line}`);
    }
    if (section.length > 10) out(`      … ${section.length - 10} more lines`);
  }
  const unchanged = packages.filter((pkg) => {
    const next = JSON.parse(readFileSync(path.join(copy, pkg.dir, "package.json"), "utf8"));
    return next.version === pkg.version;
  });
  if (unchanged.length > 0) {
    out(
      `  unchanged: ${unchanged.map((pkg) => `${pkg.name} ${pkg.version ?? "(no version)"}`).join(", ")}`,
    );
  }
  const left = readdirSync(path.join(copy, ".changeset")).filter(
    (file) => file.endsWith(".md") && file !== "README.md",
  );
  if (left.length > 0) problems.push(`changesets left unapplied: ${left.join(", ")}`);
  if (bumped === 0) out("  no pending changesets: nothing to version");
  if (problems.length > 0) throw new Failure(problems.join("\n"));
}

// --- (c) the tarballs ----------------------------------------------------------------------------

/** Every file a manifest names, except under the monorepo's own export conditions. */
function namedFiles(manifest) {
  const files = new Set();
  const add = (value) => {
    if (typeof value === "string") files.add(value.replace(/^\.\//, ""));
  };
  for (const field of FIELDS_NAMING_FILES) add(manifest[field]);
  if (typeof manifest.bin === "string") add(manifest.bin);
  else for (const target of Object.values(manifest.bin ?? {})) add(target);
  const walk = (value) => {
    if (typeof value === "string") add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [key, target] of Object.entries(value)) if (!DEV_CONDITIONS.has(key)) walk(target);
    }
  };
  walk(manifest.exports);
  return [...files];
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

const repositoryOf = (pkg) => {
  const { repository } = JSON.parse(readFileSync(path.join(root, pkg.dir, "package.json"), "utf8"));
  return typeof repository === "string" ? repository : repository?.url;
};

const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * What the shipped files import against what the manifest makes npm install: an import of a
 * package that is not a dependency does not resolve for users; a dependency that only
 * declarations import makes every user install it (and its own dependencies) for types alone.
 */
function importProblems(manifest, unpacked, files) {
  const declared = new Set(
    ["dependencies", "peerDependencies", "optionalDependencies"].flatMap((field) =>
      Object.keys(manifest[field] ?? {}),
    ),
  );
  const importedBy = new Map();
  for (const file of files) {
    if (!CODE_FILE.test(file)) continue;
    const text = readFileSync(path.join(unpacked, file), "utf8");
    for (const [, , specifier] of text.matchAll(SPECIFIER)) {
      if (/^(?:\.|\/|node:|data:|https?:)/.test(specifier) || BUILTINS.has(specifier)) continue;
      const name = packageOf(specifier);
      if (name === manifest.name) continue;
      importedBy.set(name, [...(importedBy.get(name) ?? []), file]);
    }
  }
  const problems = [];
  for (const [name, importers] of importedBy) {
    if (!declared.has(name)) {
      problems.push(
        `${importers[0]}${importers.length > 1 ? ` (and ${importers.length - 1} more)` : ""}` +
          ` imports ${name}, which is not among its dependencies: it does not resolve for users`,
      );
    }
  }
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    const importers = importedBy.get(name) ?? [];
    if (importers.length > 0 && importers.every((file) => DECLARATION_FILE.test(file))) {
      problems.push(
        `dependencies.${name} is imported by type declarations only (${importers[0]}): every` +
          " user installs it for types; include the types in the declarations and make it a" +
          " devDependency",
      );
    }
  }
  return problems;
}

function checkTarball(pkg, destination) {
  const { status, output } = run("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: path.join(root, pkg.dir),
  });
  if (status !== 0) throw new Failure(`${pkg.name}: \`pnpm pack\` failed:\n${output.trim()}`);
  const tarball = JSON.parse(
    output.slice(output.indexOf("{"), output.lastIndexOf("}") + 1),
  ).filename;

  const listing = run("tar", ["-tzf", tarball]);
  if (listing.status !== 0) throw new Failure(`${pkg.name}: tar -tzf ${tarball} failed`);
  const entries = listing.output.split("\n").filter((line) => line && !line.endsWith("/"));
  const files = new Set(entries.map((entry) => entry.replace(/^package\//, "")));
  const sizes = run("tar", ["-tvzf", tarball]).output.split("\n");
  const unpacked = sizes.reduce((sum, line) => sum + (Number(line.trim().split(/\s+/)[2]) || 0), 0);

  const extracted = tempDir("unpacked");
  if (run("tar", ["-xzf", tarball, "-C", extracted]).status !== 0) {
    throw new Failure(`${pkg.name}: tar -xzf ${tarball} failed`);
  }
  const contents = path.join(extracted, "package");
  if (!existsSync(path.join(contents, "package.json"))) {
    throw new Failure(`${pkg.name}: the tarball has no package/package.json`);
  }
  const text = readFileSync(path.join(contents, "package.json"), "utf8");
  const manifest = JSON.parse(text);

  const problems = [];
  if (text.includes("workspace:")) {
    for (const field of DEPENDENCY_FIELDS) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (String(range).startsWith("workspace:")) problems.push(`${field}.${name} is "${range}"`);
      }
    }
    if (problems.length === 0) problems.push('its package.json still says "workspace:"');
  }
  for (const file of namedFiles(manifest)) {
    const present = file.includes("*")
      ? [...files].some((entry) =>
          new RegExp(
            `^${file
              .split("*")
              .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
              .join(".*")}$`,
          ).test(entry),
        )
      : files.has(file);
    if (!present) {
      problems.push(
        `its package.json names ${file}, which is not in the tarball` +
          (skipBuild ? " (with --no-build: was it built?)" : ""),
      );
    }
  }
  if (![...files].some((file) => /^readme(\.(md|markdown|txt))?$/i.test(file))) {
    problems.push("no README in the tarball (npm shows it as the package's page)");
  }
  // npm's page links them, and a provenance statement must name the manifest's repository.
  for (const field of ["repository", "homepage", "bugs"]) {
    if (!manifest[field]) problems.push(`no "${field}" in the manifest`);
  }
  problems.push(...importProblems(manifest, contents, files));

  const summary = `${manifest.name}@${manifest.version}: ${files.size} files, ${kb(statSync(tarball).size)} packed, ${kb(unpacked)} unpacked`;
  return { summary, problems };
}

function checkTarballs(packages) {
  const destination = tempDir("pack");
  const failures = [];
  for (const pkg of packages.filter((p) => !p.private && p.version !== undefined)) {
    const { summary, problems } = checkTarball(pkg, destination);
    out(`  ${summary}${problems.length === 0 ? "" : "  FAILED"}`);
    for (const problem of problems) out(`      ${problem}`);
    if (problems.length > 0) failures.push(pkg.name);
  }
  if (failures.length > 0) {
    throw new Failure(`the tarball of ${failures.join(", ")} is not fit to publish (above)`);
  }
}

function build() {
  if (run("pnpm", ["build"], { inherit: true }).status !== 0)
    throw new Failure("`pnpm build` failed");
}

// --- main ----------------------------------------------------------------------------------------

const args = process.argv.slice(2);
const unknown = args.filter((arg) => !["--dry-run", "--no-build", "--help", "-h"].includes(arg));
if (args.includes("--help") || args.includes("-h")) {
  out(USAGE);
  process.exit(0);
}
const dryRun = args.includes("--dry-run");
const skipBuild = args.includes("--no-build");
if (unknown.length > 0 || (skipBuild && !dryRun)) {
  err(
    unknown.length > 0 ? `unknown option ${unknown.join(" ")}` : "--no-build is for --dry-run only",
  );
  err(USAGE);
  process.exit(2);
}

/** Runs one step; a failed step is reported and the next ones still run (all problems at once). */
const failures = [];
function step(title, action) {
  const since = performance.now();
  out(`\n${title}`);
  try {
    action();
    out(`  (${elapsed(since)})`);
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    err(`  FAILED: ${error.message.replaceAll("\n", "\n  ")}`);
    failures.push(title);
  }
}

if (!existsSync(changesetBin)) {
  err(`${changesetBin} is missing: run \`pnpm install\``);
  process.exit(1);
}
let packages;
try {
  packages = workspacePackages();
} catch (error) {
  err(`release: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

if (dryRun) {
  step(
    `release dry run: the version step (\`changeset version\` on a copy, ${pendingChangesets().length} pending changesets)`,
    () => previewVersionStep(packages),
  );
  if (skipBuild) out("\nrelease dry run: build skipped (--no-build)");
  else step("release dry run: pnpm build", build);
  step("release dry run: the tarballs `changeset publish` would upload (current versions)", () =>
    checkTarballs(packages),
  );
  if (failures.length > 0) {
    err(`\nrelease dry run failed (${elapsed()}): ${failures.length} step(s) above`);
    process.exit(1);
  }
  out(`\nrelease dry run: OK, nothing changed, nothing published (${elapsed()})`);
} else {
  step("release: preconditions", () => {
    // Every unmet one at once, so that a release in CI needs one round of fixes.
    const unmet = [];
    const pending = pendingChangesets();
    if (pending.length > 0) {
      unmet.push(
        `${pending.length} changesets are pending (${pending.join(", ")}): version first with\n` +
          '`pnpm changeset version`, review, commit "Version Packages", then release.',
      );
    }
    const dirty = run("git", ["status", "--porcelain"]).output.trim();
    if (dirty !== "") {
      unmet.push(
        `the checkout has uncommitted changes; the tags must name what is published:\n${dirty}`,
      );
    }
    if (provenanceProvider) {
      // The registry refuses a provenance statement whose repository is not the manifest's.
      const unnamed = packages.filter(
        (pkg) => !pkg.private && pkg.version !== undefined && !repositoryOf(pkg),
      );
      if (unnamed.length > 0) {
        unmet.push(
          `publishing with provenance (${provenanceProvider}) needs a "repository" naming the ` +
            `repository CI builds in ${unnamed.map((pkg) => `${pkg.dir}/package.json`).join(", ")}`,
        );
      }
    }
    if (unmet.length > 0) throw new Failure(unmet.join("\n"));
  });
  if (failures.length === 0) step("release: pnpm build", build);
  if (failures.length === 0) step("release: the tarballs", () => checkTarballs(packages));
  if (failures.length === 0) {
    step("release: changeset publish", () => {
      // npm reads its settings from the environment too; `pnpm publish` runs `npm publish`.
      if (provenanceProvider) out(`  with provenance, signed by ${provenanceProvider}`);
      else if (process.env.CI)
        out("  without provenance: this CI cannot sign it (npm: GitHub, GitLab)");
      const extraEnv = provenanceProvider ? { npm_config_provenance: "true" } : {};
      if (
        run(process.execPath, [changesetBin, "publish"], { inherit: true, extraEnv }).status !== 0
      ) {
        throw new Failure("see above; run `pnpm release` again once fixed");
      }
    });
  }
  if (failures.length > 0) {
    err(`\nrelease failed (${elapsed()}): nothing more was done after the failed step`);
    process.exit(1);
  }
  out(
    `\nrelease: done (${elapsed()}). Push the commit and its new tags:\n\n  git push --follow-tags\n`,
  );
}
