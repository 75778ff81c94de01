// scale-out: the accept and deliver benchmarks on one publisher and one gateway, then on `replicas`
// of each (accounts and the scheduler stay single), in the same run: the figure is the throughput with
// replicas, the baseline the single-process figure. Each topology gets fresh systems (one for accept,
// one for deliver, so the accepted jobs' deliveries do not run into the deliver measurement).
import { startBenchSystem, type BenchSystem, type BenchSystemOptions } from '../support/bench-system.ts';
import type { BenchFigure, BenchResult } from '../support/results.ts';
import { benchAccept, type AcceptOptions } from './accept.ts';
import { benchDeliver, type DeliverOptions } from './deliver.ts';

export interface ScaleOutOptions {
  replicas: number;
  accept: AcceptOptions;
  deliver: DeliverOptions;
  /** Environment for every service of every system. */
  env: Record<string, string>;
}

interface Measured {
  acceptRps: number;
  acceptP99: number;
  deliverRate: number;
  deliverSeconds: number;
  /** The deliver run's CPU figures: ms per delivery of each service (replicas added up), PostgreSQL, RabbitMQ, the machine. */
  deliverCpu: Record<string, number>;
  /** Peak RSS of each process under deliver, MB. */
  peakRss: Record<string, number>;
}

async function withSystem<T>(options: BenchSystemOptions, use: (system: BenchSystem) => Promise<T>): Promise<T> {
  const system = await startBenchSystem(options);
  try {
    return await use(system);
  } finally {
    await system.close();
  }
}

async function measure(replicas: number, options: ScaleOutOptions): Promise<Measured> {
  const systemOptions: BenchSystemOptions = { env: options.env, replicas: { publisher: replicas, gateway: replicas } };
  const accept = await withSystem(systemOptions, (system) => benchAccept(system, options.accept));
  return withSystem(systemOptions, async (system) => {
    const deliver = await benchDeliver(system, options.deliver);
    const [delivered, ...rss] = deliver.figures;
    const cpu = Object.entries(delivered!.detail ?? {}).filter(([key]) => key.includes('cpu ms/delivery') || key.startsWith('machine busy'));
    return {
      acceptRps: accept.figures[0]!.value,
      acceptP99: Number(accept.figures[0]!.detail?.['p99 ms']),
      deliverRate: delivered!.value,
      deliverSeconds: Number(delivered!.detail?.seconds),
      deliverCpu: Object.fromEntries(cpu.map(([key, ms]) => [key, Number(ms)])),
      peakRss: Object.fromEntries(rss.map((figure) => [figure.name.replace(/^RSS /, ''), Math.round(figure.value)])),
    };
  });
}

export async function benchScaleOut(options: ScaleOutOptions): Promise<BenchResult> {
  const single = await measure(1, options);
  const scaled = await measure(options.replicas, options);
  const topology = `${options.replicas} publishers + ${options.replicas} gateways`;
  const detail = (prefix: string, values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix} ${key}`, value]));
  const figures: BenchFigure[] = [
    {
      name: `scale-out: accept POST /v1/publish, ${topology}`,
      value: scaled.acceptRps,
      unit: 'req/s',
      baseline: single.acceptRps,
      baselineName: '1 publisher + 1 gateway, same run',
      target: 'throughput grows with replicas',
      detail: { 'p99 ms': scaled.acceptP99, 'baseline p99 ms': single.acceptP99 },
    },
    {
      name: `scale-out: deliver ${options.deliver.jobs} jobs x ${options.deliver.accounts} X accounts, ${topology}`,
      value: scaled.deliverRate,
      unit: 'deliveries/s',
      baseline: single.deliverRate,
      baselineName: '1 publisher + 1 gateway, same run',
      target: 'throughput grows with replicas',
      detail: {
        seconds: scaled.deliverSeconds,
        'baseline seconds': single.deliverSeconds,
        ...scaled.deliverCpu,
        ...detail('baseline', single.deliverCpu),
        ...detail('peak MB', scaled.peakRss),
      },
    },
  ];
  return {
    bench: 'scale-out',
    params: { replicas: options.replicas, jobs: options.deliver.jobs, accounts: options.deliver.accounts, connections: options.accept.connections, seconds: options.accept.durationSeconds, env: Object.entries(options.env).map(([name, value]) => `${name}=${value}`).join(',') },
    figures,
  };
}
