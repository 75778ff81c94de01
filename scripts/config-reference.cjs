// Renders docs/configuration.md from every service's configuration schema (TypeBox, the same
// objects that validate the environment at start) and the doc comment above each setting in its
// source file, so the reference cannot drift from the code. Used by scripts/generate-config-docs.mjs
// (writes the file, after pnpm build) and test/docs/configuration.test.ts (fails when it differs).
const { readFileSync } = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');

/** The services, in the order the reference lists them, and the file declaring each one's schema. */
const SERVICES = [
  'gateway',
  'accounts',
  'publisher',
  'scheduler',
  'webhook-dispatcher',
  'analytics-sync',
  'billing',
  'dashboard',
  'sandbox',
];

/** Fragments services spread into their schemas: a section each, naming the services that read it. */
const FRAGMENTS = [
  { title: 'Every service', file: 'libs/config/src/common-schema.ts' },
  { title: 'Media library', file: 'libs/media/src/config.ts' },
  { title: 'Networks', file: 'libs/providers/src/config.ts' },
  { title: 'Plans', file: 'libs/config/src/plan-schema.ts' },
];

const serviceFile = (service) => `services/${service}/src/config.ts`;

/** Each `NAME: Type...` property of a file with the text of the doc comment right above it ('' when none). */
function declaredSettings(file) {
  const text = readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const settings = new Map();
  // A schema: the object given to `Type.Object(...)`, or one held by a `...Schema` constant (a fragment).
  const isSchema = (node) =>
    ts.isObjectLiteralExpression(node) &&
    ((ts.isCallExpression(node.parent) && node.parent.expression.getText(source) === 'Type.Object') ||
      (ts.isVariableDeclaration(node.parent) && /Schema$/.test(node.parent.name.getText(source))));
  const visit = (node) => {
    if (ts.isPropertyAssignment(node) && isSchema(node.parent) && /^[A-Z][A-Z0-9_]+$/.test(node.name.getText(source))) {
      const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
      const doc = comments.filter((range) => text.startsWith('/**', range.pos)).pop();
      settings.set(node.name.getText(source), doc === undefined ? '' : docText(text.slice(doc.pos, doc.end)));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return settings;
}

const docText = (comment) =>
  comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();

/** A schema's accepted values, in a few words. */
function valuesOf(schema) {
  if (schema.anyOf !== undefined && schema.anyOf.every((option) => option.const !== undefined))
    return schema.anyOf.map((option) => `\`${option.const}\``).join(', ');
  const bounds = [
    schema.minimum === undefined ? null : `>= ${schema.minimum}`,
    schema.maximum === undefined ? null : `<= ${schema.maximum}`,
  ]
    .filter(Boolean)
    .join(', ');
  switch (schema.type) {
    case 'integer':
      return bounds === '' ? 'integer' : `integer ${bounds}`;
    case 'number':
      return bounds === '' ? 'number' : `number ${bounds}`;
    case 'boolean':
      return '`true`, `false`';
    case 'string':
      if (schema.minLength !== undefined) return `string, ${schema.minLength}+ characters`;
      if (schema.pattern?.startsWith('^https?://')) return 'http(s) URL';
      return 'string';
    default:
      return 'see the meaning';
  }
}

const cell = (value) => String(value).replace(/\|/g, '\\|');

function defaultOf(schema, required) {
  if (schema.default !== undefined)
    return schema.default === '' ? '(empty)' : `\`${cell(JSON.stringify(schema.default).replace(/^"|"$/g, ''))}\``;
  return required ? '**required**' : 'unset';
}

function table(rows) {
  return [
    '| variable | default | values | meaning |',
    '| --- | --- | --- | --- |',
    ...rows.map((row) => `| \`${row.name}\` | ${row.default} | ${row.values} | ${cell(row.meaning)} |`),
  ].join('\n');
}

/**
 * The whole document. `schemas` maps each service to its schema object (a TypeBox `Type.Object`:
 * `properties`, `required`). Throws, naming them, when settings have no doc comment.
 */
function renderConfiguration(schemas) {
  const docs = new Map(
    [...FRAGMENTS.map((fragment) => fragment.file), ...SERVICES.map(serviceFile)].map((file) => [
      file,
      declaredSettings(file),
    ]),
  );
  const undocumented = [];
  const row = (service, name, file) => {
    const schema = schemas[service].properties[name];
    const meaning = docs.get(file).get(name);
    if (meaning === '') undocumented.push(`${name} (${file})`);
    return {
      name,
      default: defaultOf(schema, (schemas[service].required ?? []).includes(name)),
      values: valuesOf(schema),
      meaning,
    };
  };
  const originOf = (service, name) =>
    docs.get(serviceFile(service)).has(name)
      ? serviceFile(service)
      : FRAGMENTS.find((fragment) => docs.get(fragment.file).has(name))?.file;

  const sections = [];
  for (const fragment of FRAGMENTS) {
    const readers = SERVICES.filter((service) =>
      Object.keys(schemas[service].properties).some((name) => originOf(service, name) === fragment.file),
    );
    if (readers.length === 0) continue;
    const names = [...docs.get(fragment.file).keys()].filter(
      (name) => schemas[readers[0]].properties[name] !== undefined,
    );
    sections.push(
      `## ${fragment.title}\n\nRead by ${readers.map((service) => `\`${service}\``).join(', ')} (\`${fragment.file}\`).\n\n${table(names.map((name) => row(readers[0], name, fragment.file)))}`,
    );
  }
  for (const service of SERVICES) {
    const own = Object.keys(schemas[service].properties).filter(
      (name) => originOf(service, name) === serviceFile(service),
    );
    const shared = FRAGMENTS.filter((fragment) =>
      Object.keys(schemas[service].properties).some((name) => originOf(service, name) === fragment.file),
    ).map((fragment) => `"${fragment.title}"`);
    const also = shared.length === 0 ? '' : ` It also reads the sections ${shared.join(', ')}.`;
    sections.push(
      `## ${service}\n\n\`${serviceFile(service)}\`.${also}\n\n${table(own.map((name) => row(service, name, serviceFile(service))))}`,
    );
  }
  const unknown = SERVICES.flatMap((service) =>
    Object.keys(schemas[service].properties)
      .filter((name) => originOf(service, name) === undefined)
      .map((name) => `${name} (${service})`),
  );
  if (unknown.length > 0)
    throw new Error(`settings declared outside the files the reference reads: ${unknown.join(', ')}`);
  if (undocumented.length > 0)
    throw new Error(`settings without a doc comment (/** ... */ above the property): ${undocumented.join(', ')}`);

  return [
    '# Configuration',
    '',
    "<!-- Generated by `node scripts/generate-config-docs.mjs` (after `pnpm build`) from the services' config schemas; a test fails when this file and the code disagree. -->",
    '',
    "Every setting is an environment variable, read once when a process starts and validated against its service's",
    'schema: a missing or malformed value stops the process with one list of every problem. With `NODE_ENV=production`',
    'a service also refuses secrets it needs that are unset, too short or known placeholders, and development-only',
    'switches such as `ALLOW_PRIVATE_URLS` (docs/security.md). The defaults work on a local machine; `scripts/start`',
    'sets development values for the secrets. "required" means the process does not start without it.',
    '',
    sections.join('\n\n'),
    '',
  ].join('\n');
}

module.exports = { renderConfiguration, SERVICES };
