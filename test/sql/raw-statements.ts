// Finds every raw SQL statement of the services' and libraries' sources with the TypeScript
// compiler API, and resolves its text where the code fixes it: string literals, templates and `+`
// whose parts are constants of the same module (or imported from a relative module), recursively,
// helpers that return one expression (bound to their constant arguments), and both branches of `?:`.
// Used by statements.int.test.ts (each text is prepared against the migrated database) and
// no-sql-in-domain.test.ts (domain/ holds none).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '../..');

/** Methods whose first argument is a SQL text (Prisma's and libs/db's RawSql, pg's clients and pools). */
const SQL_METHODS = new Set(['$queryRawUnsafe', '$executeRawUnsafe', 'query']);
/** Prisma's tagged templates: the substitutions become parameters. */
const SQL_TAGS = new Set(['$queryRaw', '$executeRaw']);

export interface RawStatement {
  /** Relative to the repository, with forward slashes. */
  file: string;
  line: number;
  /** `service:<name>` or `lib:<name>`. */
  owner: string;
  /** How it is called: `$queryRawUnsafe`, `query`, `deleteInBatches`... */
  via: string;
  /** The source of the SQL argument, whitespace collapsed: what the allowlist names. */
  source: string;
  /** The statement's texts (several when a `?:` picks one), or undefined when only run time fixes it. */
  texts?: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [full]
      : [];
  });
}

/** Every services/<name>/src and libs/<name>/src file, tests and generated code excluded. */
export function rawSqlSourceFiles(): string[] {
  return ['services', 'libs'].flatMap((top) =>
    readdirSync(path.join(ROOT, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        const src = path.join(ROOT, top, entry.name, 'src');
        try {
          return sourceFiles(src);
        } catch {
          return [];
        }
      }),
  );
}

const parsed = new Map<string, ts.SourceFile>();
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (source === undefined) {
    source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    parsed.set(file, source);
  }
  return source;
}

/** The initializer of a `const name = ...` declared anywhere in the module (only when the name is declared once). */
function constInitializer(source: ts.SourceFile, name: string): ts.Expression | undefined {
  const found: ts.VariableDeclaration[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name) found.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  const [declaration] = found;
  if (declaration === undefined || found.length !== 1) return undefined;
  const isConst =
    ts.isVariableDeclarationList(declaration.parent) && (declaration.parent.flags & ts.NodeFlags.Const) !== 0;
  return isConst ? declaration.initializer : undefined;
}

/** A constant imported from a relative module: `import { NAME } from './x.ts'`. */
function importedInitializer(
  source: ts.SourceFile,
  name: string,
): { source: ts.SourceFile; expression: ts.Expression } | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings === undefined || !ts.isNamedImports(bindings)) continue;
    const element = bindings.elements.find((candidate) => candidate.name.text === name);
    if (element === undefined || !statement.moduleSpecifier.text.startsWith('.')) continue;
    const target = path.resolve(path.dirname(source.fileName), statement.moduleSpecifier.text);
    const other = parse(target.endsWith('.ts') ? target : `${target}.ts`);
    const expression = constInitializer(other, (element.propertyName ?? element.name).text);
    return expression === undefined ? undefined : { source: other, expression };
  }
  return undefined;
}

/** Names a helper's parameters are bound to while its body is resolved. */
type Bindings = ReadonlyMap<string, string[]>;

/** At most this many variants of one statement (each branch of a `?:` is one). */
const VARIANTS_MAX = 16;

function product(parts: string[][]): string[] | undefined {
  let texts = [''];
  for (const part of parts) {
    texts = texts.flatMap((prefix) => part.map((suffix) => prefix + suffix));
    if (texts.length > VARIANTS_MAX) return undefined;
  }
  return texts;
}

/** A function of the module (or imported) that returns one expression: `const f = (a) => ...` or `function f(a) { return ...; }`. */
function helper(
  source: ts.SourceFile,
  name: string,
): { source: ts.SourceFile; parameters: readonly ts.ParameterDeclaration[]; body: ts.Expression } | undefined {
  const declared = (in_: ts.SourceFile) => {
    const fn = in_.statements.find(
      (statement): statement is ts.FunctionDeclaration =>
        ts.isFunctionDeclaration(statement) && statement.name?.text === name,
    );
    const only = fn?.body?.statements.length === 1 ? fn.body.statements[0] : undefined;
    return fn !== undefined && only !== undefined && ts.isReturnStatement(only) && only.expression !== undefined
      ? { source: in_, parameters: fn.parameters, body: only.expression }
      : undefined;
  };
  const local = constInitializer(source, name);
  const found = local !== undefined ? { source, expression: local } : importedInitializer(source, name);
  if (found !== undefined && ts.isArrowFunction(found.expression) && !ts.isBlock(found.expression.body)) {
    return { source: found.source, parameters: found.expression.parameters, body: found.expression.body };
  }
  return declared(source) ?? importedFunction(source, name, declared);
}

function importedFunction<T>(
  source: ts.SourceFile,
  name: string,
  lookup: (in_: ts.SourceFile) => T | undefined,
): T | undefined {
  for (const statement of source.statements) {
    if (
      !ts.isImportDeclaration(statement) ||
      !ts.isStringLiteral(statement.moduleSpecifier) ||
      !statement.moduleSpecifier.text.startsWith('.')
    )
      continue;
    const bindings = statement.importClause?.namedBindings;
    if (
      bindings === undefined ||
      !ts.isNamedImports(bindings) ||
      !bindings.elements.some((element) => element.name.text === name && element.propertyName === undefined)
    )
      continue;
    const target = path.resolve(path.dirname(source.fileName), statement.moduleSpecifier.text);
    return lookup(parse(target.endsWith('.ts') ? target : `${target}.ts`));
  }
  return undefined;
}

/**
 * The texts an expression can have: one for a constant, one per branch of a `?:` whose branches are
 * constants; undefined when the text depends on run time.
 */
export function constantTexts(
  expression: ts.Expression,
  source: ts.SourceFile,
  bindings: Bindings = new Map(),
  depth = 0,
): string[] | undefined {
  if (depth > 20) return undefined;
  const next = (inner: ts.Expression, in_: ts.SourceFile = source, bound: Bindings = bindings) =>
    constantTexts(inner, in_, bound, depth + 1);
  if (
    ts.isStringLiteral(expression) ||
    ts.isNoSubstitutionTemplateLiteral(expression) ||
    ts.isNumericLiteral(expression)
  )
    return [expression.text];
  if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression))
    return next(expression.expression);
  if (expression.kind === ts.SyntaxKind.TrueKeyword) return ['true'];
  if (expression.kind === ts.SyntaxKind.FalseKeyword) return ['false'];
  if (ts.isConditionalExpression(expression)) {
    // A condition on a helper's boolean parameter picks its branch; any other keeps both.
    const condition = ts.isIdentifier(expression.condition) ? bindings.get(expression.condition.text) : undefined;
    if (condition?.length === 1 && (condition[0] === 'true' || condition[0] === 'false'))
      return next(condition[0] === 'true' ? expression.whenTrue : expression.whenFalse);
    const whenTrue = next(expression.whenTrue);
    const whenFalse = next(expression.whenFalse);
    return whenTrue === undefined || whenFalse === undefined ? undefined : [...whenTrue, ...whenFalse];
  }
  if (ts.isTemplateExpression(expression)) {
    const parts: string[][] = [[expression.head.text]];
    for (const span of expression.templateSpans) {
      const part = next(span.expression);
      if (part === undefined) return undefined;
      parts.push(part, [span.literal.text]);
    }
    return product(parts);
  }
  if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = next(expression.left);
    const right = next(expression.right);
    return left === undefined || right === undefined ? undefined : product([left, right]);
  }
  if (ts.isIdentifier(expression)) {
    const bound = bindings.get(expression.text);
    if (bound !== undefined) return bound;
    const local = constInitializer(source, expression.text);
    if (local !== undefined) return next(local, source, new Map());
    const imported = importedInitializer(source, expression.text);
    return imported === undefined ? undefined : next(imported.expression, imported.source, new Map());
  }
  if (ts.isCallExpression(expression) && ts.isIdentifier(expression.expression)) {
    const found = helper(source, expression.expression.text);
    if (found === undefined || found.parameters.length !== expression.arguments.length) return undefined;
    const bound = new Map<string, string[]>();
    for (const [i, parameter] of found.parameters.entries()) {
      const argument = expression.arguments[i];
      const value = argument === undefined ? undefined : next(argument);
      if (value === undefined || !ts.isIdentifier(parameter.name)) return undefined;
      bound.set(parameter.name.text, value);
    }
    return next(found.body, found.source, bound);
  }
  return undefined;
}

function ownerOf(file: string): string {
  const [top, name] = file.split('/');
  return `${top === 'services' ? 'service' : 'lib'}:${name}`;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `deleteInBatches(db, { table, where, params, batchSize })` builds its DELETE as libs/db/src/delete-in-batches.ts does. */
function deleteInBatchesTexts(options: ts.Expression, source: ts.SourceFile): string[] | undefined {
  if (!ts.isObjectLiteralExpression(options)) return undefined;
  const property = (name: string) => {
    const found = options.properties.find(
      (candidate) => candidate.name !== undefined && ts.isIdentifier(candidate.name) && candidate.name.text === name,
    );
    if (found === undefined) return undefined;
    if (ts.isPropertyAssignment(found)) return found.initializer;
    if (ts.isShorthandPropertyAssignment(found)) return found.name;
    return undefined;
  };
  const table = property('table');
  const where = property('where');
  const params = property('params');
  if (table === undefined || where === undefined || params === undefined || !ts.isArrayLiteralExpression(params))
    return undefined;
  const tables = constantTexts(table, source);
  const wheres = constantTexts(where, source);
  if (tables?.length !== 1 || wheres?.length !== 1) return undefined;
  const [tableText, whereText] = [tables[0], wheres[0]];
  return [
    `DELETE FROM ${tableText} WHERE ctid IN (
       SELECT ctid FROM ${tableText} WHERE ${whereText} LIMIT $${params.elements.length + 1} FOR UPDATE SKIP LOCKED)`,
  ];
}

/** Every raw statement of one file. */
export function statementsOf(absolute: string): RawStatement[] {
  const source = parse(absolute);
  const file = path.relative(ROOT, absolute).split(path.sep).join('/');
  const found: RawStatement[] = [];
  const add = (node: ts.Node, via: string, sql: ts.Node, texts: string[] | undefined) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ file, line, owner: ownerOf(file), via, source: collapse(sql.getText(source)), texts });
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const method = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : undefined;
      const [first, second] = node.arguments;
      if (
        method !== undefined &&
        ts.isPropertyAccessExpression(callee) &&
        SQL_METHODS.has(method) &&
        first !== undefined
      ) {
        add(node, method, first, constantTexts(first, source));
      } else if (method === 'deleteInBatches' && second !== undefined) {
        add(node, method, second, deleteInBatchesTexts(second, source));
      }
    }
    if (
      ts.isTaggedTemplateExpression(node) &&
      ts.isPropertyAccessExpression(node.tag) &&
      SQL_TAGS.has(node.tag.name.text)
    ) {
      const template = node.template;
      const text = ts.isNoSubstitutionTemplateLiteral(template)
        ? template.text
        : template.head.text + template.templateSpans.map((span, i) => `$${i + 1}${span.literal.text}`).join('');
      add(node, node.tag.name.text, template, [text]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function findRawStatements(): RawStatement[] {
  return rawSqlSourceFiles().flatMap(statementsOf);
}

export interface AllowedStatement {
  file: string;
  /** RawStatement.source: the SQL argument's code, whitespace collapsed. */
  source: string;
  reason: string;
}

export function readAllowlist(): AllowedStatement[] {
  return JSON.parse(readFileSync(path.join(__dirname, 'unresolved-statements.json'), 'utf8')) as AllowedStatement[];
}

/** Whether PREPARE takes the statement (it takes SELECT, INSERT, UPDATE, DELETE, MERGE, VALUES, and WITH before one). */
export function preparable(text: string): boolean {
  const first =
    text
      .replace(/^(\s|--[^\n]*\n)+/, '')
      .split(/[\s(]/, 1)[0]
      ?.toUpperCase() ?? '';
  return ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'VALUES', 'WITH', 'TABLE'].includes(first);
}

/** SQLSTATEs that say nothing about the schema: a parameter whose type the statement alone does not fix. */
const NOT_SCHEMA = new Set(['42P18', '42P08']);

/** Transaction control: nothing in the schema to check. */
const TRANSACTION_CONTROL = /^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)\b/i;

export interface CheckFailure {
  statement: RawStatement;
  database: string;
  /** Which of the statement's texts, when a `?:` gives it several. */
  variant?: string;
  code: string;
  message: string;
}

interface Queryable {
  query(text: string): Promise<unknown>;
}

let prepared = 0;

/**
 * Checks one text against one database: PREPARE (parsed, analysed against the catalog, not run),
 * then DEALLOCATE; a statement PREPARE does not take (SET, LISTEN...) runs in a transaction rolled
 * back. Returns PostgreSQL's error, or undefined when the schema fits.
 */
export async function checkText(
  client: Queryable,
  text: string,
): Promise<{ code: string; message: string } | undefined> {
  if (TRANSACTION_CONTROL.test(text.trim())) return undefined;
  const name = `sql_check_${process.pid}_${++prepared}`;
  try {
    if (preparable(text)) {
      await client.query(`PREPARE ${name} AS ${text}`);
      await client.query(`DEALLOCATE ${name}`);
    } else {
      await client.query('BEGIN');
      try {
        await client.query(text);
      } finally {
        await client.query('ROLLBACK');
      }
    }
    return undefined;
  } catch (error) {
    const { code, message, position } = error as { code?: string; message: string; position?: string };
    if (code !== undefined && NOT_SCHEMA.has(code)) return undefined;
    // PREPARE's position counts from the start of `PREPARE name AS `.
    const at =
      position === undefined
        ? ''
        : ` near "${excerpt(text, Number(position) - (preparable(text) ? `PREPARE ${name} AS `.length : 0))}"`;
    return { code: code ?? 'unknown', message: `${message}${at}` };
  }
}

function excerpt(text: string, position: number): string {
  return text
    .slice(Math.max(0, position - 1), position + 40)
    .replace(/\s+/g, ' ')
    .trim();
}

export function describeFailure(failure: CheckFailure): string {
  const { statement } = failure;
  return `${statement.file}:${statement.line} (${statement.via}${failure.variant === undefined ? '' : `, text ${failure.variant}`}) on ${failure.database}: ${failure.code} ${failure.message}`;
}

/** Upper-case SQL in a string or template: a statement's start followed by its clause. */
const SQL_TEXT = /\b(SELECT|UPDATE|DELETE FROM|INSERT INTO|WITH)\b[\s\S]*\b(FROM|SET|VALUES|WHERE|AS)\b/;

/** Strings and templates of a file that read as SQL (with their line), whether or not a raw call takes them here. */
export function sqlTextsOf(absolute: string): { line: number; text: string }[] {
  const source = parse(absolute);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) {
      if (SQL_TEXT.test(node.text))
        found.push({
          line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
          text: collapse(node.text).slice(0, 60),
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
