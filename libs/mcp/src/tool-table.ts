/**
 * The MCP tools: each is one operation of the public API, named for agents, with a description that
 * says when to use it and annotations that tell a client which calls change nothing. The input
 * schemas are not here: they come from the served OpenAPI document (openapi-input.ts).
 */

/** MCP tool annotations (hints a client may use to decide what needs the user's confirmation). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolEntry {
  name: string;
  operationId: string;
  description: string;
  /**
   * Sentences added to the description when the derived input schema has the named field: the
   * description then never names a field the served API does not take.
   */
  fieldNotes?: Record<string, string>;
  annotations: ToolAnnotations;
}

const read = (title: string, openWorldHint = false): ToolAnnotations => ({
  title,
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint,
});

export const TOOL_TABLE: readonly ToolEntry[] = [
  {
    name: 'list_accounts',
    operationId: 'listAccounts',
    description:
      'List the social accounts connected to this organization (Instagram, Facebook, X, LinkedIn, TikTok), ' +
      'newest first, with their health. Use the `id` of an account as `account_ids` in create_post. ' +
      'Filter with `provider` or `q`; page with `cursor` set to the previous `next_cursor`.',
    annotations: read('List connected accounts'),
  },
  {
    name: 'get_account_capabilities',
    operationId: 'getAccountCapabilities',
    description:
      'What one connected account can publish: post types, maximum text length, media kinds with their ' +
      'types and sizes, and whether it takes threads, a first comment and alt text. Read it before ' +
      'writing a post for an account.',
    annotations: read('Get what an account can publish'),
  },
  {
    name: 'validate_post',
    operationId: 'validatePost',
    description:
      'Check a post exactly as create_post would, without creating anything: answers `valid` and every ' +
      'problem of every target account at once (`account_id`, `path`, `rule`, `message`). Call it ' +
      'before create_post and fix each problem it lists.',
    annotations: read('Validate a post without publishing'),
  },
  {
    name: 'create_post',
    operationId: 'createPost',
    description:
      'Create a post for one or more connected accounts. Without `scheduled_at` it is published now; ' +
      'with `scheduled_at` (ISO 8601 with a timezone, at least 60 s ahead) it is scheduled. The answer ' +
      'is the post with `status` queued or scheduled (or `draft` with `draft: true`: saved, checked, not sent); ' +
      'call get_post with its `id` to follow each ' +
      "account's result. Media: `media_urls` (public URLs) or `media_ids` from import_media. Call " +
      'validate_post first: it lists every problem at once.',
    fieldNotes: {
      draft: 'With `draft: true` the post is saved as a draft and sent later.',
      thread: 'For X, `thread` (2 to 25 parts) posts a thread instead of `text`.',
      first_comment: '`first_comment` is posted under the post once it is published.',
      queue: "With `queue: true` (and no `scheduled_at`) it is scheduled at the organization's next free queue time.",
      recurrence:
        'With `recurrence` ({freq: "weekly", days, time, timezone, until or count}) the post repeats; the answer is ' +
        'its first occurrence, carrying `recurrence_id`.',
    },
    annotations: {
      title: 'Create a post',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
  {
    name: 'cancel_post',
    operationId: 'cancelPost',
    description:
      'Cancel a scheduled post before it is sent. A post already queued, publishing or published cannot ' +
      'be canceled (the API answers 409 conflict).',
    annotations: {
      title: 'Cancel a scheduled post',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: 'get_post',
    operationId: 'getPost',
    description:
      "A post with its status and one result per target account: the network's post id and URL once " +
      'published, or the error code and message of a failure.',
    annotations: read('Get a post and its results'),
  },
  {
    name: 'search_posts',
    operationId: 'listPosts',
    description:
      'Search the posts of this organization, newest first: by text (`q`), `status` and `provider`. ' +
      'Page with `cursor` set to the previous `next_cursor`.',
    annotations: read('Search posts'),
  },
  {
    name: 'import_media',
    operationId: 'createMedia',
    description:
      'Import an image or video into the media library from a public URL (`url`). The type is read ' +
      'from the bytes; pass the `media_id` of the answer in `media_ids` to create_post.',
    annotations: {
      title: 'Import media from a URL',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
  {
    name: 'list_media',
    operationId: 'listMedia',
    description:
      'List the media library, newest first, with each file’s `media_id`, type, size, public URL and ' +
      'which networks accept it. Page with ' +
      '`cursor` set to the previous `next_cursor`.',
    annotations: read('List media'),
  },
  {
    name: 'get_analytics',
    operationId: 'listPostAnalytics',
    description:
      "Published posts' metrics as each network reports them, cached and refreshed when stale " +
      '(`refresh: true` reads them again). Filter by `postId` (our id or the network’s), `accountId`, ' +
      '`platform` and dates; page with `page` and `limit`.',
    annotations: read('Get post analytics', true),
  },
];
