// The soak's second verdict: the aged system against a fresh twin of it (the same code, its own
// processes, databases and sandbox) in alternate windows of the same minutes. The first verdict
// compares the end of a run with its start, half an hour apart, and this machine's speed drifts by
// more than the 10% it looks for (the same code read 1.161, 0.705 and 0.964 on three runs); two
// systems measured in turn, minutes apart, see the same machine, so what differs between them is
// what half an hour of use left behind.
import type pg from 'pg';
import { cpuSample } from '../support/machine-cpu.ts';
import { sleep } from '../support/publish-jobs.ts';
import type { BenchFigure } from '../support/results.ts';
import { mean } from '../support/trend.ts';
import { finishedBetween, type SoakFeeder } from './soak-feeder.ts';

export interface TwinSide {
  feeder: SoakFeeder;
  /** A client on the side's publisher database, and the organization its jobs belong to. */
  publisher: pg.Client;
  orgId: string;
  /** CPU ms its service processes have used so far, by instance name (BenchSystem.cpuMs). */
  cpuMs: () => Record<string, number>;
}

export interface TwinOptions {
  /** Pairs of windows (one on each side); the order alternates pair by pair (twin first, then aged first). */
  pairs: number;
  windowSeconds: number;
  /** After a switch, how long the side is fed before its window starts (its backlog refills). */
  rampSeconds: number;
  drainTimeoutMs: number;
  /**
   * After the side switched off drains, how long before the other is fed. node-postgres closes a
   * pool's idle connections after 10 s: 12 s keeps the two systems' pools (about 60 connections each
   * under load at their defaults) from being open together past PostgreSQL's max_connections (100 by
   * default).
   */
  settleSeconds: number;
}

export interface TwinWindow {
  side: 'aged' | 'twin';
  rate: number;
  /** Every core's busy time per delivery finished in the window. */
  machineMs: number;
  /** CPU ms per delivery of the side's service processes, and of PostgreSQL, RabbitMQ and the bench process (shared by both sides). */
  processMs: Record<string, number>;
}

/** Only `on` is fed: the other is paused and drained first, so its deliveries do not run into the window. */
async function switchTo(on: TwinSide, off: TwinSide, options: TwinOptions): Promise<void> {
  off.feeder.pause();
  await off.feeder.drain(options.drainTimeoutMs);
  await sleep(options.settleSeconds * 1000);
  on.feeder.resume();
  await sleep(options.rampSeconds * 1000);
}

async function measure(name: TwinWindow['side'], side: TwinSide, seconds: number): Promise<TwinWindow> {
  const from = new Date();
  const before = cpuSample(side.cpuMs());
  await sleep(seconds * 1000);
  side.feeder.check();
  const to = new Date();
  const after = cpuSample(side.cpuMs());
  const deliveries = await finishedBetween(side.publisher, side.orgId, from, to);
  const per = (ms: number) => ms / Math.max(1, deliveries);
  const processMs = Object.fromEntries(
    Object.entries(after.processes).map(([name, ms]) => [name, per(ms - (before.processes[name] ?? 0))]),
  );
  return {
    side: name,
    rate: deliveries / ((to.getTime() - from.getTime()) / 1000),
    machineMs: per(after.busyMs - before.busyMs),
    processMs,
  };
}

/** `publisher 1.9, postgres 2.6, ...`: each process's mean CPU ms per delivery over the windows, largest first. */
function byProcess(windows: TwinWindow[]): string {
  const names = [...new Set(windows.flatMap((window) => Object.keys(window.processMs)))];
  const means = names.map((name) => [name, mean(windows.map((window) => window.processMs[name] ?? 0))] as const);
  return means
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
    .join(', ');
}

/**
 * Each side's mean rate over its windows that follow a window of its own (the twin's first follows
 * its warm-up) and over those that follow the other side's. A side fed right after the other
 * carries what the other left running (its vacuum and analyze, analytics' refreshes of its posts):
 * in two soaks the twin lost about 20% right after an aged window, the aged side about 5% after
 * a twin's, so the mean over all windows favours the aged side; the windows after one of the side's
 * own compare the two in steady state. Undefined until each side has both kinds (two pairs).
 */
export function afterOwnWindow(
  windows: TwinWindow[],
): { aged: number; twin: number; agedAfterSwitch: number; twinAfterSwitch: number } | undefined {
  const rates = (side: TwinWindow['side'], own: boolean) =>
    windows
      .filter(
        (window, index) => window.side === side && ((index === 0 ? 'twin' : windows[index - 1]!.side) === side) === own,
      )
      .map((window) => window.rate);
  const [aged, twin, agedAfterSwitch, twinAfterSwitch] = [
    rates('aged', true),
    rates('twin', true),
    rates('aged', false),
    rates('twin', false),
  ];
  if (aged.length === 0 || twin.length === 0 || agedAfterSwitch.length === 0 || twinAfterSwitch.length === 0)
    return undefined;
  return {
    aged: mean(aged),
    twin: mean(twin),
    agedAfterSwitch: mean(agedAfterSwitch),
    twinAfterSwitch: mean(twinAfterSwitch),
  };
}

/**
 * Warms the twin up for one window (its processes' JIT and pools, not measured), then measures
 * `pairs` pairs of windows. Leaves the aged side fed and the twin paused.
 */
export async function compareWithTwin(aged: TwinSide, twin: TwinSide, options: TwinOptions): Promise<BenchFigure> {
  await switchTo(twin, aged, options);
  await sleep(options.windowSeconds * 1000);
  const windows: TwinWindow[] = [];
  let current: 'aged' | 'twin' = 'twin';
  const run = async (name: 'aged' | 'twin') => {
    if (current !== name) await (name === 'aged' ? switchTo(aged, twin, options) : switchTo(twin, aged, options));
    current = name;
    windows.push(await measure(name, name === 'aged' ? aged : twin, options.windowSeconds));
  };
  for (let pair = 0; pair < options.pairs; pair += 1) {
    for (const name of pair % 2 === 0 ? (['twin', 'aged'] as const) : (['aged', 'twin'] as const)) await run(name);
  }
  if (current === 'twin') await switchTo(aged, twin, options);
  twin.feeder.pause();

  const of = (name: TwinWindow['side']) => windows.filter((window) => window.side === name);
  const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
  const [agedRate, twinRate] = [
    mean(of('aged').map((window) => window.rate)),
    mean(of('twin').map((window) => window.rate)),
  ];
  const [agedMs, twinMs] = [
    mean(of('aged').map((window) => window.machineMs)),
    mean(of('twin').map((window) => window.machineMs)),
  ];
  const steady = afterOwnWindow(windows);
  return {
    name: `soak: the aged system against a fresh twin, ${options.pairs} pairs of ${options.windowSeconds} s windows in turn at the end`,
    value: agedRate,
    unit: 'deliveries/s of the aged system, mean of its windows',
    baseline: twinRate,
    baselineName: 'a fresh twin of the system (same code, own databases) in the windows between',
    target: 'ratio >= 0.9 (no decay with use)',
    detail: {
      'window order': windows.map((window) => window.side).join(' '),
      'window rates': windows.map((window) => window.rate.toFixed(1)).join(' '),
      'window machine cpu ms/delivery': windows.map((window) => window.machineMs.toFixed(2)).join(' '),
      // Per pair, so one window's hiccup shows as one pair's ratio rather than only moving the mean.
      'pair ratios': Array.from({ length: options.pairs }, (_, pair) => {
        const [first, second] = windows.slice(pair * 2, pair * 2 + 2);
        const agedWindow = first!.side === 'aged' ? first! : second!;
        const twinWindow = first!.side === 'twin' ? first! : second!;
        return (agedWindow.rate / twinWindow.rate).toFixed(3);
      }).join(' '),
      ...(steady === undefined
        ? {}
        : {
            'ratio, each side after a window of its own': (steady.aged / steady.twin).toFixed(3),
            'rate after a window of its own, aged / twin': `${steady.aged.toFixed(1)} / ${steady.twin.toFixed(1)}`,
            "rate after the other side's window, aged / twin": `${steady.agedAfterSwitch.toFixed(1)} / ${steady.twinAfterSwitch.toFixed(1)}`,
          }),
      'machine cpu ms/delivery aged': round(agedMs, 2),
      'machine cpu ms/delivery twin': round(twinMs, 2),
      // Where the difference is: each process's mean over the side's windows.
      'cpu ms/delivery by process aged': byProcess(of('aged')),
      'cpu ms/delivery by process twin': byProcess(of('twin')),
      // Strings: the report rounds numbers below 100 to one decimal.
      'cpu per delivery, aged over twin': (agedMs / twinMs).toFixed(3),
      'ramp s': options.rampSeconds,
      'settle s': options.settleSeconds,
      'twin jobs': twin.feeder.jobs,
    },
  };
}
