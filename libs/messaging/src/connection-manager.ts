import { connect, type ChannelModel } from 'amqplib';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { backoffDelay } from './backoff.ts';
import { redactUrl } from './names.ts';

export interface ConnectionManagerOptions {
  url: string;
  service: string;
  heartbeatSec: number;
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  logger: Logger;
  /** Runs on every (re)connection before it is reported ready: topology, channels, consumers. */
  setup: (model: ChannelModel, generation: number) => Promise<void>;
  onReconnect: () => void;
}

interface Waiter {
  resolve: (model: ChannelModel) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * amqplib does not reconnect by itself. Both 'error' and 'close' fire when the broker goes away;
 * only 'close' triggers a reconnect, once per connection, or two reconnects race and the loser acks
 * on a dead channel (docs/reliability.md, "Broker facts behind these rules").
 */
export class ConnectionManager {
  private model: ChannelModel | undefined;
  private ready = false;
  private closing = false;
  private currentGeneration = 0;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly options: ConnectionManagerOptions;

  constructor(options: ConnectionManagerOptions) {
    this.options = options;
  }

  get generation(): number {
    return this.currentGeneration;
  }

  isReady(): boolean {
    return this.ready && !this.closing;
  }

  /** The first connection fails fast: a service that cannot reach its broker at boot should not start. */
  async start(): Promise<void> {
    await this.open();
  }

  /** The live connection, if it is ready now. */
  current(): ChannelModel | undefined {
    return this.isReady() ? this.model : undefined;
  }

  /** The live connection, waiting up to `timeoutMs` for a reconnect in progress. */
  whenReady(timeoutMs: number): Promise<ChannelModel> {
    if (this.closing) return Promise.reject(new Error('The broker connection is closed.'));
    if (this.ready && this.model) return Promise.resolve(this.model);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(
            new AppError('service_unavailable', `RabbitMQ has been unreachable for ${timeoutMs} ms.`, {
              retryable: true,
            }),
          );
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Tests only: kills the socket as a network failure would, without a clean AMQP close. */
  destroySocket(): void {
    const connection = this.model?.connection as unknown as { stream?: { destroy(error?: Error): void } } | undefined;
    // With an error, amqplib sees the socket fail at once; a bare destroy() is only noticed by heartbeats.
    connection?.stream?.destroy(new Error('Connection dropped on purpose (test).'));
  }

  async close(beforeClose: () => Promise<void>): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('The broker connection is closed.'));
    }
    this.waiters.clear();
    const model = this.model;
    if (!model) return;
    await beforeClose();
    this.ready = false;
    this.model = undefined;
    await model
      .close()
      .catch((error: unknown) => this.options.logger.debug({ err: error }, 'closing a dead connection failed'));
  }

  /** False when the connection died during setup; its 'close' handler has then scheduled a reconnect. */
  private async open(): Promise<boolean> {
    const { url, heartbeatSec, service, logger } = this.options;
    let model: ChannelModel;
    try {
      // noDelay: a message is a method, a header and a body frame written separately; with Nagle on,
      // the body of any reply past one small segment waited for the broker's delayed ACK (~40 ms per
      // RPC: a 100-row analytics page took 52 ms of which the handler used 4).
      model = await connect(withHeartbeat(url, heartbeatSec), {
        timeout: 10000,
        noDelay: true,
        clientProperties: { connection_name: service },
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Cannot connect to RabbitMQ at ${redactUrl(url)}: ${reason}`, { cause: error });
    }
    model.on('error', (error: Error) => logger.warn({ err: error }, 'RabbitMQ connection error'));
    model.on('blocked', (reason: string) => logger.warn({ reason }, 'RabbitMQ blocked publishing (resource alarm)'));
    model.on('unblocked', () => logger.info('RabbitMQ unblocked publishing'));
    model.once('close', () => this.onClose(model));
    this.model = model;
    const generation = ++this.currentGeneration;
    try {
      await this.options.setup(model, generation);
    } catch (error) {
      if (this.model === model) {
        this.model = undefined;
        await model.close().catch(() => undefined);
      }
      throw error;
    }
    if (this.closing && this.model === model) {
      // close() ran while this connection was being set up: nobody else will close it.
      this.model = undefined;
      await model.close().catch(() => undefined);
    }
    if (this.model !== model || this.closing) return false;
    this.ready = true;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(model);
    }
    this.waiters.clear();
    return true;
  }

  private onClose(model: ChannelModel): void {
    if (this.model !== model) return;
    this.model = undefined;
    this.ready = false;
    if (this.closing) return;
    this.options.logger.warn('RabbitMQ connection lost; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const { initialDelayMs, maxDelayMs } = this.options.reconnect;
    // Both a close during setup and the failed setup itself ask for a reconnect: keep only one pending.
    if (this.reconnectTimer || this.closing) return;
    const delay = backoffDelay(this.failures, initialDelayMs, maxDelayMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.reconnect();
    }, delay);
  }

  private async reconnect(): Promise<void> {
    if (this.closing) return;
    try {
      if (!(await this.open())) return;
      this.failures = 0;
      this.options.logger.info('RabbitMQ connection restored');
      this.options.onReconnect();
    } catch (error) {
      this.failures += 1;
      this.options.logger.warn({ err: error, failures: this.failures }, 'RabbitMQ reconnect failed');
      if (!this.model) this.scheduleReconnect();
    }
  }
}

/** amqplib reads the heartbeat from the URL; an explicit `?heartbeat=` in the configured URL wins. */
function withHeartbeat(url: string, heartbeatSec: number): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', String(heartbeatSec));
    return parsed.toString();
  } catch {
    return url;
  }
}
