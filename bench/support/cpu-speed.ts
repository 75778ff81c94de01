// Runs cpu-speed-probe.cjs beside a long benchmark and keeps its samples, so each window of the run
// can say how fast the machine's cores were while it was measured (the CPU ms of one fixed piece of
// work: higher is slower).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface CpuSpeedProbe {
  /** The median CPU ms of the samples taken in [fromMs, toMs), or undefined if none was. */
  medianBetween(fromMs: number, toMs: number): number | undefined;
  stop(): void;
}

export function startCpuSpeedProbe(intervalMs: number): CpuSpeedProbe {
  const child = spawn(process.execPath, [path.join(__dirname, 'cpu-speed-probe.cjs'), String(intervalMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const samples: { at: number; cpuMs: number }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => samples.push(JSON.parse(line) as { at: number; cpuMs: number }));
  return {
    medianBetween(fromMs, toMs) {
      const values = samples.filter((sample) => sample.at >= fromMs && sample.at < toMs).map((sample) => sample.cpuMs).sort((a, b) => a - b);
      return values.length === 0 ? undefined : values[Math.floor(values.length / 2)];
    },
    stop: () => void child.kill(),
  };
}
