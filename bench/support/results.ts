// Each benchmark records its figures as one JSON file, so `scripts/bench` can gather a whole run into
// bench/results/latest.json and the table of docs/performance.md (scripts/bench-report.mjs).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One row of the table: a figure, its baseline measured in the same run, and what they are. */
export interface BenchFigure {
  /** e.g. "accept: POST /v1/publish" */
  name: string;
  value: number;
  unit: string;
  /** The baseline's value in the same unit, when the figure has one. */
  baseline?: number;
  baselineName?: string;
  /** The issue's target, as text (e.g. ">= 2,000 req/s"). */
  target?: string;
  /** Anything else worth reading next to the figure (p50/p99, counts, sizes). */
  detail?: Record<string, number | string>;
}

export interface BenchResult {
  bench: string;
  /** The sizes the run used (jobs, accounts, seconds...). */
  params: Record<string, number | string>;
  figures: BenchFigure[];
}

/** Where the result files go: `BENCH_RESULTS_DIR` (scripts/bench sets it), else bench/results/runs. */
export function resultsDir(): string {
  return process.env.BENCH_RESULTS_DIR ?? path.resolve(__dirname, '../results/runs');
}

export function recordResult(result: BenchResult): void {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${result.bench}.json`), `${JSON.stringify(result, null, 2)}\n`);
}

/** The value at fraction `p` (0..1) of an ascending-sorted list (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** One printable line per figure: value, baseline and their ratio. */
export function describe(result: BenchResult): string {
  const lines = [
    `${result.bench} (${Object.entries(result.params)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')})`,
  ];
  for (const figure of result.figures) {
    let line = `  ${figure.name}: ${round(figure.value)} ${figure.unit}`;
    if (figure.baseline !== undefined)
      line += `; baseline (${figure.baselineName ?? 'baseline'}) ${round(figure.baseline)} ${figure.unit}; ratio ${(figure.value / figure.baseline).toFixed(3)}`;
    if (figure.detail)
      line += `; ${Object.entries(figure.detail)
        .map(([k, v]) => `${k} ${typeof v === 'number' ? round(v) : v}`)
        .join(', ')}`;
    lines.push(line);
  }
  return lines.join('\n');
}

function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
}
