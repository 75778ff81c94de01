// An organization's limit of attempts in flight holds across dispatcher processes: each process
// (OrgShares with its own holder id) gets a leased share, and the live shares add up to the limit.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@svc/logger';
import { OrgSharesRepository } from '../src/data/org-shares.repository.ts';
import { OrgGate } from '../src/domain/org-gate.ts';
import { OrgShares } from '../src/domain/org-shares.ts';
import { useDispatcherDatabase } from './dispatcher-database.ts';

const t = useDispatcherDatabase('wh_shares');
const logger = createLogger({ service: 'test', level: 'silent' });

describe('OrgSharesRepository', () => {
  it('never grants more than the limit to holders asking at once, and ignores expired shares', async () => {
    const repository = new OrgSharesRepository(t.db);
    const holders = Array.from({ length: 6 }, () => randomUUID());
    const granted = await Promise.all(
      holders.map((holder) => repository.reserve(['org_shares_race', 'org_shares_other'], holder, 4, 60_000)),
    );
    const total = (orgId: string) =>
      granted
        .flat()
        .filter((row) => row.org_id === orgId)
        .reduce((sum, row) => sum + row.slots, 0);
    expect(total('org_shares_race')).toBe(4);
    expect(total('org_shares_other')).toBe(4);

    // A holder whose lease ran out (a dead process) leaves its share to the next one asking.
    await t.db.$executeRawUnsafe(
      `UPDATE webhook_org_shares SET expires_at = now() - interval '1 second' WHERE org_id = 'org_shares_race'`,
    );
    expect(await repository.reserve(['org_shares_race'], randomUUID(), 4, 60_000)).toEqual([
      { org_id: 'org_shares_race', slots: 4 },
    ]);
  });
});

describe('OrgGate across processes', () => {
  it("admits an organization's limit across two processes, and the second gets the share the first gives back", async () => {
    const repository = new OrgSharesRepository(t.db);
    const processes = [0, 1].map(() => {
      const shares = new OrgShares(repository, { limit: 3, leaseMs: 60_000, logger });
      return { shares, gate: new OrgGate(3, shares) };
    });
    const [first, second] = processes as [(typeof processes)[0], (typeof processes)[0]];
    await first.gate.prepare(['org_shares_gate']);
    await second.gate.prepare(['org_shares_gate']);
    const admitted = [first, second].flatMap(({ gate }) =>
      Array.from({ length: 5 }, () => gate.tryEnter('org_shares_gate')).filter((release) => release !== undefined),
    );
    expect(admitted).toHaveLength(3);
    expect(second.gate.held('org_shares_gate')).toBe(0);
    // Another organization has a limit of its own.
    await second.gate.prepare(['org_shares_elsewhere']);
    expect(second.gate.tryEnter('org_shares_elsewhere')).toBeDefined();

    for (const release of admitted) release!();
    await first.shares.stop();
    // The second process asks again now and then (at most once a second) and gets the whole limit.
    for (const deadline = Date.now() + 5000; second.shares.slots('org_shares_gate') < 3;) {
      if (Date.now() > deadline) throw new Error('the second process never got the share the first gave back');
      second.shares.wantMore('org_shares_gate');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      Array.from({ length: 4 }, () => second.gate.tryEnter('org_shares_gate')).filter(
        (release) => release !== undefined,
      ),
    ).toHaveLength(3);
    await second.shares.stop();
  });
});
