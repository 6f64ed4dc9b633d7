/** An OpenAPI path template (`/reward/claim/{externalId}`) as Express writes it. */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ":$1");
}

/** An Express route path (`/reward/claim/:externalId`) as OpenAPI writes it. */
export function openApiPath(route: string): string {
  return route.replace(/:(\w+)/g, "{$1}");
}
