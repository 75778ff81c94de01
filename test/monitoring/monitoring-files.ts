// What deploy/monitoring/ declares, read for the tests: the alert rules, their promtool unit tests,
// the Grafana dashboard, and the metric names their PromQL expressions use.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const root = path.resolve(__dirname, '../..');
export const monitoringDir = path.join(root, 'deploy/monitoring');
export const rulesFile = path.join(monitoringDir, 'rules.yml');
export const dashboardFile = path.join(monitoringDir, 'grafana/social-publishing.json');

export interface AlertRule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const { groups } = parse(readFileSync(rulesFile, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return groups.flatMap((group) => group.rules);
}

export function ruleTestFiles(): string[] {
  const dir = path.join(monitoringDir, 'tests');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.test.yaml'))
    .map((name) => path.join(dir, name));
}

/** Alert names a promtool unit test expects to fire (a non-empty exp_alerts). */
export function alertsTestedFiring(): Set<string> {
  const tested = new Set<string>();
  for (const file of ruleTestFiles()) {
    const spec = parse(readFileSync(file, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    for (const test of spec.tests)
      for (const check of test.alert_rule_test ?? [])
        if ((check.exp_alerts ?? []).length > 0) tested.add(check.alertname);
  }
  return tested;
}

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

/** Every PromQL expression of the dashboard: its panels' targets and its query variables. */
export function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(dashboardFile, 'utf8')) as {
    panels: Panel[];
    templating: { list: { type: string; query: string }[] };
  };
  const panels = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const variables = dashboard.templating.list
    .filter((variable) => variable.type === 'query')
    // Grafana's label_values(metric, label) names a metric; its second argument is a label.
    .map((variable) => variable.query.replace(/^label_values\(\s*([^,]+),[^)]*\)$/, '$1'));
  return [...panels, ...variables];
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads. Strings, label matchers, ranges and the label lists of
 * `by`/`without`/`on`/`ignoring`/`group_*`, offsets and numbers are removed first; what is left are function names
 * (followed by `(`), keywords, numbers and metric names.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\S+/g, ' ')
    // Numbers (0.99, 1e3) and durations (5m): tokens starting with a digit.
    .replace(/(?<![\w:])\d[\w.]*/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\()?)/g)) {
    const [token, call] = [match[0], match[1]];
    if (call !== undefined || KEYWORDS.has(token.toLowerCase())) continue;
    names.add(token);
  }
  return [...names];
}

/** promtool's path; a clear failure (never a skip) naming what to install when it is missing. */
export function promtool(): string {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  const bin = found.stdout.trim();
  if (found.status !== 0 || bin === '')
    throw new Error(
      'promtool is missing: install the Debian package prometheus (apt-get install -y prometheus; scripts/test does it as root). The alert rules are checked with it.',
    );
  return bin;
}
