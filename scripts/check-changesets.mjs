// `pnpm changeset:check` (CI): every change to a versioned package (the published ones, and the
// server, versioned but not published) must come with changeset activity, a new changeset or an
// edit of a pending one, in the same commit or a later one. `changeset status` only checks that
// some changeset exists, and "a pending changeset names the package" is not enough either: once a
// package has one, every later change would pass without one. So, package by package:
//
// - base: the newest, by commit ancestry (`git merge-base --is-ancestor`, not dates: commits
//   made in the same second, rebases and merges would fool timestamps), of
//   (a) the last commit that changed the package's `"version":` line (`changeset version` in the
//       "Version Packages" commit, or the commit that created the package), and
//   (b) the last commit that added or modified a pending changeset naming the package with
//       patch, minor or major (a `none` release versions nothing, so it does not count);
//   on a history with merges where no candidate descends from all the others, a file counts
//   only if it differs from every candidate that nothing else descends from;
// - changed files: what differs between the base and the working tree (uncommitted and
//   untracked files count: CI runs on a clean clone, a developer sees their own changes),
//   among the files that `changedFilePatterns` in .changeset/config.json counts (not tests);
//   a `package.json` whose only change is in `devDependencies` does not count (installing the
//   package gets nothing new);
// - the package passes if no such file changed, or if a pending changeset naming it is itself
//   uncommitted, modified or untracked (the developer is writing it now). Otherwise it fails,
//   with the files: add a changeset, or, when the change refines what the pending one already
//   says, edit that one in the same commit;
// - pending changesets: read by the changesets CLI itself (`changeset status --output`), so a
//   changeset it could not apply fails here too.
//
// Also checks that examples stay unversioned (private, no "version" field), that the clone is
// not shallow and that the base branch exists. Exits 1 on a gap.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { changesetBin, root, workspacePackages } from "./workspace.mjs";

const started = performance.now();
const BUMPS = ["major", "minor", "patch", "none"];
const FILES_SHOWN = 15;

const out = (text = "") => process.stdout.write(`${text}\n`);
const err = (text = "") => process.stderr.write(`${text}\n`);
const fail = (lines) => {
  for (const line of lines) err(line);
  process.exit(1);
};

function git(args) {
  const result = spawnSync("git", ["-c", "core.quotePath=false", ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`git ${args.join(" ")} failed:\n${result.stderr.trim()}`);
  }
  return result.stdout;
}
const lines = (text, separator = "\n") => text.split(separator).filter((line) => line !== "");

/** A changeset-config name glob (micromatch) for package names: `*` within a segment only. */
const nameMatcher = (glob) =>
  new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
      .join("[^/]*")}$`,
  );

/** The front-matter problem of a changeset file, if the simple form does not read it. */
function frontMatterProblem(text, names) {
  const match = /^---\r?\n([\s\S]*?)^---\s*$/m.exec(text);
  if (!match || match.index !== 0) return 'it does not start with front matter between "---" lines';
  for (const line of match[1].split(/\r?\n/)) {
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const entry = /^\s*(?:"([^"]+)"|'([^']+)'|([^\s"'@:][^\s:]*))\s*:\s*(\S+)\s*$/.exec(line);
    if (!entry) return `the line ${JSON.stringify(line)} is not "<package>": <bump>`;
    const name = entry[1] ?? entry[2] ?? entry[3];
    if (!names.has(name)) return `"${name}" is not a package of this workspace`;
    if (!BUMPS.includes(entry[4])) return `"${entry[4]}" is not one of ${BUMPS.join(", ")}`;
  }
  return null;
}

/** Pending changesets as the CLI reads them: [{ id, releases: [{ name, type }] }]. */
function pendingChangesets(names) {
  if (!existsSync(changesetBin)) fail([`${changesetBin} is missing: run \`pnpm install\`.`]);
  const tmp = mkdtempSync(path.join(tmpdir(), "changeset-check-"));
  // process.exit (in fail) skips `finally`: remove it on exit too.
  const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
  process.on("exit", removeTmp);
  try {
    const output = path.join(tmp, "status.json");
    const result = spawnSync(process.execPath, [changesetBin, "status", `--output=${output}`], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    if (existsSync(output)) return JSON.parse(readFileSync(output, "utf8")).changesets;
    const said = `${result.stdout}\n${result.stderr}`;
    // With no changeset at all and a changed package, `status` stops before writing its
    // output; the per-package check below says which packages and what to do.
    if (said.includes("no changesets were found")) return [];
    const message = lines(said)
      .map((line) => line.replace(/^🦋\s+(error|warn|info)\s?/, ""))
      .filter((line) => !/^\s+at /.test(line) && !/^\s*(_error|\}|\{)/.test(line));
    const suspects = [];
    for (const file of readdirSync(path.join(root, ".changeset"))) {
      if (!file.endsWith(".md") || file === "README.md") continue;
      const problem = frontMatterProblem(
        readFileSync(path.join(root, ".changeset", file), "utf8"),
        names,
      );
      if (problem) suspects.push(`  .changeset/${file}: ${problem}`);
    }
    fail([
      "changeset check: the changesets CLI could not read the pending changesets or its config:",
      "",
      ...message.slice(0, 30).map((line) => `  ${line}`),
      "",
      ...(suspects.length > 0
        ? ["The changeset files that look malformed:", ...suspects, ""]
        : [
            "(.changeset/config.json, or a changeset naming an unversioned package, may be the cause.)",
            "",
          ]),
      'A changeset starts with front matter: "---", one `"<package>": patch|minor|major` line per',
      'package, "---", then the summary. `pnpm changeset` writes one for you.',
    ]);
  } finally {
    removeTmp();
  }
}

// --- the check --------------------------------------------------------------------------------

if (git(["rev-parse", "--is-shallow-repository"]).trim() === "true") {
  fail([
    "changeset check: this is a shallow clone; the check needs the history back to each",
    "package's last version change. Clone with full history (actions/checkout: fetch-depth: 0),",
    "or run `git fetch --unshallow`.",
  ]);
}
const prefix = git(["rev-parse", "--show-prefix"]).trim();
if (prefix !== "") fail([`changeset check: ${root} must be the top of its git repository.`]);

const config = JSON.parse(readFileSync(path.join(root, ".changeset", "config.json"), "utf8"));
// `changeset status` compares with the base branch, so it needs one here.
const baseBranch = config.baseBranch ?? "master";
const hasBase = spawnSync("git", ["rev-parse", "--verify", "--quiet", `${baseBranch}^{commit}`], {
  cwd: root,
}).status;
if (hasBase !== 0) {
  fail([
    `changeset check: no "${baseBranch}" branch here (the baseBranch of .changeset/config.json),`,
    "which `changeset status` compares with. Create it, for instance",
    `\`git branch ${baseBranch} origin/${baseBranch}\` (fetch it first in a CI checkout).`,
  ]);
}
const patterns = config.changedFilePatterns ?? ["**"];
const versionPrivate =
  config.privatePackages === false ? false : config.privatePackages?.version !== false;
const ignored = (config.ignore ?? []).map(nameMatcher);

let packages;
try {
  packages = workspacePackages();
} catch (error) {
  fail([`changeset check: ${error instanceof Error ? error.message : String(error)}`]);
}
const names = new Set(packages.map((pkg) => pkg.name));
const problems = [];

// Changesets skips a package without a "version": that is how examples stay out of releases.
// With one, `changeset version` bumps an example (a dependent of the SDK and the widgets) at each
// of their releases, and `changeset publish` tags it (`privatePackages.tag`, on for the server).
// The `ignore` option does not stop that tag, and is an error while no package matches it.
const badExamples = packages.filter(
  (pkg) => pkg.dir.startsWith("examples/") && (pkg.version !== undefined || !pkg.private),
);
for (const pkg of badExamples) {
  problems.push(
    `${pkg.dir}/package.json: an example must be "private": true and have no "version" field` +
      " (changesets skips a package without one); remove its version.",
  );
}

const versioned = packages.filter(
  (pkg) =>
    pkg.version !== undefined &&
    !badExamples.includes(pkg) &&
    !(pkg.private && !versionPrivate) &&
    !ignored.some((matcher) => matcher.test(pkg.name)),
);
const unversioned = packages.filter((pkg) => !versioned.includes(pkg));

const changesets = pendingChangesets(names);
const namedBy = new Map();
const namedAsNone = new Set();
for (const changeset of changesets) {
  for (const release of changeset.releases) {
    if (release.type === "none") {
      namedAsNone.add(release.name);
      continue;
    }
    namedBy.set(release.name, [...(namedBy.get(release.name) ?? []), changeset.id]);
  }
}

// `changeset version` leaves a changeset alone when it names a package it does not version.
const versionedNames = new Set(versioned.map((pkg) => pkg.name));
for (const changeset of changesets) {
  const strays = changeset.releases.filter((release) => !versionedNames.has(release.name));
  for (const release of strays) {
    problems.push(
      `.changeset/${changeset.id}.md names ${release.name}, which is not versioned` +
        " (examples never are): remove it from the changeset.",
    );
  }
}

// The last commit that added or modified each pending changeset file (none while untracked), and
// the changeset files the working tree adds, modifies or leaves untracked.
const lastEdit = new Map();
for (const changeset of changesets) {
  const file = `.changeset/${changeset.id}.md`;
  const found = git(["log", "-1", "--format=%H", "--diff-filter=AM", "--", file]).trim();
  lastEdit.set(changeset.id, found === "" ? null : found);
}
const editedNow = new Set();
{
  const entries = git([
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--",
    ".changeset",
  ])
    .split("\0")
    .filter((entry) => entry !== "");
  for (let index = 0; index < entries.length; index += 1) {
    const status = entries[index].slice(0, 2);
    editedNow.add(entries[index].slice(3));
    if (/[RC]/.test(status)) index += 1; // the next entry is the path it was renamed or copied from
  }
}

const ancestry = new Map();
/** Whether commit `a` is `b` or one of its ancestors. */
function isAncestor(a, b) {
  if (a === b) return true;
  const key = `${a} ${b}`;
  if (!ancestry.has(key)) {
    const result = spawnSync("git", ["merge-base", "--is-ancestor", a, b], { cwd: root });
    if (result.error) throw result.error;
    if (result.status !== 0 && result.status !== 1) {
      throw new Error(`git merge-base --is-ancestor ${a} ${b} failed (${result.status})`);
    }
    ancestry.set(key, result.status === 0);
  }
  return ancestry.get(key);
}

/**
 * The newest of some commits by ancestry: those no other one descends from. One commit on a
 * linear history; several only when merged branches each have one.
 */
function newest(commits) {
  let heads = [];
  for (const commit of new Set(commits)) {
    if (heads.some((head) => isAncestor(commit, head))) continue;
    heads = [...heads.filter((head) => !isAncestor(head, commit)), commit];
  }
  return heads;
}

const subjects = new Map();
function describe(sha) {
  if (!subjects.has(sha)) subjects.set(sha, git(["log", "-1", "--format=%s", sha]).trim());
  const subject = subjects.get(sha);
  return `${sha.slice(0, 7)} "${subject.length > 50 ? `${subject.slice(0, 49)}…` : subject}"`;
}

/** Reads a manifest without its devDependencies, which its users never install. */
function shippedManifest(text) {
  try {
    const { devDependencies: _ignored, ...shipped } = JSON.parse(text);
    return JSON.stringify(shipped);
  } catch {
    return text;
  }
}

/** Whether a changed file changes what the package ships, compared with `base`. */
function changesWhatShips(file, base) {
  if (path.basename(file) !== "package.json") return true;
  const now = path.join(root, file);
  if (!existsSync(now)) return true;
  let before;
  try {
    before = git(["show", `${base}:${file}`]);
  } catch {
    return true;
  }
  return shippedManifest(before) !== shippedManifest(readFileSync(now, "utf8"));
}

const rows = [];
const missing = [];
for (const pkg of versioned) {
  const manifest = `${pkg.dir}/package.json`;
  const versionCommit =
    git(["log", "-1", "--format=%H", '-G^\\s*"version":', "--", manifest]).trim() || null;
  const ids = namedBy.get(pkg.name) ?? [];
  const edits = ids.filter((id) => lastEdit.get(id) !== null);
  const bases = newest([
    ...(versionCommit ? [versionCommit] : []),
    ...edits.map((id) => lastEdit.get(id)),
  ]);
  const pathspecs = patterns.map((pattern) =>
    pattern.startsWith("!")
      ? `:(glob,exclude)${pkg.dir}/${pattern.slice(1)}`
      : `:(glob)${pkg.dir}/${pattern}`,
  );
  // A file counts if it differs from every base (with merges, each base covers its own branch).
  let changed = null;
  for (const base of bases) {
    const files = lines(
      git(["diff", "--name-only", "--relative", "-z", base, "--", ...pathspecs]),
      "\0",
    ).filter((file) => changesWhatShips(file, base));
    changed = changed === null ? files : changed.filter((file) => files.includes(file));
  }
  changed ??= lines(git(["ls-files", "-z", "--cached", "--", ...pathspecs]), "\0");
  const files = new Set([
    ...changed,
    ...lines(git(["ls-files", "-z", "--others", "--exclude-standard", "--", ...pathspecs]), "\0"),
  ]);

  // What each base is: the version change, the last edit of a changeset, or both.
  const since =
    bases.length === 0
      ? "never committed"
      : bases
          .map((base) => {
            const roles = [
              ...(base === versionCommit ? ["last version change"] : []),
              ...edits.filter((id) => lastEdit.get(id) === base).map((id) => `.changeset/${id}.md`),
            ];
            return `${describe(base)} (${roles.join(", ")})`;
          })
          .join(" and ");
  const writing = ids.filter((id) => editedNow.has(`.changeset/${id}.md`));
  // The pending changesets to update: the ones edited last.
  const latest = newest(edits.map((id) => lastEdit.get(id)));
  const toUpdate = edits.filter((id) => latest.includes(lastEdit.get(id)));
  rows.push({ pkg, files, since, writing });
  if (files.size > 0 && writing.length === 0) {
    missing.push({ pkg, files: [...files].sort(), since, ids, toUpdate });
  }
}

if (missing.length > 0) {
  problems.push(
    "these packages changed after their last changeset activity (a new changeset, an edit of a",
    "pending one, or a version change) without changeset activity of their own:",
  );
  for (const { pkg, files, since, ids, toUpdate } of missing) {
    problems.push(
      "",
      `  ${pkg.name} ${pkg.version} (${pkg.dir}): ${files.length} file(s) changed since ${since}` +
        (namedAsNone.has(pkg.name) ? "; a `none` release does not count" : ""),
    );
    for (const file of files.slice(0, FILES_SHOWN)) problems.push(`    ${file}`);
    if (files.length > FILES_SHOWN) problems.push(`    … and ${files.length - FILES_SHOWN} more`);
    const pending = (toUpdate.length > 0 ? toUpdate : ids).map((id) => `.changeset/${id}.md`);
    problems.push(
      pending.length > 0
        ? `    fix: add a changeset (\`pnpm changeset\`) or update the pending one that names` +
            ` ${pkg.name} (${pending.join(" or ")}) to describe this change`
        : `    fix: add a changeset (\`pnpm changeset\`) naming ${pkg.name} to describe this change`,
    );
  }
  problems.push(
    "",
    "A new changeset: `pnpm changeset`, select the package, pick patch, minor or major (before",
    "1.0, minor for a breaking change) and describe the change for the package's users. When the",
    "change refines what a pending changeset already says, edit that one instead. Commit it with",
    "the change (or in a later commit). What counts as a change: docs/maintainers.md.",
  );
}

if (problems.length > 0) fail(["changeset check failed:", "", ...problems]);

const seconds = ((performance.now() - started) / 1000).toFixed(1);
out(`changeset check: OK (${changesets.length} pending changesets, ${seconds} s)`);
for (const { pkg, files, since, writing } of rows) {
  const state =
    files.size === 0
      ? `no change since ${since}`
      : `${files.size} file(s) changed since ${since}, described by` +
        ` ${writing.map((id) => `.changeset/${id}.md`).join(", ")} (uncommitted)`;
  out(`  ${pkg.name} ${pkg.version}: ${state}`);
}
if (unversioned.length > 0) {
  out(`  not versioned: ${unversioned.map((pkg) => pkg.name).join(", ")}`);
}
