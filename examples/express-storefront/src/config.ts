import path from "node:path";

/** What the store needs to know, from its environment. */
export interface StoreConfig {
  port: number;
  /** The store's origin as declared to the loyalty service: the widgets' `domain`. */
  origin: string;
  /** Where this server calls the Loyalty API. */
  apiUrl: string;
  /** Where shoppers' browsers call it (the widgets): the same URL unless a proxy says otherwise. */
  publicApiUrl: string;
  apiKey: string;
  storeReference: string;
  /** The store's own data: orders and the cookie-signing secret. */
  dataFile: string;
}

export class StoreConfigError extends Error {}

export function loadStoreConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const missing = ["LOYALTY_API_URL", "LOYALTY_API_KEY", "LOYALTY_STORE_REFERENCE"].filter(
    (name) => !env[name],
  );
  if (missing.length) {
    throw new StoreConfigError(
      `Set ${missing.join(", ")} (the API's URL, and the demo store's API key and reference: ` +
        "`pnpm loyalty demo` prints them), or run the whole demo with `pnpm start` at the repository's root.",
    );
  }
  const port = Number(env["PORT"] ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StoreConfigError(`PORT must be a port number, not ${env["PORT"]}`);
  }
  const apiUrl = webUrl("LOYALTY_API_URL", env["LOYALTY_API_URL"] as string);
  return {
    port,
    origin: new URL(webUrl("STORE_ORIGIN", env["STORE_ORIGIN"] ?? `http://localhost:${port}`))
      .origin,
    apiUrl,
    publicApiUrl: webUrl("LOYALTY_PUBLIC_API_URL", env["LOYALTY_PUBLIC_API_URL"] ?? apiUrl),
    apiKey: env["LOYALTY_API_KEY"] as string,
    storeReference: env["LOYALTY_STORE_REFERENCE"] as string,
    dataFile: env["STORE_DATA_FILE"] ?? path.resolve(".data", "storefront.json"),
  };
}

/** An http(s) URL, or a start-up error naming the variable (not a 500 on every page later). */
function webUrl(name: string, value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {
    // Reported below.
  }
  throw new StoreConfigError(`${name} must be an http(s) URL, not ${JSON.stringify(value)}`);
}
