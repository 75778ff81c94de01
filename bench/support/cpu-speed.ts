// Runs cpu-speed-probe.cjs beside a long benchmark and keeps its samples, so each window of the run
// can say how fast the machine was while it was measured: the CPU ms of one fixed piece of compute,
// and the CPU ns of one random memory read (higher is slower for both).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { sleep } from './publish-jobs.ts';

export interface SpeedSample {
  at: number;
  cpuMs: number;
  memNs: number;
}

export interface CpuSpeedProbe {
  /** The median of a measure over the samples taken in [fromMs, toMs), or undefined if none was. */
  medianBetween(measure: 'cpuMs' | 'memNs', fromMs: number, toMs: number): number | undefined;
  stop(): void;
}

/**
 * Starts the probe; resolves once its first sample is in, so the windows of a run all have samples
 * (it first fills 64 MB for its memory reads, a second or two on a busy machine).
 */
export async function startCpuSpeedProbe(intervalMs: number): Promise<CpuSpeedProbe> {
  const child = spawn(process.execPath, [path.join(__dirname, 'cpu-speed-probe.cjs'), String(intervalMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const samples: SpeedSample[] = [];
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the speed probe exited (${code}) before its first sample`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      samples.push(JSON.parse(line) as SpeedSample);
      resolve();
    });
  });
  return {
    medianBetween(measure, fromMs, toMs) {
      const values = samples
        .filter((sample) => sample.at >= fromMs && sample.at < toMs)
        .map((sample) => sample[measure])
        .sort((a, b) => a - b);
      return values.length === 0 ? undefined : values[Math.floor(values.length / 2)];
    },
    stop: () => void child.kill(),
  };
}

export interface IdleSpeed {
  cpuMs: number;
  memNs: number;
}

/**
 * The probe alone on the machine for `seconds`, nothing of the benchmark running: the medians of its
 * samples. Taken before a long run's system starts and after it stops, it says whether the machine
 * itself got slower meanwhile, which no reading under load can tell from the system aging.
 */
export async function idleMachineSpeed(seconds: number): Promise<IdleSpeed> {
  const from = Date.now();
  const probe = await startCpuSpeedProbe(1000);
  try {
    await sleep(seconds * 1000);
    const to = Date.now() + 1;
    return { cpuMs: probe.medianBetween('cpuMs', from, to)!, memNs: probe.medianBetween('memNs', from, to)! };
  } finally {
    probe.stop();
  }
}
