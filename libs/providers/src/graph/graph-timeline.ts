import { type CandidatePage, type Candidate } from '../lookup/scan.ts';
import { type GraphApi, type GraphParams } from './graph-api.ts';

interface GraphPage<T> {
  data?: T[];
  paging?: { cursors?: { after?: string }; next?: string };
}

/** Newest-first Graph edge pages (`since`, `limit`, `after` cursors) as lookup candidates. */
export function graphPages<T>(
  api: GraphApi,
  path: string,
  params: GraphParams,
  token: string,
  toCandidate: (item: T) => Candidate,
): () => Promise<CandidatePage> {
  const pageFrom = (after?: string) => async (): Promise<CandidatePage> => {
    const body = await api.get<GraphPage<T>>(path, { ...params, limit: 100, ...(after ? { after } : {}) }, token);
    const cursor = body.paging?.next ? body.paging.cursors?.after : undefined;
    return { items: (body.data ?? []).map(toCandidate), next: cursor ? pageFrom(cursor) : undefined };
  };
  return pageFrom();
}

/** Graph times look like `2026-11-22T10:00:00+0000`. */
export const graphTimeMs = (value: string | undefined) => Date.parse((value ?? '').replace(/\+0000$/, 'Z'));
