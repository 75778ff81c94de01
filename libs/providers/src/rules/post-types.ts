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

/**
 * A video's shape against a kind's: its aspect ratio within `tolerance` of `ratio` (width / height),
 * and each side at least the minimum (rules `<kind>_aspect_ratio`, `<kind>_dimensions`). Checked when the size is known (library media is measured).
 */
export function shapeViolations(
  kind: string,
  what: string,
  item: { width?: number | undefined; height?: number | undefined },
  shape: { ratio: readonly [number, number]; tolerance: number; minWidth: number; minHeight: number },
): ContentViolation[] {
  const { width, height } = item;
  if (width === undefined || height === undefined || width <= 0 || height <= 0) return [];
  const found: ContentViolation[] = [];
  const [across, down] = shape.ratio;
  const wanted = across / down;
  if (Math.abs(width / height - wanted) > wanted * shape.tolerance)
    found.push(
      violation(
        `${kind}_aspect_ratio`,
        `${what} must be ${across}:${down} (vertical; within ${shape.tolerance * 100}%): this video is ${width}x${height}.`,
      ),
    );
  if (width < shape.minWidth || height < shape.minHeight)
    found.push(
      violation(
        `${kind}_dimensions`,
        `${what} must be at least ${shape.minWidth}x${shape.minHeight} pixels: this video is ${width}x${height}.`,
      ),
    );
  return found;
}
