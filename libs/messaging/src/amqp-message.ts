import type { Message, MessagePropertyHeaders, Options } from 'amqplib';
import type { Envelope } from '@svc/contracts';
import { AppError, isAppError } from '@svc/errors';

export const RETRY_COUNT_HEADER = 'x-retry-count';

/** Envelope fields mirrored into AMQP properties so tools and the management UI can read them. */
export function envelopeProperties(envelope: Envelope): Options.Publish {
  const headers: Record<string, string> = {};
  if (envelope.request_id !== null) headers['x-request-id'] = envelope.request_id;
  if (envelope.org_id !== null) headers['x-org-id'] = envelope.org_id;
  return {
    messageId: envelope.message_id,
    type: envelope.type,
    // AMQP timestamps are whole seconds.
    timestamp: Math.floor(Date.parse(envelope.occurred_at) / 1000),
    contentType: 'application/json',
    persistent: true,
    headers,
  };
}

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

export function decodeJson(content: Buffer): unknown {
  try {
    return JSON.parse(content.toString('utf8')) as unknown;
  } catch (error) {
    throw new AppError('validation_error', 'The message body is not valid JSON.', { cause: error });
  }
}

export function retryCountOf(message: Message): number {
  const value: unknown = message.properties.headers?.[RETRY_COUNT_HEADER];
  const count = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(count) && count > 0 ? count : 0;
}

// Broker-added dead-letter bookkeeping must not travel with a copy: a copy carrying x-death through the
// same queues again can be dropped by RabbitMQ's dead-letter cycle detection.
const BROKER_HEADERS = [
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
  'x-delivery-count',
  'x-publish-id',
];

/** Publish options for a copy of a delivered message (retry, parking, requeue), keeping its identity. */
export function copyProperties(message: Message, headers: Record<string, unknown>): Options.Publish {
  const merged: Record<string, unknown> = { ...message.properties.headers, ...headers };
  const kept: MessagePropertyHeaders = Object.fromEntries(
    Object.entries(merged).filter(([name, value]) => value !== undefined && !BROKER_HEADERS.includes(name)),
  );
  const { messageId, type, timestamp, contentType, correlationId } = message.properties as unknown as Record<
    string,
    unknown
  >;
  const options: Options.Publish = { persistent: true, headers: kept };
  if (typeof messageId === 'string') options.messageId = messageId;
  if (typeof type === 'string') options.type = type;
  if (typeof timestamp === 'number') options.timestamp = timestamp;
  if (typeof contentType === 'string') options.contentType = contentType;
  if (typeof correlationId === 'string') options.correlationId = correlationId;
  return options;
}

/**
 * What a parked message says about its last failure. Only AppError messages are written: any other
 * error's text may hold secrets (connection strings, tokens), and the full error is in the logs.
 */
export function errorSummary(error: unknown): string {
  if (isAppError(error)) return `${error.code}: ${error.message}`.slice(0, 500);
  return `${error instanceof Error ? error.name : typeof error} (see logs for the message id)`;
}

/**
 * Selects the delay tier on the retry headers exchange. No `x-` prefix on purpose: headers exchanges
 * ignore `x-` binding arguments when matching, so such a binding would match every tier.
 */
export const RETRY_TIER_HEADER = 'retry-tier';
