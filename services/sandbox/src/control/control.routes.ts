import { Router, json } from 'express';
import { commentsOf } from '../comments/comment-records.ts';
import { armScopedFault, FAULT_SCOPES, pendingScopedFaults, type FaultScope } from '../http/scoped-faults.ts';
import { type SandboxState } from '../state/sandbox-state.ts';
import {
  FAULT_KINDS,
  NETWORKS,
  OUTCOME_FAULT_KINDS,
  type FaultKind,
  type NetworkName,
  type OutcomeFaultKind,
} from '../state/types.ts';

const isNetwork = (value: unknown): value is NetworkName => NETWORKS.includes(value as NetworkName);
const isFault = (value: unknown): value is FaultKind => FAULT_KINDS.includes(value as FaultKind);
const isOutcomeFault = (value: unknown): value is OutcomeFaultKind =>
  OUTCOME_FAULT_KINDS.includes(value as OutcomeFaultKind);

function badRequest(message: string) {
  return { error: { code: 'validation_error', message } };
}

const isScope = (value: unknown): value is FaultScope => FAULT_SCOPES.includes(value as FaultScope);

const pendingFaults = (state: SandboxState) => [
  ...state.faults.pending(),
  ...state.outcomeFaults.pending(),
  ...pendingScopedFaults(state),
];

/**
 * The control API (docs/api-conventions.md, "The network sandbox"), mounted at `/__sandbox`; never part of a
 * real network.
 */
export function controlRouter(state: SandboxState): Router {
  const router = Router();
  router.use(json());

  router.post('/reset', (_req, res) => {
    state.reset();
    res.status(204).end();
  });

  router.post('/faults', (req, res) => {
    const body = (req.body ?? {}) as {
      network?: unknown;
      fault?: unknown;
      count?: unknown;
      retry_after_seconds?: unknown;
      delay_seconds?: unknown;
      on?: unknown;
      after?: unknown;
    };
    if (!isNetwork(body.network))
      return void res.status(400).json(badRequest(`network must be one of ${NETWORKS.join(', ')}.`));
    if (!isFault(body.fault) && !isOutcomeFault(body.fault)) {
      return void res
        .status(400)
        .json(badRequest(`fault must be one of ${[...FAULT_KINDS, ...OUTCOME_FAULT_KINDS].join(', ')}.`));
    }
    const count = body.count === undefined ? 1 : Number(body.count);
    if (!Number.isInteger(count) || count < 1)
      return void res.status(400).json(badRequest('count must be a positive integer.'));
    if (body.on !== undefined && !isScope(body.on))
      return void res.status(400).json(badRequest(`on must be one of ${FAULT_SCOPES.join(', ')}.`));
    const after = body.after === undefined ? 0 : Number(body.after);
    if (!Number.isInteger(after) || after < 0)
      return void res.status(400).json(badRequest('after must be a non-negative integer.'));
    if (after > 0 && body.on === undefined)
      return void res.status(400).json(badRequest('after applies to a fault armed for one kind of call (on).'));
    if (isScope(body.on)) {
      const outcome = isOutcomeFault(body.fault);
      const seconds = Number(outcome ? (body.delay_seconds ?? 30) : (body.retry_after_seconds ?? 60));
      if (!Number.isFinite(seconds) || seconds < 0)
        return void res
          .status(400)
          .json(badRequest(`${outcome ? 'delay_seconds' : 'retry_after_seconds'} must be a non-negative number.`));
      armScopedFault(state, { network: body.network, scope: body.on, fault: body.fault, count, after, seconds });
      return void res.status(201).json({
        network: body.network,
        fault: body.fault,
        count,
        on: body.on,
        after,
        pending: pendingFaults(state),
      });
    }
    if (isOutcomeFault(body.fault)) {
      const delay = body.delay_seconds === undefined ? 30 : Number(body.delay_seconds);
      if (!Number.isFinite(delay) || delay < 0)
        return void res.status(400).json(badRequest('delay_seconds must be a non-negative number.'));
      state.outcomeFaults.push(body.network, body.fault, count, delay);
      return void res
        .status(201)
        .json({ network: body.network, fault: body.fault, count, pending: pendingFaults(state) });
    }
    const retryAfter = body.retry_after_seconds === undefined ? 60 : Number(body.retry_after_seconds);
    if (!Number.isFinite(retryAfter) || retryAfter < 0)
      return void res.status(400).json(badRequest('retry_after_seconds must be a non-negative number.'));
    state.faults.push(body.network, body.fault, count, retryAfter);
    res.status(201).json({ network: body.network, fault: body.fault, count, pending: pendingFaults(state) });
  });

  router.get('/faults', (_req, res) => {
    res.json({ pending: pendingFaults(state) });
  });

  /** The network's create latency: every later call that creates a post answers `create_ms` late (0 removes it). */
  router.put('/latency', (req, res) => {
    const body = (req.body ?? {}) as { network?: unknown; create_ms?: unknown };
    if (!isNetwork(body.network))
      return void res.status(400).json(badRequest(`network must be one of ${NETWORKS.join(', ')}.`));
    const createMs = body.create_ms;
    if (typeof createMs !== 'number' || !Number.isInteger(createMs) || createMs < 0 || createMs > 60_000) {
      return void res.status(400).json(badRequest('create_ms must be an integer from 0 to 60000.'));
    }
    if (createMs === 0) state.createLatencyMs.delete(body.network);
    else state.createLatencyMs.set(body.network, createMs);
    res.json({
      latency: Object.fromEntries([...state.createLatencyMs].map(([network, ms]) => [network, { create_ms: ms }])),
    });
  });

  router.get('/posts', (req, res) => {
    const network = req.query.network;
    if (network !== undefined && !isNetwork(network))
      return void res.status(400).json(badRequest(`network must be one of ${NETWORKS.join(', ')}.`));
    res.json({ posts: state.postsOf(network) });
  });

  router.get('/comments', (req, res) => {
    const network = req.query.network;
    if (network !== undefined && !isNetwork(network))
      return void res.status(400).json(badRequest(`network must be one of ${NETWORKS.join(', ')}.`));
    res.json({ comments: commentsOf(state, network) });
  });

  router.post('/metrics', (req, res) => {
    const body = (req.body ?? {}) as { network?: unknown; post_id?: unknown; metrics?: unknown };
    if (!isNetwork(body.network))
      return void res.status(400).json(badRequest(`network must be one of ${NETWORKS.join(', ')}.`));
    if (typeof body.post_id !== 'string' || body.post_id === '')
      return void res.status(400).json(badRequest('post_id must be a non-empty string.'));
    const metrics = body.metrics;
    const valid =
      typeof metrics === 'object' &&
      metrics !== null &&
      Object.values(metrics).every(
        (value) =>
          typeof value === 'number' ||
          (typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'number')),
      );
    if (!valid)
      return void res
        .status(400)
        .json(badRequest('metrics must be an object of numbers (or, for reactions by type, objects of numbers).'));
    state.setMetrics(body.network, body.post_id, metrics as Record<string, number | Record<string, number>>);
    res.status(204).end();
  });

  return router;
}
