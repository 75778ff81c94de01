/** A network's answer as classifiers see it: plain data, so they stay pure and fixture-testable. */
export interface NetworkResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  data: unknown;
}

export function normalizeHeaders(headers: unknown): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  if (typeof headers !== 'object' || headers === null) return result;
  const source =
    typeof (headers as { toJSON?: unknown }).toJSON === 'function'
      ? (headers as { toJSON: () => object }).toJSON()
      : headers;
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || value === null) continue;
    result[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return result;
}

export const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

export const asNumber = (value: unknown): number | undefined => {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : undefined;
};

/** `Retry-After` in seconds or as an HTTP date. */
export function retryAfterHeader(headers: Record<string, string | undefined>, nowMs: number): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = asNumber(value);
  if (seconds !== undefined) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
