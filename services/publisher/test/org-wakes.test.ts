import type { RawSql } from '@svc/db';
import type { Logger } from '@svc/logger';
import type { WokenDelivery } from '../src/data/org-waiting.ts';
import { OrgWakes } from '../src/domain/org-wakes.ts';

/** A database whose wake statement answers from `answer` (by organization and how many were asked for), recording each call. */
function fakeDb(answer: (orgId: string, most: number) => WokenDelivery[] | Error) {
  const calls: { orgId: string; limit: number; most: number; forS: number }[] = [];
  let release: () => void = () => undefined;
  let held: Promise<void> | undefined;
  const db: RawSql = {
    $executeRawUnsafe: () => Promise.reject(new Error('not expected')),
    $queryRawUnsafe: async <T>(_sql: string, ...values: unknown[]) => {
      const [orgId, limit, most, forS] = values as [string, number, number, number];
      calls.push({ orgId, limit, most, forS });
      if (held !== undefined) await held;
      const rows = answer(orgId, most);
      if (rows instanceof Error) throw rows;
      return rows.map((row) => ({ id: row.id, job_id: row.jobId })) as T;
    },
  };
  return {
    db,
    calls,
    /** Holds every wake statement until `release()`: the asks made meanwhile wait for the next round. */
    hold: () => {
      held = new Promise((resolve) => {
        release = () => {
          held = undefined;
          resolve();
        };
      });
    },
    release: () => release(),
  };
}

const logger = { warn: jest.fn() } as unknown as Logger & { warn: jest.Mock };

describe("OrgWakes: the wakes of an organization's waiting deliveries", () => {
  it('shares one statement per organization among the asks made while a round runs, asking for as many as were asked', async () => {
    const database = fakeDb((orgId, most) =>
      Array.from({ length: most }, (_, n) => ({ id: `${orgId}-d${n}`, jobId: `${orgId}-j` })),
    );
    const woken: [string, string[]][] = [];
    const wakes = new OrgWakes({
      db: database.db,
      logger,
      limit: 5,
      forMs: 30_000,
      onWoken: (orgId, deliveries) => {
        woken.push([orgId, deliveries.map((delivery) => delivery.id)]);
      },
    });

    database.hold();
    const first = wakes.ask('org_a');
    await new Promise((resolve) => setImmediate(resolve));
    // While the first round's statement runs: three asks for org_a and one for org_b.
    const later = [wakes.ask('org_a'), wakes.ask('org_b'), wakes.ask('org_a'), wakes.ask('org_a')];
    database.release();
    await Promise.all([first, ...later]);

    expect(database.calls).toEqual([
      { orgId: 'org_a', limit: 5, most: 1, forS: 30 },
      { orgId: 'org_a', limit: 5, most: 3, forS: 30 },
      { orgId: 'org_b', limit: 5, most: 1, forS: 30 },
    ]);
    expect(woken).toEqual([
      ['org_a', ['org_a-d0']],
      ['org_a', ['org_a-d0', 'org_a-d1', 'org_a-d2']],
      ['org_b', ['org_b-d0']],
    ]);
  });

  it('never fails its asks: a failed wake or hand-off is logged and left to the sweeper', async () => {
    const database = fakeDb((orgId) =>
      orgId === 'org_down' ? new Error('connection lost') : [{ id: 'd1', jobId: 'j1' }],
    );
    const wakes = new OrgWakes({
      db: database.db,
      logger,
      limit: 5,
      forMs: 30_000,
      onWoken: () => Promise.reject(new Error('broker closed')),
    });
    await expect(Promise.all([wakes.ask('org_down'), wakes.ask('org_up')])).resolves.toEqual([undefined, undefined]);
    expect(
      logger.warn.mock.calls
        .map(([fields]) => [(fields as { org_id: string }).org_id, (fields as { err: Error }).err.message])
        .sort(),
    ).toEqual([
      ['org_down', 'connection lost'],
      ['org_up', 'broker closed'],
    ]);
  });

  it('wakes nobody once stopped: a delivery woken then would hold its slot with nobody to run it', async () => {
    const database = fakeDb(() => [{ id: 'd1', jobId: 'j1' }]);
    const onWoken = jest.fn();
    const wakes = new OrgWakes({ db: database.db, logger, limit: 5, forMs: 30_000, onWoken });
    await wakes.stop();
    await wakes.ask('org_a');
    expect(database.calls).toEqual([]);
    expect(onWoken).not.toHaveBeenCalled();
  });

  it('stops after the round already running has handed its deliveries on, before the pool and the broker close', async () => {
    const database = fakeDb(() => [{ id: 'd1', jobId: 'j1' }]);
    const onWoken = jest.fn();
    const wakes = new OrgWakes({ db: database.db, logger, limit: 5, forMs: 30_000, onWoken });
    database.hold();
    const asked = wakes.ask('org_a');
    await new Promise((resolve) => setImmediate(resolve));
    let stopped = false;
    const stopping = wakes.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false); // its statement still runs

    database.release();
    await Promise.all([asked, stopping]);
    // The deliveries the running statement marked woken were handed on, not left to the sweep.
    expect(onWoken).toHaveBeenCalledWith('org_a', [{ id: 'd1', jobId: 'j1' }]);
    await wakes.ask('org_b');
    expect(database.calls.map((call) => call.orgId)).toEqual(['org_a']);
  });
});
