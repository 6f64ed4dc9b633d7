// Preloaded into a process under test (NODE_OPTIONS=--import=<this file>): when the process
// exits, it writes on stderr, as one line, every module of OpenTelemetry it loaded, whether by
// `import` (seen by a resolve hook) or by `require` (in require's cache).
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const imported = new Set();
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => imported.add(url));
port1.unref();
const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url, {
  data: { port: port2 },
  transferList: [port2],
});

const required = createRequire(import.meta.url).cache;
process.on("exit", () => {
  const loaded = [...imported, ...Object.keys(required)].filter((name) =>
    name.includes("/node_modules/@opentelemetry/"),
  );
  process.stderr.write(`opentelemetry modules loaded: ${JSON.stringify(loaded)}\n`);
});
