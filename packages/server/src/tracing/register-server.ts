import { startTracing } from "./start.js";

/**
 * The API server's first import (src/main.ts): traces when the environment asks for them,
 * before express and pg are loaded.
 */
startTracing("loyalty-server");
