import { type AnalyticsDeps } from '../analytics/analytics-types.ts';
import { asNumber, asRecord, normalizeHeaders } from '../http/network-response.ts';
import { type GraphParams } from './graph-api.ts';

/** Graph throttles at 100 (%) of the rolling hour; reads stop a little before, so other calls still fit. */
export const GRAPH_USAGE_CEILING = 95;
const HOUR_MS = 3_600_000;

function parse(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Pure: when Graph's usage headers (docs/networks.md §2.3) say the caller is at its limit, the time (epoch
 * ms) to stop calling until. `x-app-usage` / `x-page-usage` are percentages of a rolling hour with no
 * reset time (so a full hour); the Business Use Case header gives minutes to regain access.
 */
export function graphUsagePause(headers: Record<string, string | undefined>, nowMs: number): number | undefined {
  let pause: number | undefined;
  for (const name of ['x-app-usage', 'x-page-usage']) {
    const usage = asRecord(parse(headers[name]));
    const peak = Math.max(...['call_count', 'total_time', 'total_cputime'].map((key) => asNumber(usage[key]) ?? 0));
    if (peak >= GRAPH_USAGE_CEILING) pause = nowMs + HOUR_MS;
  }
  for (const entries of Object.values(asRecord(parse(headers['x-business-use-case-usage'])))) {
    for (const entry of Array.isArray(entries) ? entries : [entries]) {
      const record = asRecord(entry);
      const minutes = asNumber(record.estimated_time_to_regain_access) ?? 0;
      const peak = Math.max(...['call_count', 'total_time', 'total_cputime'].map((key) => asNumber(record[key]) ?? 0));
      if (minutes > 0) pause = Math.max(pause ?? 0, nowMs + minutes * 60_000);
      else if (peak >= GRAPH_USAGE_CEILING) pause = Math.max(pause ?? 0, nowMs + HOUR_MS);
    }
  }
  return pause;
}

/** A Graph GET that also reports the usage pause its headers ask for (analytics reads batch many calls). */
export async function graphRead<T>(
  deps: AnalyticsDeps,
  version: string,
  path: string,
  params: GraphParams,
  token: string,
): Promise<{ data: T; pauseUntil: number | undefined }> {
  const response = await deps.client.request<T>({
    method: 'GET',
    url: `/${version}${path}`,
    params: Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)),
    headers: { Authorization: `Bearer ${token}` },
  });
  return { data: response.data, pauseUntil: graphUsagePause(normalizeHeaders(response.headers), deps.now()) };
}

/**
 * The Graph reads of one `read()` call: remembers the latest usage pause so the caller stops its
 * loop. One per call, never shared, since accounts are read concurrently.
 */
export class GraphReadSession {
  pauseUntil: number | undefined;

  constructor(
    private readonly deps: AnalyticsDeps,
    private readonly version: string,
  ) {}

  async get<T>(path: string, params: GraphParams, token: string): Promise<T> {
    const answer = await graphRead<T>(this.deps, this.version, path, params, token);
    this.pauseUntil = answer.pauseUntil ?? this.pauseUntil;
    return answer.data;
  }
}
