// soak: steady publishing for a long time, to show the pipeline does not decay with use.
// A closed loop keeps about `backlog` jobs open (soak-feeder.ts), so the publisher always has work and
// the rate measured per window is its throughput. Every window records the deliveries
// finished in it and the size of the tables that grow with use. The figure is the last window's rate
// against the first full window's (the baseline, same run): target at least 0.9. A second figure
// compares the aged system with a fresh twin in alternate windows of the same minutes (soak-twin.ts),
// which this machine's drift over half an hour does not move. Every job's text must be on the
// sandbox's X exactly once at the end, the twin's too (soak-feeder.ts).
import type pg from 'pg';
import type { BenchService, BenchSystem } from '../support/bench-system.ts';
import { startCpuSpeedProbe } from '../support/cpu-speed.ts';
import { busyPercent, cpuSample, type CpuSample } from '../support/machine-cpu.ts';
import { sleep } from '../support/publish-jobs.ts';
import type { BenchFigure, BenchResult } from '../support/results.ts';
import { finishedBetween, startFeeder, type SoakFeeder } from './soak-feeder.ts';
import { compareWithTwin, type TwinOptions } from './soak-twin.ts';
import { statementCounters, statementsPerDelivery, type StatementCount } from '../support/statement-stats.ts';
import { fitTrend, fitTrendBeside, mean } from '../support/trend.ts';

export interface SoakOptions {
  minutes: number;
  windowSeconds: number;
  accounts: number;
  /** Jobs kept open at once. */
  backlog: number;
  /** Accept requests in flight while topping the backlog up. */
  acceptConcurrency: number;
  /**
   * After the run, the aged system against a fresh twin in alternate windows (soak-twin.ts): `start`
   * starts the twin as the aged system was started. No twin when undefined.
   */
  twin?: Omit<TwinOptions, 'drainTimeoutMs'> & { start: () => Promise<BenchSystem> };
}

const DRAIN_TIMEOUT_MS = 600_000;

/**
 * The tables that grow with use, per service, and the ones that should stay flat. The flat ones are
 * counted; the ones that grow by design (history, and an inbox kept for INBOX_RETENTION_HOURS, longer
 * than any soak) give PostgreSQL's live-row count instead: counting them read every row each window,
 * and those reads were the only reader of `jobs_org_id_status_idx` (its smallest index) the soaks saw.
 */
const TABLES: [BenchService, string, 'count' | 'live rows'][] = [
  ['publisher', 'outbox_messages', 'count'],
  ['publisher', 'processed_messages', 'count'],
  ['publisher', 'jobs', 'live rows'],
  ['gateway', 'idempotency_records', 'count'],
  ['gateway', 'outbox_messages', 'count'],
  ['accounts', 'outbox_messages', 'count'],
  ['scheduler', 'scheduled_jobs', 'count'],
  ['scheduler', 'outbox_messages', 'count'],
  // The events' consumers: analytics-sync's inbox gains an id per event (pruned after
  // INBOX_RETENTION_HOURS), its rows are the customers' history; the dispatcher has no endpoint here.
  ['analytics-sync', 'processed_messages', 'live rows'],
  ['analytics-sync', 'analytics_rows', 'live rows'],
  ['analytics-sync', 'outbox_messages', 'count'],
  ['webhook-dispatcher', 'outbox_messages', 'count'],
];

/** Windows averaged at the start and at the end of the run (kept in the detail beside the trend). */
const SPAN = 3;

interface Window {
  endedAtS: number;
  deliveries: number;
  rate: number;
  /** `service.table` -> live rows, and dead tuples for the outboxes. */
  rows: Record<string, number>;
  /**
   * CPU ms per delivery finished in the window: per service process, the bench process (feeder and
   * sandbox), PostgreSQL's and RabbitMQ's processes, what none of them used (`other`) and all of the
   * machine's cores (`machine`).
   */
  cpuPerDelivery: Record<string, number>;
  /** How busy the cores were in the window, in % of all of them. */
  busyPercent: number;
  /** The cores' speed in the window: the median CPU ms of the speed probe's fixed work (higher is slower). */
  probeCpuMs: number | undefined;
  /** The memory's speed in the window: the median CPU ns of one of the probe's random reads (higher is slower). */
  probeMemNs: number | undefined;
  /** Rows and index entries the publisher's database read per delivery in the window (per table by sequential scans, per index), and rows it updated (all, and HOT) per table. */
  readsPerDelivery: Record<string, number>;
  /** PostgreSQL's shared buffers per delivery in the window, the whole server: pages brought in, who wrote dirty ones out, and the WAL written. */
  buffersPerDelivery: Record<string, number>;
  /** Pages each table or index of every service's database brought into shared buffers per delivery in the window: which relations outgrew the cache. */
  blocksReadPerDelivery: Record<string, number>;
  /** Each statement's calls and execution ms per delivery in the window, the whole server, when it loads pg_stat_statements. */
  statements: StatementCount[] | undefined;
  /** How far analytics' background readings are behind at the window's end (its /metrics gauge), in seconds. */
  analyticsLagS: number | undefined;
}

const cpuNow = (system: BenchSystem): CpuSample => cpuSample(system.cpuMs());

/**
 * analytics-sync's `svc_analytics_background_lag_seconds` now, read from its /metrics: with a budget
 * for its readings (ANALYTICS_SYNC_MAX_READS_PER_SECOND) the deliveries keep their CPU and the
 * readings fall behind instead, and the soak says by how much. Undefined when it cannot be read.
 */
async function analyticsLag(system: BenchSystem): Promise<number | undefined> {
  const service = system.processes.get('analytics-sync');
  if (service === undefined) return undefined;
  try {
    const metrics = await (await fetch(`http://127.0.0.1:${service.probePort}/metrics`)).text();
    const gauge = /^svc_analytics_background_lag_seconds(?:\{[^}]*\})? (\S+)$/m.exec(metrics);
    return gauge === null ? undefined : Number(gauge[1]);
  } catch {
    return undefined;
  }
}

/**
 * A window's CPU per delivery: each process, `machine` (every core's busy time) and `other` (the
 * machine's busy time no process above used: the kernel's own threads and interrupts, other programs).
 */
function windowCpu(
  before: CpuSample,
  after: CpuSample,
  deliveries: number,
): Pick<Window, 'cpuPerDelivery' | 'busyPercent'> {
  const processes = perDelivery(before.processes, after.processes, deliveries, 0);
  const machine = (after.busyMs - before.busyMs) / Math.max(1, deliveries);
  const other = machine - Object.values(processes).reduce((sum, ms) => sum + ms, 0);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    cpuPerDelivery: { ...processes, other: round(Math.max(0, other)), machine: round(machine) },
    busyPercent: busyPercent(before, after),
  };
}

/**
 * Rows read so far by sequential scans per table, and entries read per index, in one database: a
 * query that scans a growing table, or an index walking dead entries, shows up as a count per
 * delivery that grows from window to window. Also the rows updated per table and how many of
 * those were HOT (heap-only: no new entry in any index): an update that is not HOT adds an entry
 * to every index of its table, which later reads walk past until vacuum removes it.
 */
async function tableReads(db: pg.Client): Promise<Record<string, number>> {
  const { rows } = await db.query<{ name: string; n: string }>(
    `SELECT relname || ' seq' AS name, coalesce(seq_tup_read, 0) AS n FROM pg_stat_user_tables
     UNION ALL SELECT indexrelname, idx_tup_read FROM pg_stat_user_indexes
     UNION ALL SELECT relname || ' updated', n_tup_upd FROM pg_stat_user_tables
     UNION ALL SELECT relname || ' HOT updated', n_tup_hot_upd FROM pg_stat_user_tables`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.n)]));
}

/**
 * The server's buffer and WAL traffic so far. Once the tables a delivery touches outgrow
 * shared_buffers, every delivery evicts pages and reads them back (`blocks read`), and backends
 * write dirty pages themselves (`written by backends`): CPU per delivery that grows with the data,
 * not with any plan. The first change of a page after a checkpoint writes the whole page to the WAL
 * (`WAL full pages`): the more distinct pages a delivery's changes touch, the more of them.
 */
async function bufferCounters(db: pg.Client): Promise<Record<string, number>> {
  const {
    rows: [row],
  } = await db.query<Record<string, string>>(
    `SELECT buffers_alloc AS "buffers allocated", buffers_backend AS "written by backends",
            buffers_clean AS "written by bgwriter", buffers_checkpoint AS "written by checkpoints",
            (SELECT sum(blks_read) FROM pg_stat_database) AS "blocks read",
            wal_records AS "WAL records", wal_fpi AS "WAL full pages", wal_bytes / 1024 AS "WAL KB"
       FROM pg_stat_bgwriter, pg_stat_wal`,
  );
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Number(value)]));
}

/**
 * Pages brought into shared buffers so far per table (heap and TOAST) and per index, in every
 * service's database: when `blocks read` grows, the relations that stopped fitting. An index whose
 * inserts and lookups land on random leaves (a random key) misses the cache once it outgrows its
 * share, whatever the table's age; one whose new keys come in order keeps only its right edge hot.
 */
async function blocksRead(databases: Map<BenchService, pg.Client>): Promise<Record<string, number>> {
  const blocks: Record<string, number> = {};
  for (const [service, db] of databases) {
    const { rows } = await db.query<{ name: string; n: string }>(
      `SELECT relname AS name, coalesce(heap_blks_read, 0) + coalesce(toast_blks_read, 0) AS n FROM pg_statio_user_tables
       UNION ALL SELECT indexrelname, coalesce(idx_blks_read, 0) FROM pg_statio_user_indexes`,
    );
    for (const row of rows) blocks[`${service}.${row.name}`] = Number(row.n);
  }
  return blocks;
}

/** The largest tables and indexes of every service's database at the end, in MB: what the buffer cache has to hold. */
async function largestRelations(
  databases: Map<BenchService, pg.Client>,
  count: number,
): Promise<Record<string, number>> {
  const sizes: [string, number][] = [];
  for (const [service, db] of databases) {
    const { rows } = await db.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'i', 't')`,
    );
    for (const row of rows)
      sizes.push([`${service}.${row.name} MB`, Math.round(Number(row.bytes) / 1024 / 102.4) / 10]);
  }
  return Object.fromEntries(sizes.sort((a, b) => b[1] - a[1]).slice(0, count));
}

/** A window's statements for the log: their execution per delivery, and the few that took most. */
function statementsLine(statements: StatementCount[] | undefined): string {
  if (statements === undefined) return '';
  const top = statements
    .slice(0, 5)
    .map(
      (statement) =>
        `${statement.calls.toFixed(2)} x ${((statement.ms / Math.max(statement.calls, 1e-9)) * 1000).toFixed(0)} us ${statement.query}`,
    );
  return `, statement execution ms/delivery ${totalMs(statements).toFixed(2)}, most: ${top.join(' | ')}`;
}

const totalMs = (statements: StatementCount[]) => statements.reduce((sum, statement) => sum + statement.ms, 0);

/**
 * Statement execution per delivery at the first full window and the last, whole and for the five
 * statements that took most at the end: whether the decay is in the statements, and in which.
 */
function statementDetail(first: Window, last: Window): Record<string, string | number> {
  if (first.statements === undefined || last.statements === undefined)
    return { 'statement execution': 'not measured (pg_stat_statements not loaded)' };
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const detail: Record<string, string | number> = {
    'statement execution ms/delivery start': round(totalMs(first.statements)),
    'statement execution ms/delivery end': round(totalMs(last.statements)),
    'statements/delivery start': round(first.statements.reduce((sum, statement) => sum + statement.calls, 0)),
    'statements/delivery end': round(last.statements.reduce((sum, statement) => sum + statement.calls, 0)),
  };
  last.statements.slice(0, 5).forEach((statement, index) => {
    const before = first.statements!.find((other) => other.query === statement.query);
    detail[`statement ${index + 1}`] =
      `${statement.query}: calls/delivery ${round(before?.calls ?? 0)} -> ${round(statement.calls)}, ms/delivery ${round(before?.ms ?? 0)} -> ${round(statement.ms)}`;
  });
  return detail;
}

/** What grew between two samples, per delivery, keeping only what is worth reading. */
function perDelivery(
  before: Record<string, number>,
  after: Record<string, number>,
  deliveries: number,
  floor: number,
): Record<string, number> {
  const entries = Object.entries(after).map(
    ([key, value]) => [key, (value - (before[key] ?? 0)) / Math.max(1, deliveries)] as const,
  );
  return Object.fromEntries(
    entries.filter(([, value]) => value >= floor).map(([key, value]) => [key, Math.round(value * 10) / 10]),
  );
}

async function tableStat(db: pg.Client, table: string, column: 'n_dead_tup' | 'n_live_tup'): Promise<number> {
  const {
    rows: [stat],
  } = await db.query<{ n: string | null }>(`SELECT ${column} AS n FROM pg_stat_user_tables WHERE relname = $1`, [
    table,
  ]);
  return Number(stat?.n ?? 0);
}

const deadTuples = (db: pg.Client, table: string) => tableStat(db, table, 'n_dead_tup');

async function tableRows(databases: Map<BenchService, pg.Client>): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  for (const [service, table, how] of TABLES) {
    const db = databases.get(service)!;
    // PostgreSQL's estimate: its cumulative statistics' inserts less deletes, reset by each vacuum and analyze.
    if (how === 'live rows') rows[`${service}.${table} (estimate)`] = await tableStat(db, table, 'n_live_tup');
    else
      rows[`${service}.${table}`] = Number(
        (await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n,
      );
    if (table === 'outbox_messages') rows[`${service}.outbox dead tuples`] = await deadTuples(db, table);
  }
  // Four updates a delivery, none HOT: the dead versions autovacuum has yet to remove.
  rows['publisher.deliveries dead tuples'] = await deadTuples(databases.get('publisher')!, 'deliveries');
  return rows;
}

/**
 * Starts the twin, connects as many X accounts, runs the comparison, then drains both sides (the aged
 * side's feeder is left paused), checks the twin's posts exactly once and closes it.
 */
async function againstTwin(
  aged: BenchSystem,
  accounts: number,
  agedSide: { publisher: pg.Client; feeder: SoakFeeder },
  load: SoakOptions,
  options: NonNullable<SoakOptions['twin']>,
): Promise<BenchFigure> {
  const twin = await options.start();
  try {
    const publisher = await twin.database('publisher');
    try {
      const feeder = startFeeder(twin, publisher, await twin.connectXAccounts(accounts), { ...load, paused: true });
      const figure = await compareWithTwin(
        { ...agedSide, orgId: aged.orgId, cpuMs: () => aged.cpuMs() },
        { feeder, publisher, orgId: twin.orgId, cpuMs: () => twin.cpuMs() },
        {
          pairs: options.pairs,
          windowSeconds: options.windowSeconds,
          rampSeconds: options.rampSeconds,
          settleSeconds: options.settleSeconds,
          drainTimeoutMs: DRAIN_TIMEOUT_MS,
        },
      );
      // The aged side idle first: the twin's check reads every post its sandbox holds, in this
      // process, where the aged side's sandbox answers too. Otherwise the aged side's calls to X time
      // out meanwhile, and their lookups cannot cover the account's posts since (docs/performance.md,
      // "A steady machine").
      agedSide.feeder.pause();
      await agedSide.feeder.drain(DRAIN_TIMEOUT_MS);
      await feeder.finish(DRAIN_TIMEOUT_MS);
      return figure;
    } finally {
      await publisher.end();
    }
  } finally {
    await twin.close();
  }
}

export async function benchSoak(system: BenchSystem, options: SoakOptions): Promise<BenchResult> {
  const accounts = await system.connectXAccounts(options.accounts);
  const databases = new Map<BenchService, pg.Client>();
  try {
    for (const service of new Set(TABLES.map(([name]) => name))) databases.set(service, await system.database(service));
    return await soak(system, options, accounts, databases);
  } finally {
    for (const db of databases.values()) await db.end();
  }
}

async function soak(
  system: BenchSystem,
  options: SoakOptions,
  accounts: string[],
  databases: Map<BenchService, pg.Client>,
): Promise<BenchResult> {
  const publisher = databases.get('publisher')!;
  // The server settings a soak's trend depends on, reported with it: without autovacuum every table
  // that churns decays, its naptime bounds how often a table is vacuumed however fast it churns, and
  // a working set that outgrows the buffer cache is another way to decay, and so are old pages
  // written again after each checkpoint (a full-page image in the WAL for each).
  const {
    rows: [settings],
  } = await publisher.query<{
    autovacuum: string;
    naptime: string;
    shared_buffers: string;
    checkpoint_timeout: string;
    max_wal_size: string;
  }>(
    `SELECT current_setting('autovacuum') AS autovacuum, current_setting('autovacuum_naptime') AS naptime, current_setting('shared_buffers') AS shared_buffers,
            current_setting('checkpoint_timeout') AS checkpoint_timeout, current_setting('max_wal_size') AS max_wal_size`,
  );
  const feeder = startFeeder(system, publisher, accounts, options);

  const windows: Window[] = [];
  // A few samples of the cores' speed per window (each costs a core about 60 ms).
  const speed = await startCpuSpeedProbe(Math.max(1000, Math.min(10_000, (options.windowSeconds * 1000) / 4)));
  const started = Date.now();
  let from = new Date();
  let cpuBefore = cpuNow(system);
  let readsBefore = await tableReads(publisher);
  let buffersBefore = await bufferCounters(publisher);
  let blocksBefore = await blocksRead(databases);
  let statementsBefore = await statementCounters(publisher);
  try {
    while (Date.now() - started < options.minutes * 60_000) {
      await sleep(options.windowSeconds * 1000);
      feeder.check();
      const to = new Date();
      const deliveries = await finishedBetween(publisher, system.orgId, from, to);
      const cpuAfter = cpuNow(system);
      const readsAfter = await tableReads(publisher);
      const buffersAfter = await bufferCounters(publisher);
      const blocksAfter = await blocksRead(databases);
      const statementsAfter = await statementCounters(publisher);
      const window: Window = {
        endedAtS: Math.round((to.getTime() - started) / 1000),
        deliveries,
        rate: deliveries / ((to.getTime() - from.getTime()) / 1000),
        rows: await tableRows(databases),
        ...windowCpu(cpuBefore, cpuAfter, deliveries),
        probeCpuMs: speed.medianBetween('cpuMs', from.getTime(), to.getTime()),
        probeMemNs: speed.medianBetween('memNs', from.getTime(), to.getTime()),
        readsPerDelivery: perDelivery(readsBefore, readsAfter, deliveries, 0.5),
        buffersPerDelivery: perDelivery(buffersBefore, buffersAfter, deliveries, 0),
        blocksReadPerDelivery: perDelivery(blocksBefore, blocksAfter, deliveries, 0.1),
        statements:
          statementsBefore === undefined || statementsAfter === undefined
            ? undefined
            : statementsPerDelivery(statementsBefore, statementsAfter, deliveries),
        analyticsLagS: await analyticsLag(system),
      };
      windows.push(window);
      console.log(
        `soak ${window.endedAtS} s: ${window.rate.toFixed(1)} deliveries/s, cores ${window.busyPercent}% busy, speed probe ${window.probeCpuMs} cpu ms and ${window.probeMemNs?.toFixed(1)} ns/read, analytics lag ${window.analyticsLagS?.toFixed(0) ?? '-'} s, cpu ms/delivery ${JSON.stringify(window.cpuPerDelivery)}, publisher rows read and updated/delivery ${JSON.stringify(window.readsPerDelivery)}, buffers/delivery ${JSON.stringify(window.buffersPerDelivery)}, blocks read/delivery ${JSON.stringify(window.blocksReadPerDelivery)}, ${JSON.stringify(window.rows)}${statementsLine(window.statements)}`,
      );
      from = to;
      cpuBefore = cpuAfter;
      readsBefore = readsAfter;
      buffersBefore = buffersAfter;
      blocksBefore = blocksAfter;
      statementsBefore = statementsAfter;
    }
  } catch (error) {
    await feeder.stop();
    throw error;
  } finally {
    speed.stop();
  }
  const twinFigure =
    options.twin === undefined
      ? []
      : [
          await againstTwin(system, accounts.length, { publisher, feeder }, options, options.twin).catch(
            async (error: unknown) => {
              await feeder.stop();
              throw error;
            },
          ),
        ];
  // Drain, then exactly once from the network's records.
  const targets = await feeder.finish(DRAIN_TIMEOUT_MS);
  const largest = await largestRelations(databases, 12);

  // The first window warms up (processes, JIT, pools). One window's rate moves by 10-25% with what
  // else the two cores do (an autovacuum pass, a checkpoint): the start and the end are read off a
  // line fitted through every full window (bench/support/trend.ts). The means of the first and last
  // SPAN windows, which the verdict used before, are kept in the detail.
  const full = windows.length > 1 ? windows.slice(1) : windows;
  const span = Math.max(1, Math.min(SPAN, Math.floor(full.length / 2)));
  const trend = fitTrend(full.map((window) => window.rate));
  const first = full[0]!;
  const last = full.at(-1)!;
  // The rate the end would have had on cores as fast as the start's: the end's rate times how much
  // slower the probe's fixed work ran at the end. Only an estimate (the probe sees CPU-bound speed
  // only), kept beside the measured ratio, never instead of it.
  const probed = (some: Window[], measure: 'probeCpuMs' | 'probeMemNs') => {
    const values = some.flatMap((window) => (window[measure] === undefined ? [] : [window[measure]]));
    return values.length === 0 ? undefined : mean(values);
  };
  const [startRate, endRate] = [trend.start, trend.end];
  const [probeStart, probeEnd] = [probed(full.slice(0, span), 'probeCpuMs'), probed(full.slice(-span), 'probeCpuMs')];
  const [memoryStart, memoryEnd] = [probed(full.slice(0, span), 'probeMemNs'), probed(full.slice(-span), 'probeMemNs')];
  const speedAdjusted =
    probeStart === undefined || probeEnd === undefined
      ? {}
      : {
          'speed probe cpu ms start': Math.round(probeStart * 10) / 10,
          'speed probe cpu ms end': Math.round(probeEnd * 10) / 10,
          "ratio adjusted for the cores' speed":
            Math.round(((endRate * probeEnd) / probeStart / startRate) * 1000) / 1000,
        };
  // Not folded into a ratio by proportion: how much of a delivery waits on memory is not known (the
  // line beside the probe, below, estimates it from the run's own windows instead).
  const memorySpeed =
    memoryStart === undefined || memoryEnd === undefined
      ? {}
      : {
          'memory probe ns/read start': Math.round(memoryStart * 10) / 10,
          'memory probe ns/read end': Math.round(memoryEnd * 10) / 10,
        };
  // The same line with each window's memory probe beside it, read at the probe's mean: how much of
  // the change with time the machine's own swings (a neighbour taking the memory) do not explain.
  const memoryProbes = full.map((window) => window.probeMemNs);
  const besideMemory = (): Record<string, number | string> => {
    if (memoryProbes.some((ns) => ns === undefined)) return {};
    try {
      const beside = fitTrendBeside(
        full.map((window) => window.rate),
        memoryProbes as number[],
      );
      return {
        'ratio with the memory probe held at its mean': Math.round((beside.end / beside.start) * 1000) / 1000,
        'rate trend beside the memory probe deliveries/s per window': Math.round(beside.slope * 100) / 100,
        'rate trend beside the memory probe margin': Number.isFinite(beside.margin)
          ? Math.round(beside.margin * 100) / 100
          : '-',
        'deliveries/s per memory probe ns/read': Math.round(beside.perUnit * 1000) / 1000,
      };
    } catch {
      return {}; // too few windows, or the probe did not vary apart from time: nothing to separate
    }
  };
  const startEnd = (name: string, start: Record<string, number>, end: Record<string, number>) =>
    Object.keys({ ...start, ...end }).flatMap((key) => {
      const label = name === '' ? key : `${key} ${name}`;
      return [
        [`${label} start`, start[key] ?? 0],
        [`${label} end`, end[key] ?? 0],
      ];
    });
  const sizes = Object.fromEntries([
    ...startEnd('', first.rows, last.rows),
    ...startEnd('cpu ms/delivery', first.cpuPerDelivery, last.cpuPerDelivery),
    ...startEnd('rows/delivery', first.readsPerDelivery, last.readsPerDelivery),
    ...startEnd('buffers/delivery', first.buffersPerDelivery, last.buffersPerDelivery),
    ...startEnd('blocks read/delivery', first.blocksReadPerDelivery, last.blocksReadPerDelivery),
  ]);
  const figures: BenchFigure[] = [
    {
      name: `soak: ${options.minutes} min steady publishing, ${accounts.length} X accounts a job, ${options.backlog} jobs open`,
      value: endRate,
      unit: 'deliveries/s at the last window, on a line fitted through every full window',
      baseline: startRate,
      baselineName: 'the same line at the first full window of the same run',
      target: 'ratio >= 0.9 (no decay with use)',
      detail: {
        autovacuum: settings!.autovacuum,
        'autovacuum naptime': settings!.naptime,
        'shared buffers': settings!.shared_buffers,
        'checkpoint timeout': settings!.checkpoint_timeout,
        'max wal size': settings!.max_wal_size,
        'window s': options.windowSeconds,
        windows: windows.length,
        jobs: feeder.jobs,
        deliveries: targets,
        'window rates': windows.map((window) => window.rate.toFixed(1)).join(' '),
        'window cores busy %': windows.map((window) => window.busyPercent).join(' '),
        'window machine cpu ms/delivery': windows.map((window) => window.cpuPerDelivery.machine).join(' '),
        'window speed probe cpu ms': windows.map((window) => window.probeCpuMs ?? '-').join(' '),
        'window memory probe ns/read': windows.map((window) => window.probeMemNs?.toFixed(1) ?? '-').join(' '),
        'window blocks read/delivery': windows.map((window) => window.buffersPerDelivery['blocks read'] ?? 0).join(' '),
        'window analytics background lag s': windows.map((window) => window.analyticsLagS?.toFixed(0) ?? '-').join(' '),
        ...statementDetail(first, last),
        // Change per window, and two standard errors of it: a slope inside the margin is noise.
        'rate trend deliveries/s per window': Math.round(trend.slope * 100) / 100,
        'rate trend margin': Number.isFinite(trend.margin) ? Math.round(trend.margin * 100) / 100 : '-',
        [`mean of the first ${span} full windows`]:
          Math.round(mean(full.slice(0, span).map((window) => window.rate)) * 10) / 10,
        [`mean of the last ${span} windows`]:
          Math.round(mean(full.slice(-span).map((window) => window.rate)) * 10) / 10,
        ...speedAdjusted,
        ...memorySpeed,
        ...besideMemory(),
        'min window rate': Math.min(...full.map((window) => window.rate)),
        ...sizes,
        ...largest,
      },
    },
    ...twinFigure,
  ];
  return {
    bench: 'soak',
    params: {
      minutes: options.minutes,
      window_s: options.windowSeconds,
      accounts: options.accounts,
      backlog: options.backlog,
      accept_concurrency: options.acceptConcurrency,
    },
    figures,
  };
}
