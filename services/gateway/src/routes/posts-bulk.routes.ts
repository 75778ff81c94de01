import { BULK_MAX_POSTS, publisherJobBulkCreate, publisherJobBulkValidate, type PayloadOf } from '@svc/contracts';
import { validationError, type ErrorDetail } from '@svc/errors';
import { defineRoute, type Route, type RouteResult } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { idempotencyKeyOf, type IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { operations } from '../openapi/operations.ts';
import { parseBulkCsv, readBulkUpload } from './bulk-csv.ts';
import { jobPayload } from './publishing.routes.ts';

export interface BulkRouteOptions {
  /** BULK_BODY_LIMIT_BYTES: the CSV file's limit (the JSON body's is applied by the body parser). */
  limitBytes: number;
  /** BULK_RPC_TIMEOUT_MS: checking and storing up to 500 posts takes longer than one. */
  rpcTimeoutMs: number;
}

type Posts = PayloadOf<typeof publisherJobBulkCreate>['posts'];

/** The posts of a bulk, each with its row number, and the problems of rows that never made it to a post (CSV). */
interface Bulk {
  posts: Posts;
  rows: number[];
  problems: ErrorDetail[];
  dryRun: boolean;
}

const refusal = (problems: ErrorDetail[], rows: number) =>
  validationError(
    `${new Set(problems.map((problem) => problem.row)).size} of the ${rows} posts cannot be published as they stand; nothing was created.`,
    problems,
  );

/**
 * `POST /v1/posts/bulk` (docs/api-conventions.md, "Bulk"): a JSON body or a CSV upload becomes one
 * list of create bodies; the publisher checks every row and creates all or none. A dry run only
 * checks (no job, no idempotency record). Rows of a CSV that could not be read or do not fit the
 * schema are reported with the publisher's problems of the others, so one answer lists every row's.
 */
export function postsBulkRoutes(rpc: RpcCaller, idempotency: IdempotencyStore, options: BulkRouteOptions): Route[] {
  return [
    defineRoute(operations.createPostsBulk, async ({ body, principal, requestId, headers, stream }) => {
      const context = { orgId: principal.orgId, requestId, timeoutMs: options.rpcTimeoutMs };
      let bulk: Bulk;
      if (stream === undefined) {
        bulk = {
          posts: body.posts.map(jobPayload),
          rows: body.posts.map((_, index) => index + 1),
          problems: [],
          dryRun: body.dry_run === true,
        };
      } else {
        const upload = await readBulkUpload(stream, headers, options.limitBytes);
        const csv = parseBulkCsv(upload.csv, BULK_MAX_POSTS);
        bulk = {
          posts: csv.posts.map((post) => jobPayload(post.body)),
          rows: csv.posts.map((post) => post.row),
          problems: csv.problems,
          dryRun: upload.dryRun,
        };
      }
      const total = bulk.posts.length + new Set(bulk.problems.map((problem) => problem.row)).size;
      const checked = async (): Promise<ErrorDetail[]> => {
        if (bulk.posts.length === 0) return bulk.problems;
        const answer = await rpc(publisherJobBulkValidate, { posts: bulk.posts }, context);
        const problems = [
          ...bulk.problems,
          ...answer.problems.map((problem) => ({ ...problem, row: bulk.rows[problem.row - 1]! })),
        ];
        return problems.sort((a, b) => (a.row as number) - (b.row as number));
      };
      if (bulk.dryRun) {
        const problems = await checked();
        return { status: 200, body: { valid: problems.length === 0, problems } };
      }
      const key = idempotencyKeyOf(headers);
      const scope =
        key === undefined
          ? undefined
          : { orgId: principal.orgId, key, method: 'post', path: operations.createPostsBulk.path };
      // The key covers the posts as read, so a CSV and its JSON twin are one request.
      return idempotency.run(scope, { posts: bulk.posts, problems: bulk.problems }, async (operation) => {
        if (bulk.problems.length > 0) throw refusal(await checked(), total);
        const created = await rpc(
          publisherJobBulkCreate,
          { ...(operation === undefined ? {} : { operation_id: operation }), posts: bulk.posts },
          context,
        );
        return { status: 202, body: created } satisfies RouteResult;
      });
    }),
  ];
}
