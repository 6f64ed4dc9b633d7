import { z } from "zod";
import { apiRevisionSchema } from "./revisions.js";

/*
 * These schemas describe the headers for the OpenAPI document and the SDK. The server does not
 * validate requests with them: a bad revision header answers invalid-revision-header or
 * unknown-api-revision, a bad Authorization header 401, never validation-failed.
 */

/**
 * The `revision` request header. Declared required with the latest revision as default; an
 * absent header serves the historical contract (the oldest supported revision).
 */
export const revisionHeaderSchema = apiRevisionSchema.optional();

/** `Authorization: Basic base64(<API_KEY>:)` of the order operations. */
export const basicAuthorizationHeaderSchema = z
  .string()
  .regex(/^Basic [A-Za-z0-9+/]+={0,2}$/, "must be Basic followed by base64 of <API_KEY>:");

/** Request headers of the public and HMAC operations. */
export const requestHeadersSchema = z.object({ revision: revisionHeaderSchema });

/** Request headers of the Basic-authenticated operations. */
export const basicRequestHeadersSchema = requestHeadersSchema.extend({
  authorization: basicAuthorizationHeaderSchema,
});

/** Headers every response carries. */
export const responseHeadersSchema = z.object({
  /** The revision that served the request (absent when its revision header was refused). */
  revision: apiRevisionSchema.optional(),
  "x-request-id": z.string(),
  /** HTTP-date the served revision became deprecated; only on deprecated revisions. */
  deprecation: z.string().optional(),
  /** HTTP-date the served revision retires; only on deprecated revisions. */
  sunset: z.string().optional(),
});
