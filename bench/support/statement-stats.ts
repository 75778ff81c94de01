import type pg from 'pg';

export interface StatementCount {
  /** The database (the service's part of a bench database's name) and the start of the normalized statement. */
  query: string;
  calls: number;
  ms: number;
}

/** Every statement the server has run so far, by database and query id. */
export type StatementCounters = Map<string, StatementCount>;

/**
 * pg_stat_statements' counters for the whole server, or undefined when the server does not load the
 * module (it needs `shared_preload_libraries`): a soak then reports without them. They tell whether
 * a decay is the statements' own execution growing, and which statement, or the cost around them
 * (round trips, buffer traffic, WAL), which execution time does not include.
 */
export async function statementCounters(db: pg.Client): Promise<StatementCounters | undefined> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await db.query<{ id: string; query: string; calls: string; ms: number }>(
      `SELECT s.dbid::text || ':' || s.queryid::text AS id,
              regexp_replace(d.datname, '^bench_[^_]+_', '') || ': ' || left(regexp_replace(s.query, '\\s+', ' ', 'g'), 90) AS query,
              s.calls, s.total_exec_time AS ms
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid`,
    );
    return new Map(rows.map((row) => [row.id, { query: row.query, calls: Number(row.calls), ms: row.ms }]));
  } catch {
    return undefined;
  }
}

/** What each statement did between two samples, per delivery, the most execution time first. */
export function statementsPerDelivery(
  before: StatementCounters,
  after: StatementCounters,
  deliveries: number,
): StatementCount[] {
  const per = Math.max(1, deliveries);
  return [...after]
    .map(([id, now]) => {
      const then = before.get(id);
      return { query: now.query, calls: (now.calls - (then?.calls ?? 0)) / per, ms: (now.ms - (then?.ms ?? 0)) / per };
    })
    .filter((statement) => statement.calls > 0)
    .sort((a, b) => b.ms - a.ms);
}
