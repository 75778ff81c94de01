// The plans PostgreSQL makes for a repository's own statements, without running them: tests that a
// statement finds its rows through the index it was written for, whatever the tables held when it
// was planned (a plan made on an empty table is kept for a connection's life, docs/performance.md).
import { escapeLiteral } from 'pg';
import type { RawSql } from '@svc/db';

/** A value written into `EXECUTE name(...)`, which takes no bound parameters. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    const items = value.map((item) =>
      item === null || item === undefined ? 'NULL' : `"${String(item).replace(/["\\]/g, '\\$&')}"`,
    );
    return escapeLiteral(`{${items.join(',')}}`);
  }
  return escapeLiteral(value instanceof Date ? value.toISOString() : String(value));
}

let prepared = 0;

/**
 * A RawSql that runs nothing: each statement handed to `$queryRawUnsafe` is prepared on `session`
 * and explained with its values (EXPLAIN EXECUTE, so planned as the session plans a prepared
 * statement: generic under `plan_cache_mode = force_generic_plan`), its plan passed to `onPlan`, and
 * no row returned. Pass it to a repository function in place of its pool to collect its plans.
 */
export function planningSql(session: RawSql, onPlan: (plan: unknown, query: string) => void): RawSql {
  return {
    $executeRawUnsafe: () =>
      Promise.reject(new Error('planningSql explains statements sent through $queryRawUnsafe only')),
    $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) => {
      const name = `planned_${++prepared}`;
      await session.$executeRawUnsafe(`PREPARE ${name} AS ${query}`);
      try {
        const [row] = await session.$queryRawUnsafe<{ 'QUERY PLAN': [{ Plan: unknown }] }[]>(
          `EXPLAIN (FORMAT JSON) EXECUTE ${name}(${values.map(literal).join(', ')})`,
        );
        onPlan(row!['QUERY PLAN'][0].Plan, query);
      } finally {
        await session.$executeRawUnsafe(`DEALLOCATE ${name}`);
      }
      return [] as T;
    },
  };
}

interface PlanNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function bitmapIndexes(node: PlanNode): string[] {
  return [
    ...(node['Node Type'] === 'Bitmap Index Scan' ? [String(node['Index Name'])] : []),
    ...(node.Plans ?? []).flatMap(bitmapIndexes),
  ];
}

/**
 * How a plan reads the named tables: "table index" for each node that reads one (its index, the
 * indexes of a bitmap scan joined by " and ", or the node type, e.g. "Seq Scan"), sorted, each once.
 * The writes themselves (ModifyTable) are not reads.
 */
export function tableReads(plan: unknown, tables: readonly string[]): string[] {
  const reads = (node: PlanNode): string[] => {
    const table = node['Relation Name'];
    if (table === undefined || !tables.includes(table) || node['Node Type'] === 'ModifyTable')
      return (node.Plans ?? []).flatMap(reads);
    if (node['Node Type'] === 'Bitmap Heap Scan') return [`${table} ${bitmapIndexes(node).join(' and ')}`];
    return [`${table} ${node['Index Name'] ?? node['Node Type']}`, ...(node.Plans ?? []).flatMap(reads)];
  };
  return [...new Set(reads(plan as PlanNode))].sort();
}

/**
 * A backlog that makes a scan expensive: 3,000 pending deliveries of `orgId` in 300 jobs of 10
 * targets, none waiting, and statistics that say so.
 */
export async function insertPendingBacklog(sql: RawSql, orgId: string): Promise<void> {
  await sql.$executeRawUnsafe(
    `WITH j AS (INSERT INTO jobs (id, org_id, status, text, account_ids, providers, updated_at)
                SELECT gen_random_uuid(), $1, 'queued', 'hello ' || n, ARRAY(SELECT 'acct_' || k FROM generate_series(0, 9) k), ARRAY['x'], now()
                  FROM generate_series(1, 300) n RETURNING id)
     INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, updated_at)
     SELECT gen_random_uuid(), j.id, $1, 'acct_' || k, 'x', k, 'pending', now() FROM j, generate_series(0, 9) k`,
    orgId,
  );
  await sql.$executeRawUnsafe('ANALYZE deliveries');
  await sql.$executeRawUnsafe('ANALYZE jobs');
}
