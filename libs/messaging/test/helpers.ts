import { randomBytes } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import { createLogger } from '@svc/logger';
import { Broker, type BrokerOptions } from '../src/index.ts';

export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** Every test file gets its own namespace: the broker has no management plugin, so no vhost per run. */
export function uniqueNamespace(label: string): string {
  return `t.${label}.${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

/** Integration tests fail (never skip) when the broker is not there, and say how to fix it. */
function unreachable(error: unknown): Error {
  return new Error(
    `RabbitMQ is not reachable (${error instanceof Error ? error.message : String(error)}): start RabbitMQ (rabbitmq-server -detached) before running the integration tests.`,
  );
}

export async function rawConnection(): Promise<ChannelModel> {
  try {
    return await connect(AMQP_URL);
  } catch (error) {
    throw unreachable(error);
  }
}

export async function connectBroker(
  namespace: string,
  service: string,
  overrides: Partial<BrokerOptions> = {},
): Promise<Broker> {
  const logger = createLogger({ service, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  try {
    return await Broker.connect({
      url: AMQP_URL,
      namespace,
      service,
      logger,
      reconnect: { initialDelayMs: 100, maxDelayMs: 1000 },
      ...overrides,
    });
  } catch (error) {
    throw unreachable(error);
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
