// The statement lives in data/outbox-at.ts; kept here for the delivery runner's import.
export { enqueueOutboxAfter } from '../data/outbox-at.ts';
