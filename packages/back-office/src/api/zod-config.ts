import { config } from "zod/v4/core";

/*
 * zod compiles object parsers with `new Function` when the page allows it, and probes for it
 * as it builds each object schema. The server's CSP forbids eval: even the caught probe is
 * reported as a violation. This module turns both off; it must run before any schema is built,
 * so the API client imports it before the contracts (and vite.config.ts puts it in their chunk).
 */
config({ jitless: true });
