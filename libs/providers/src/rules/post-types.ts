import { type ContentViolation, type Network, networkLabels } from '../types.ts';
import { violation } from './rule-helpers.ts';

/**
 * The kind of post asked for in `platform_options.<network>.post_type`, or the network's default
 * when none is given. A value the network's adapter does not publish is a violation
 * (`post_type_unsupported`), never silently another kind.
 */
export function postTypeOf(
  network: Network,
  options: Record<string, unknown> | undefined,
  allowed: readonly string[],
  fallback: string,
): { postType: string; violations: ContentViolation[] } {
  const asked = options?.post_type;
  if (asked === undefined) return { postType: fallback, violations: [] };
  if (typeof asked === 'string' && allowed.includes(asked)) return { postType: asked, violations: [] };
  return {
    postType: fallback,
    violations: [
      violation(
        'post_type_unsupported',
        `${networkLabels[network]} post_type must be one of ${allowed.join(', ')} (got ${JSON.stringify(asked)}).`,
      ),
    ],
  };
}

/** A video's length against a kind's bounds, when the length is known (library media is measured). */
export function durationViolation(
  rule: string,
  what: string,
  durationMs: number | undefined,
  bounds: { minSeconds?: number; maxSeconds: number },
): ContentViolation[] {
  if (durationMs === undefined) return [];
  const seconds = durationMs / 1000;
  const min = bounds.minSeconds ?? 0;
  if (seconds >= min && seconds <= bounds.maxSeconds) return [];
  const range = min > 0 ? `${min} s to ${bounds.maxSeconds} s` : `at most ${bounds.maxSeconds} s`;
  return [violation(rule, `${what} must last ${range} (this video lasts ${seconds.toFixed(1)} s).`)];
}
