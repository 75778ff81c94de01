import { type Response } from 'express';
import { type SandboxState } from '../state/sandbox-state.ts';
import { rateLimitHeaders } from './x-errors.ts';

interface Window {
  start: number;
  count: number;
}

const FIFTEEN_MINUTES = 900_000;
const DAY = 86_400_000;

/** Counts a call in its window and returns what the headers must say (limits are not enforced). */
function count(state: SandboxState, key: string, length: number): { used: number; reset: number } {
  const windows = state.store<Window>('x.windows');
  const now = state.now();
  let window = windows.get(key);
  if (!window || window.start + length <= now) {
    window = { start: now, count: 0 };
    windows.set(key, window);
  }
  window.count += 1;
  return { used: window.count, reset: Math.ceil((window.start + length) / 1000) };
}

/** `x-rate-limit-*` on every endpoint (docs/networks.md §3.3/§3.4: per user and 15-minute window). */
export function sendRateHeaders(
  state: SandboxState,
  res: Response,
  endpoint: string,
  userId: string,
  limit: number,
): void {
  const { used, reset } = count(state, `${endpoint}:${userId}`, FIFTEEN_MINUTES);
  rateLimitHeaders(res, limit, limit - used, reset);
}

/**
 * POST /2/tweets also carries the 24-hour headers. The per-app figure is the documented 10,000; the
 * per-user daily figure is not published, so the sandbox uses X's long-standing 2,400 posts a day.
 */
export function sendDailyHeaders(state: SandboxState, res: Response, userId: string): void {
  const user = count(state, `day:user:${userId}`, DAY);
  const app = count(state, 'day:app', DAY);
  res.setHeader('x-user-limit-24hour-limit', '2400');
  res.setHeader('x-user-limit-24hour-remaining', String(Math.max(0, 2400 - user.used)));
  res.setHeader('x-user-limit-24hour-reset', String(user.reset));
  res.setHeader('x-app-limit-24hour-limit', '10000');
  res.setHeader('x-app-limit-24hour-remaining', String(Math.max(0, 10000 - app.used)));
  res.setHeader('x-app-limit-24hour-reset', String(app.reset));
}
