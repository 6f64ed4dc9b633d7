import { AppError } from "../errors.js";
import type { Authenticator } from "../http/rate-limit.middleware.js";
import type { ApiKeysService } from "../modules/stores/api-keys.service.js";

/** `Authorization: Basic base64(<API_KEY>:)`: the key as user name, an empty password. */
function keyFromBasicHeader(header: string | undefined): string | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const separator = decoded.indexOf(":");
  if (separator <= 0 || separator !== decoded.length - 1) return undefined;
  return decoded.slice(0, separator);
}

/**
 * Basic authentication of the order operations: sets `req.store` or answers 401. The caller is
 * the API key, by its public id (`lk_<prefix>`), however the header spelled it.
 */
export function basicAuth(apiKeys: ApiKeysService): Authenticator {
  return async (req, res, { lookups }) => {
    const key = keyFromBasicHeader(req.get("authorization"));
    const store = key ? await apiKeys.authenticate(key, { lookups }) : undefined;
    if (!key || !store) {
      res.setHeader("WWW-Authenticate", 'Basic realm="Loyalty API", charset="UTF-8"');
      throw new AppError(
        "unauthorized",
        "Send an active API key of the store as the Basic user name with an empty password.",
      );
    }
    req.store = store;
    return { identity: { policy: "api-key", key: `${store.id} ${key.slice(0, 13)}` } };
  };
}
