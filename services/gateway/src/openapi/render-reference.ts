type Json = Record<string, unknown>;

const AUTH: Record<string, string> = {
  none: 'none',
  apiKey: 'API key or dashboard JWT',
  dashboardJwt: 'dashboard JWT only',
};

function authOf(operation: Json): string {
  const security = (operation.security as Json[] | undefined) ?? [];
  if (security.length === 0) return AUTH.none!;
  return security.some((entry) => 'apiKey' in entry) ? AUTH.apiKey! : AUTH.dashboardJwt!;
}

function fields(schema: Json | undefined): string {
  const properties = (schema?.properties as Record<string, Json> | undefined) ?? {};
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) return '-';
  return names.map((name) => `\`${name}\`${required.has(name) ? '' : '?'}`).join(', ');
}

/** Markdown reference of the OpenAPI document: one section per tag, one row per endpoint. */
export function renderApiReference(document: Json): string {
  const lines = [
    '# API reference',
    '',
    'Generated from the OpenAPI 3.1 document (`GET /v1/openapi.json`, also in `openapi.json` here) by',
    '`node scripts/generate-api-docs.mjs`; a test fails when this file and the code disagree.',
    'Every error answers `{"error": {"code", "message", "details"?, "request_id"}}`.',
    '',
  ];
  const byTag = new Map<string, string[]>();
  for (const [route, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = ((operation.tags as string[] | undefined) ?? ['Other'])[0]!;
      const parameters =
        ((operation.parameters as Json[] | undefined) ?? [])
          .map((p) => `\`${String(p.name)}\`${p.required === true ? '' : '?'} (${String(p.in)})`)
          .join(', ') || '-';
      const body = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      const success = Object.keys(operation.responses as Json)
        .filter((status) => status.startsWith('2') || status.startsWith('3'))
        .join(', ');
      const errors = Object.keys(operation.responses as Json)
        .filter((status) => status.startsWith('4') || status.startsWith('5'))
        .join(', ');
      const row = `| \`${method.toUpperCase()} ${route}\` | ${String(operation.summary)} | ${authOf(operation)} | ${parameters} | ${fields(body?.['application/json']?.schema as Json | undefined)} | ${success} | ${errors} |`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), row]);
    }
  }
  for (const [tag, rows] of byTag) {
    lines.push(
      `## ${tag}`,
      '',
      '| endpoint | what | auth | parameters | body fields (? optional) | success | errors |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
    );
  }
  return `${lines.join('\n')}`;
}
