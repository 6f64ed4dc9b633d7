/** The custom-elements manifest (dist/custom-elements.json), from the components' JSDoc. */
export default {
  globs: ["src/**/*.ts"],
  exclude: ["src/**/*.test.ts"],
  outdir: "dist",
  litelement: true,
};
