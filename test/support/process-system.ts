import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import {
  serviceQueues,
  TEST_AMQP_URL,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
  uniqueNamespace,
} from '@svc/testing';
import { signalServiceProcess, startServiceProcess, type ServiceProcess } from './service-process.ts';

/** The secrets each service must be given to start; tests read them back to check no log holds one. */
export const processSecrets = {
  JWT_SECRET: 'process-test-secret-of-at-least-32-chars!',
  API_KEY_PEPPER: 'process-test-pepper-of-at-least-32-chars!',
  VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  OAUTH_STATE_SECRET: 'process-test-state-secret-of-32-characters',
};

const serviceEnv: Record<string, Record<string, string>> = {
  gateway: { JWT_SECRET: processSecrets.JWT_SECRET, API_KEY_PEPPER: processSecrets.API_KEY_PEPPER },
  accounts: { VAULT_KEYS: processSecrets.VAULT_KEYS, OAUTH_STATE_SECRET: processSecrets.OAUTH_STATE_SECRET },
  'webhook-dispatcher': { VAULT_KEYS: processSecrets.VAULT_KEYS },
  dashboard: { VAULT_KEYS: processSecrets.VAULT_KEYS, DASHBOARD_PORT: '0' },
};

export interface RunningService extends ServiceProcess {
  database: string;
}

/**
 * Built services (dist/) as real processes, the way scripts/start and Kubernetes run them, on one
 * RabbitMQ namespace and each with its own database copied from its migrated template. `close`
 * stops them and deletes what they left: their queues (quorum queues outlive the processes) and
 * their databases.
 */
export class ProcessSystem {
  readonly services: RunningService[] = [];
  /** Every service asked for, started or not: one that failed half-way may have declared queues. */
  private readonly names = new Set<string>();
  private readonly runId: string;

  private constructor(
    readonly namespace: string,
    readonly broker: Broker,
    prefix: string,
  ) {
    this.runId = uniqueName(prefix);
  }

  /** Connects a test broker first, so that `close` deletes the queues even when a service fails to start. */
  static async open(prefix: string): Promise<ProcessSystem> {
    const namespace = uniqueNamespace(prefix);
    const broker = await Broker.connect({
      url: TEST_AMQP_URL,
      namespace,
      service: `${prefix}-test`,
      logger: createLogger({ service: `${prefix}-test`, level: 'silent' }),
    });
    return new ProcessSystem(namespace, broker, prefix);
  }

  async start(name: string, env: Record<string, string> = {}): Promise<RunningService> {
    const database = `${this.runId}_${name.replace(/-/g, '_')}`;
    this.names.add(name);
    const running = await startServiceProcess(name, {
      AMQP_URL: TEST_AMQP_URL,
      AMQP_NAMESPACE: this.namespace,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_NAME: database,
      REDIS_URL: TEST_REDIS_URL,
      SHUTDOWN_GRACE_MS: '10000',
      ...serviceEnv[name],
      ...env,
    });
    const service = { ...running, database };
    this.services.push(service);
    return service;
  }

  service(name: string): RunningService {
    const found = this.services.find((s) => s.name === name);
    if (found === undefined) throw new Error(`${name} was not started`);
    return found;
  }

  async close(): Promise<void> {
    await Promise.all(this.services.map((service) => signalServiceProcess(service, 'SIGTERM')));
    await this.broker.deleteTopology({ queues: serviceQueues([...this.names]) });
    await this.broker.close();
    await Promise.all(this.services.map((s) => dropDatabase(connectionConfig(TEST_DATABASE_URL, s.database))));
  }
}
