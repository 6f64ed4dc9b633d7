// What the packages' build scripts that print contract types share (the SDK's
// generate-contracts.ts, the widgets' inline-contract-types.mjs): a TypeScript program over one
// file that exists only in memory, placed among shared-types' sources so that its imports
// resolve as theirs do.

/**
 * Type-checks `source` as if it were the file `file`, with `options`, using the caller's
 * `typescript` module (the types it returns are compared with that module's flags). Returns the
 * program, its checker and the file; throws an Error with the diagnostics if it does not compile.
 */
export function virtualProgram(ts, { file, source, options }) {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, source, language)
      : getSourceFile(name, language, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const sourceFile = program.getSourceFile(file);
  const errors = ts.getPreEmitDiagnostics(program, sourceFile);
  if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors, host));
  return { program, checker: program.getTypeChecker(), sourceFile };
}
