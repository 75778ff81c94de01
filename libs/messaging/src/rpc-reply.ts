import type { ErrorBody } from '@svc/errors';

/** The body of every RPC reply. */
export type RpcReply = { ok: true; result: unknown } | { ok: false; error: ErrorBody };

/** Absolute deadline of an RPC request (epoch ms): AMQP `expiration` alone says nothing once delivered. */
export const DEADLINE_HEADER = 'x-deadline';

export const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';
