import { get, type IncomingHttpHeaders } from "node:http";

/**
 * A GET as a browser's cache revalidates, with If-None-Match: through node:http, since fetch()
 * adds `Cache-Control: no-cache` to a conditional request, which any server must answer in full.
 */
export function revalidate(
  url: string,
  ifNoneMatch: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { ...headers, "if-none-match": ifNoneMatch } }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    }).on("error", reject);
  });
}
