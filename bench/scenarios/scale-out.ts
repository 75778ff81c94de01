// scale-out: the accept and deliver benchmarks on one publisher and one gateway, then on `replicas`
// of each (accounts and the scheduler stay single), in the same run: the figure is the throughput with
// replicas, the baseline the single-process figure. Each topology gets fresh systems (one for accept,
// one for deliver, so the accepted jobs' deliveries do not run into the deliver measurement).
// With `latency`, the deliver benchmark runs once more on each topology with X answering every
// create call that late, as real networks do: there a publisher is bound by its delivery slots
// (DELIVERY_CONCURRENCY / latency), not by its CPU, which is what replicas add on any machine. The
// accept benchmark then measures twice on each topology, as it does alone: with X answering at once,
// and that late, where the deliveries of the accepted jobs go at the network's pace and what
// replicas change is the accept path itself.
import { envParam, startBenchSystem, type BenchSystem, type BenchSystemOptions } from '../support/bench-system.ts';
import type { BenchFigure, BenchResult } from '../support/results.ts';
import { benchAccept, type AcceptOptions } from './accept.ts';
import { benchDeliver, type DeliverOptions } from './deliver.ts';

export interface ScaleOutOptions {
  replicas: number;
  accept: AcceptOptions;
  deliver: DeliverOptions;
  /** Environment for every service of every system. */
  env: Record<string, string>;
  /**
   * Environment for the accept systems instead, when given: the accept benchmark's own (its
   * organization at the default delivery limit), so what replicas change is the accept path and not
   * how many deliveries of the accepted jobs run beside it.
   */
  acceptEnv?: Record<string, string>;
  /** The deliver benchmark again, with X's create latency (ms) and this many jobs; the accept benchmark again with X answering that late. */
  latency?: { ms: number; jobs: number };
}

interface Measured {
  acceptRps: number;
  /** The accept run again with X answering each post `latency.ms` late, when `latency` is given. */
  pacedAccept?: { rps: number; detail: Record<string, number> };
  /**
   * The accept run's p99, the deliveries of the accepted jobs that finished meanwhile (they share the
   * cores: more delivery slots take more of them) and CPU ms per accepted request of each process.
   */
  acceptDetail: Record<string, number>;
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

type Delivered = Omit<Measured, 'acceptRps' | 'acceptDetail'>;

const ACCEPT_DETAIL = [
  'p99 ms',
  'deliveries finished meanwhile',
  'gateway cpu ms/req',
  'publisher cpu ms/req',
  'accounts cpu ms/req',
];

function deliverOn(systemOptions: BenchSystemOptions, options: DeliverOptions): Promise<Delivered> {
  return withSystem(systemOptions, async (system) => {
    const deliver = await benchDeliver(system, options);
    const [delivered, ...rss] = deliver.figures;
    const cpu = Object.entries(delivered!.detail ?? {}).filter(
      ([key]) => key.includes('cpu ms/delivery') || key.startsWith('machine busy'),
    );
    return {
      deliverRate: delivered!.value,
      deliverSeconds: Number(delivered!.detail?.seconds),
      deliverCpu: Object.fromEntries(cpu.map(([key, ms]) => [key, Number(ms)])),
      peakRss: Object.fromEntries(rss.map((figure) => [figure.name.replace(/^RSS /, ''), Math.round(figure.value)])),
    };
  });
}

const topologyOf = (replicas: number, env: Record<string, string>): BenchSystemOptions => ({
  env,
  replicas: { publisher: replicas, gateway: replicas },
});

const acceptDetailOf = (figure: BenchFigure) =>
  Object.fromEntries(ACCEPT_DETAIL.map((key) => [key, Number(figure.detail?.[key])]));

async function measure(replicas: number, options: ScaleOutOptions): Promise<Measured> {
  const accept = await withSystem(topologyOf(replicas, options.acceptEnv ?? options.env), (system) =>
    benchAccept(system, { ...options.accept, networkLatencyMs: options.latency?.ms }),
  );
  const [instant, paced] = accept.figures;
  return {
    acceptRps: instant!.value,
    acceptDetail: acceptDetailOf(instant!),
    ...(paced === undefined ? {} : { pacedAccept: { rps: paced.value, detail: acceptDetailOf(paced) } }),
    ...(await deliverOn(topologyOf(replicas, options.env), options.deliver)),
  };
}

export async function benchScaleOut(options: ScaleOutOptions): Promise<BenchResult> {
  const single = await measure(1, options);
  const scaled = await measure(options.replicas, options);
  const topology = `${options.replicas} publishers + ${options.replicas} gateways`;
  const detail = (prefix: string, values: Record<string, number>) =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [`${prefix} ${key}`, value]));
  const figures: BenchFigure[] = [
    {
      name: `scale-out: accept POST /v1/publish, ${topology}`,
      value: scaled.acceptRps,
      unit: 'req/s',
      baseline: single.acceptRps,
      baselineName: '1 publisher + 1 gateway, same run',
      target: 'throughput grows with replicas',
      detail: { ...scaled.acceptDetail, ...detail('baseline', single.acceptDetail) },
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
  if (single.pacedAccept !== undefined && scaled.pacedAccept !== undefined) {
    figures.push({
      name: `scale-out: accept POST /v1/publish, X answering in ${options.latency!.ms} ms, ${topology}`,
      value: scaled.pacedAccept.rps,
      unit: 'req/s',
      baseline: single.pacedAccept.rps,
      baselineName: '1 publisher + 1 gateway, same run',
      target: 'throughput grows with replicas',
      detail: { ...scaled.pacedAccept.detail, ...detail('baseline', single.pacedAccept.detail) },
    });
  }
  if (options.latency !== undefined) {
    const { ms, jobs } = options.latency;
    const slow: DeliverOptions = { ...options.deliver, jobs, xCreateLatencyMs: ms };
    const slowSingle = await deliverOn(topologyOf(1, options.env), slow);
    const slowScaled = await deliverOn(topologyOf(options.replicas, options.env), slow);
    figures.push({
      name: `scale-out: deliver ${jobs} jobs x ${options.deliver.accounts} X accounts, X answering in ${ms} ms, ${topology}`,
      value: slowScaled.deliverRate,
      unit: 'deliveries/s',
      baseline: slowSingle.deliverRate,
      baselineName: '1 publisher + 1 gateway, same run',
      target: 'throughput grows with replicas',
      detail: {
        seconds: slowScaled.deliverSeconds,
        'baseline seconds': slowSingle.deliverSeconds,
        ...slowScaled.deliverCpu,
        ...detail('baseline', slowSingle.deliverCpu),
      },
    });
  }
  return {
    bench: 'scale-out',
    params: {
      replicas: options.replicas,
      ...(options.acceptEnv === undefined ? {} : { accept_env: envParam(options.acceptEnv) }),
      jobs: options.deliver.jobs,
      ...(options.latency === undefined ? {} : { latency_ms: options.latency.ms, latency_jobs: options.latency.jobs }),
      accounts: options.deliver.accounts,
      connections: options.accept.connections,
      seconds: options.accept.durationSeconds,
      env: envParam(options.env),
    },
    figures,
  };
}
