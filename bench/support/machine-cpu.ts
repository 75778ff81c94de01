// Where a benchmark's CPU went on the whole machine, not only in the services: PostgreSQL's backends,
// RabbitMQ, this process (load generator and in-process sandbox), and how busy the cores were. On a
// machine where everything shares two cores, this says whether a faster service or more replicas can
// still help, or whether the cores are already spent.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface MachineCpu {
  /** ms the cores were busy (not idle, not waiting on I/O), all cores added up. */
  busyMs: number;
  /** ms the cores existed, all cores added up (busy share = busyMs / totalMs). */
  totalMs: number;
  /** CPU ms used so far by PostgreSQL's processes, RabbitMQ's, Redis's, and this process. */
  postgres: number;
  rabbitmq: number;
  redis: number;
  bench: number;
}

function cores(): { busyMs: number; totalMs: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!;
  return { busyMs: (total - idle! - iowait!) * TICK_MS, totalMs: total * TICK_MS };
}

/**
 * CPU ms of a process and of its children that exited and were waited for: utime + stime + cutime +
 * cstime of /proc/<pid>/stat. PostgreSQL's backends come and go (each pool replaces its connections
 * every minute, libs/db's CONNECTION_LIFETIME_S): a backend's CPU is its own while it lives, and its
 * postmaster's once it has exited.
 */
function cpuMsWithChildren(pid: string): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), counted from its closing parenthesis.
  const [utime, stime, cutime, cstime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map(Number);
  return (utime! + stime! + cutime! + cstime!) * TICK_MS;
}

/** CPU ms of every process whose command name is `name`, with their exited children's. */
function byCommand(name: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) total += cpuMsWithChildren(entry);
    } catch {
      // gone between the listing and the read
    }
  }
  return total;
}

export function machineCpu(): MachineCpu {
  const usage = process.cpuUsage();
  return {
    ...cores(),
    postgres: byCommand('postgres'),
    rabbitmq: byCommand('beam.smp'),
    redis: byCommand('redis-server'),
    bench: (usage.user + usage.system) / 1000,
  };
}

export interface CpuSample {
  /** CPU ms used so far per service process, this process, PostgreSQL and RabbitMQ. */
  processes: Record<string, number>;
  busyMs: number;
  totalMs: number;
}

/** The machine's CPU so far with each process's: the services' (`services`, by instance name, as BenchSystem.cpuMs gives them) and the shared ones. */
export function cpuSample(services: Record<string, number>): CpuSample {
  const { busyMs, totalMs, ...shared } = machineCpu();
  return { processes: { ...services, ...shared }, busyMs, totalMs };
}

/** How busy the cores were between two samples, in % of all of them (one decimal). */
export function busyPercent(
  before: Pick<MachineCpu, 'busyMs' | 'totalMs'>,
  after: Pick<MachineCpu, 'busyMs' | 'totalMs'>,
): number {
  return Math.round(((after.busyMs - before.busyMs) / Math.max(1, after.totalMs - before.totalMs)) * 1000) / 10;
}

/** The machine's CPU between two samples, per unit of work (e.g. per delivery), as benchmark detail. */
export function machineCpuDetail(
  before: MachineCpu,
  after: MachineCpu,
  units: number,
  unit: string,
): Record<string, number> {
  const per = (key: keyof MachineCpu) => Math.round(((after[key] - before[key]) / Math.max(1, units)) * 100) / 100;
  return {
    [`machine busy % of ${os.cpus().length} cores`]: busyPercent(before, after),
    [`machine cpu ms/${unit}`]: per('busyMs'),
    [`postgres cpu ms/${unit}`]: per('postgres'),
    [`rabbitmq cpu ms/${unit}`]: per('rabbitmq'),
    [`redis cpu ms/${unit}`]: per('redis'),
    [`bench process cpu ms/${unit}`]: per('bench'),
  };
}
