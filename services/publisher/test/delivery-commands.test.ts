import { randomUUID } from 'node:crypto';
import {
  createEnvelope,
  DELIVERY_RUN_MAX_DELIVERIES,
  findMessage,
  publisherDeliveryRun,
  publisherDeliveryRunBatch,
} from '@svc/contracts';
import { deliveryCommandHandlers } from '../src/consumers/publisher.consumers.ts';
import { deliveryRunCommands, sendWokenDeliveries } from '../src/domain/delivery-run-commands.ts';
import type { DeliveryRunner } from '../src/domain/run-delivery.ts';

const context = { redelivered: false, attempt: 1 };
const noOrg = { orgId: 'org_1', requestId: null };

describe("delivery commands: a job's targets in commands of up to 10", () => {
  it("sends a job's deliveries in commands of 10 at most, in order, each delivery once", () => {
    const jobId = randomUUID();
    const ids = Array.from({ length: 25 }, () => randomUUID());
    const commands = deliveryRunCommands(jobId, ids, noOrg);
    expect(commands.map((command) => command.type)).toEqual([
      'publisher.delivery_run.v2',
      'publisher.delivery_run.v2',
      'publisher.delivery_run.v2',
    ]);
    const named = commands.map((command) => command.payload as { job_id: string; delivery_ids: string[] });
    expect(named.map((payload) => payload.delivery_ids.length)).toEqual([
      DELIVERY_RUN_MAX_DELIVERIES,
      DELIVERY_RUN_MAX_DELIVERIES,
      5,
    ]);
    expect(named.flatMap((payload) => payload.delivery_ids)).toEqual(ids);
    expect(new Set(named.map((payload) => payload.job_id))).toEqual(new Set([jobId]));
    expect(deliveryRunCommands(jobId, [], noOrg)).toEqual([]);
  });

  it('sends the most targets a post may have (100, interface spec) in 10 commands of 10', () => {
    const ids = Array.from({ length: 100 }, () => randomUUID());
    const commands = deliveryRunCommands(randomUUID(), ids, noOrg);
    expect(commands.map((command) => (command.payload as { delivery_ids: string[] }).delivery_ids.length)).toEqual(
      Array.from({ length: 10 }, () => 10),
    );
    expect(commands.flatMap((command) => (command.payload as { delivery_ids: string[] }).delivery_ids)).toEqual(ids);
  });

  it("hands woken deliveries to the deliverers in their jobs' commands, for the organization woken", async () => {
    const [jobA, jobB] = [randomUUID(), randomUUID()];
    const [a1, a2, b1] = [randomUUID(), randomUUID(), randomUUID()];
    const sent: { type: string; org_id: string | null; payload: unknown }[] = [];
    const broker = {
      publishEnvelope: async (envelope: { type: string; org_id: string | null; payload: unknown }) => {
        sent.push(envelope);
      },
    };
    await sendWokenDeliveries(
      broker,
      'org_1',
      [
        { id: a1, jobId: jobA },
        { id: b1, jobId: jobB },
        { id: a2, jobId: jobA },
      ],
      true,
    );
    expect(sent.map(({ type, org_id: orgId, payload }) => ({ type, orgId, payload }))).toEqual([
      { type: 'publisher.delivery_run.v2', orgId: 'org_1', payload: { job_id: jobA, delivery_ids: [a1, a2] } },
      { type: 'publisher.delivery_run.v2', orgId: 'org_1', payload: { job_id: jobB, delivery_ids: [b1] } },
    ]);
    sent.length = 0;
    await sendWokenDeliveries(
      broker,
      'org_1',
      [
        { id: a1, jobId: jobA },
        { id: a2, jobId: jobA },
      ],
      false,
    );
    expect(sent.map(({ type, payload }) => ({ type, payload }))).toEqual([
      { type: 'publisher.delivery_run.v1', payload: { job_id: jobA, delivery_id: a1 } },
      { type: 'publisher.delivery_run.v1', payload: { job_id: jobA, delivery_id: a2 } },
    ]);
    await sendWokenDeliveries(
      { publishEnvelope: () => Promise.reject(new Error('nothing to send')) },
      'org_1',
      [],
      true,
    );
  });

  it('sends one v1 command per delivery when batches are off (DELIVERY_RUN_BATCHES=false)', () => {
    const jobId = randomUUID();
    const ids = Array.from({ length: 3 }, () => randomUUID());
    const commands = deliveryRunCommands(jobId, ids, noOrg, false);
    expect(commands.map((command) => [command.type, command.payload])).toEqual(
      ids.map((id) => ['publisher.delivery_run.v1', { job_id: jobId, delivery_id: id }]),
    );
  });

  it('refuses a command naming no delivery, more than 10, or one twice', () => {
    const schema = findMessage('publisher.delivery_run.v2');
    expect(schema).toBeDefined();
    const payload = (ids: string[]) => ({ job_id: randomUUID(), delivery_ids: ids });
    expect(() => createEnvelope(publisherDeliveryRunBatch, payload([]), noOrg)).toThrow();
    expect(() =>
      createEnvelope(publisherDeliveryRunBatch, payload(Array.from({ length: 11 }, () => randomUUID())), noOrg),
    ).toThrow();
    const twice = randomUUID();
    expect(() => createEnvelope(publisherDeliveryRunBatch, payload([twice, twice]), noOrg)).toThrow();
    expect(() => createEnvelope(publisherDeliveryRunBatch, payload(['not-a-uuid']), noOrg)).toThrow();
  });

  /** A runner whose runs end when the test says, recording how many ran at once. */
  function heldRunner(fail: Set<string> = new Set()) {
    const started: string[] = [];
    const releases: (() => void)[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const runner = {
      run: async (id: string) => {
        started.push(id);
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        if (fail.has(id)) throw new Error(`accounts unreachable for ${id}`);
      },
    } as unknown as DeliveryRunner;
    return {
      runner,
      started,
      releaseAll: () => releases.splice(0).forEach((release) => release()),
      mostAtOnce: () => mostAtOnce,
    };
  }

  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('runs each delivery of a command, no more at once than its concurrency across commands, and acknowledges when all have run', async () => {
    const held = heldRunner();
    const handlers = deliveryCommandHandlers({ runner: held.runner, concurrency: 4 });
    const ids = Array.from({ length: 10 }, () => randomUUID());
    const single = randomUUID();
    let done = false;
    const batch = handlers['publisher.delivery_run.v2'](
      createEnvelope(publisherDeliveryRunBatch, { job_id: randomUUID(), delivery_ids: ids }, noOrg),
      context,
    ).then(() => {
      done = true;
    });
    const one = handlers['publisher.delivery_run.v1'](
      createEnvelope(publisherDeliveryRun, { job_id: randomUUID(), delivery_id: single }, noOrg),
      context,
    );
    while (held.started.length < 11) {
      await settle();
      held.releaseAll();
    }
    await Promise.all([batch, one]);
    expect(done).toBe(true);
    expect([...held.started].sort()).toEqual([...ids, single].sort());
    expect(held.mostAtOnce()).toBe(4);
  });

  it('fails a command when one of its deliveries could not run, after the others ran, so it is retried whole', async () => {
    const ids = Array.from({ length: 3 }, () => randomUUID());
    const held = heldRunner(new Set([ids[1]!]));
    const handlers = deliveryCommandHandlers({ runner: held.runner, concurrency: 10 });
    const result = handlers['publisher.delivery_run.v2'](
      createEnvelope(publisherDeliveryRunBatch, { job_id: randomUUID(), delivery_ids: ids }, noOrg),
      context,
    );
    const outcome = result.then(
      () => 'acknowledged',
      (error: Error) => error.message,
    );
    await settle();
    expect(held.started).toEqual(ids);
    held.releaseAll();
    expect(await outcome).toBe(`accounts unreachable for ${ids[1]}`);
  });
});
