import type ts from "typescript";

export function virtualProgram(
  typescript: typeof ts,
  input: { file: string; source: string; options: ts.CompilerOptions },
): { program: ts.Program; checker: ts.TypeChecker; sourceFile: ts.SourceFile };
