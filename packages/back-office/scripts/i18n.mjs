/**
 * The translations of the back-office (lit-localize, runtime mode).
 *
 *   node scripts/i18n.mjs extract   adds the source's new strings to xliff/<locale>.xlf
 *   node scripts/i18n.mjs build     writes src/generated/ from the xliff files (formatted)
 *   node scripts/i18n.mjs check     fails when a string has no translation, a translation's
 *                                   placeholders differ from the source's, or src/generated/
 *                                   is not what `build` would write
 *
 * `pnpm build` runs `check`: no French string can be missing from a release.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readConfigFileAndWriteSchema } from "@lit/localize-tools/lib/config.js";
import { RuntimeLitLocalizer } from "@lit/localize-tools/lib/modes/runtime.js";
import * as prettier from "prettier";

const out = (text) => process.stdout.write(`${text}\n`);
const err = (text) => process.stderr.write(`${text}\n`);

const root = fileURLToPath(new URL("..", import.meta.url));
process.chdir(root);
const config = readConfigFileAndWriteSchema(join(root, "lit-localize.json"));
const { outputDir, localeCodesModule } = config.output;

// What ESLint's no-irregular-whitespace reports.
const IRREGULAR_WHITESPACE =
  /[\u0085\u00A0\u1680\u180E\u2000-\u200B\u2028\u2029\u202F\u205F\u3000\uFEFF]/;

async function format(file) {
  // The repository's options, wherever the file is written (`check` builds in a temporary
  // directory, which no configuration covers).
  const options = await prettier.resolveConfig(join(root, "src/generated/locale-codes.ts"));
  // lit-localize disables two lint rules in every file: keep only the one the text needs
  // (French typography puts no-break spaces before : ; ! ? and inside numbers).
  let text = readFileSync(file, "utf8").replace(
    /^\s*\/\* eslint-disable @typescript-eslint\/no-explicit-any \*\/\n/m,
    "",
  );
  if (!IRREGULAR_WHITESPACE.test(text)) {
    text = text.replace(/^\s*\/\* eslint-disable no-irregular-whitespace \*\/\n/m, "");
  }
  return prettier.format(text, { ...options, filepath: file });
}

/** Writes the generated modules into `directory` (formatted); returns their paths. */
async function build(directory) {
  const codes = join(directory, "locale-codes.ts");
  const localizer = new RuntimeLitLocalizer({
    ...config,
    output: { ...config.output, outputDir: join(directory, "locales"), localeCodesModule: codes },
  });
  const { errors } = localizer.validateTranslations();
  if (errors.length > 0)
    throw new Error(`Translations do not match the source:\n${errors.join("\n")}`);
  // lit-localize warns of each missing translation on the console: `check` reports them.
  const warn = globalThis.console.warn;
  globalThis.console.warn = () => {};
  try {
    await localizer.build();
  } finally {
    globalThis.console.warn = warn;
  }
  const files = [
    codes,
    ...config.targetLocales.map((locale) => join(directory, "locales", `${locale}.ts`)),
  ];
  for (const file of files) writeFileSync(file, await format(file));
  return files;
}

function missingTranslations() {
  const localizer = new RuntimeLitLocalizer(config);
  const { messages, errors } = localizer.extractSourceMessages();
  if (errors.length > 0)
    throw new Error("The source could not be analysed (see lit-localize extract)");
  const { translations } = localizer.readTranslationsSync();
  const missing = [];
  for (const locale of config.targetLocales) {
    const translated = new Set((translations.get(locale) ?? []).map((message) => message.name));
    for (const message of messages) {
      if (!translated.has(message.name)) {
        const text = message.contents
          .map((part) => (typeof part === "string" ? part : "{…}"))
          .join("");
        missing.push(`${locale}: ${message.name} "${text}" (${message.file.fileName})`);
      }
    }
  }
  return { missing, count: messages.length };
}

const command = process.argv[2];
if (command === "extract") {
  const localizer = new RuntimeLitLocalizer(config);
  const { messages } = localizer.extractSourceMessages();
  await localizer.writeInterchangeFiles();
  out(`${messages.length} strings in xliff/: translate the units without <target>.`);
} else if (command === "build") {
  const directory = resolve(outputDir, "..");
  if (resolve(localeCodesModule) !== join(directory, "locale-codes.ts")) {
    throw new Error("lit-localize.json: localeCodesModule must sit beside the locales directory");
  }
  await build(directory);
  out(`Wrote ${directory}`);
} else if (command === "check") {
  const { missing, count } = missingTranslations();
  const problems = missing.map((line) => `missing translation: ${line}`);
  const temporary = mkdtempSync(join(tmpdir(), "bo-i18n-"));
  try {
    const built = await build(temporary);
    const committed = [
      resolve(localeCodesModule),
      ...config.targetLocales.map((l) => resolve(outputDir, `${l}.ts`)),
    ];
    built.forEach((file, index) => {
      let current = "";
      try {
        current = readFileSync(committed[index], "utf8");
      } catch {
        // Reported below as stale.
      }
      if (current !== readFileSync(file, "utf8")) {
        problems.push(`${committed[index]} is stale: run pnpm i18n:build`);
      }
    });
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    err(problems.join("\n"));
    err("\nRun pnpm i18n:extract, translate the new units in xliff/, then pnpm i18n:build.");
    process.exit(1);
  }
  out(`${count} strings, each translated in ${config.targetLocales.join(", ")}.`);
} else {
  err("Usage: node scripts/i18n.mjs extract|build|check");
  process.exit(2);
}
