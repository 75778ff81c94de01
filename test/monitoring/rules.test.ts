// The alert rules and dashboard of deploy/monitoring/, checked with the real promtool (Debian's
// prometheus package): the rules parse, every alert has a unit test that makes it fire, and every
// alert names a runbook section of docs/operations.md that exists.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  alertRules,
  alertsTestedFiring,
  dashboardExpressions,
  metricNames,
  promtool,
  root,
  ruleTestFiles,
  rulesFile,
} from './monitoring-files.ts';

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** GitHub's anchors of a Markdown file's headings. */
function anchors(markdown: string): Set<string> {
  const headings = markdown.split('\n').filter((line) => /^#{1,6} /.test(line));
  return new Set(
    headings.map((line) =>
      line
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('alert rules', () => {
  it('rules.yml and the dashboard JSON are what scripts/generate-monitoring.mjs writes from their sources', () => {
    const { status, output } = run(process.execPath, ['scripts/generate-monitoring.mjs', '--check']);
    expect(output).toBe('');
    expect(status).toBe(0);
  });

  it('pass promtool check rules', () => {
    const { status, output } = run(promtool(), ['check', 'rules', rulesFile]);
    expect(output).toContain('SUCCESS: ');
    expect(status).toBe(0);
  });

  it('pass their promtool unit tests', () => {
    const files = ruleTestFiles();
    expect(files.length).toBeGreaterThan(0);
    const { status, output } = run(promtool(), ['test', 'rules', ...files]);
    expect(output).not.toContain('FAILED');
    expect(status).toBe(0);
  });

  it('each alert has a unit test in which it fires', () => {
    const tested = alertsTestedFiring();
    expect(
      alertRules()
        .filter((rule) => !tested.has(rule.alert))
        .map((rule) => rule.alert),
    ).toEqual([]);
  });

  it('each alert has a severity and names a runbook section of docs/operations.md that exists', () => {
    const sections = anchors(readFileSync(path.join(root, 'docs/operations.md'), 'utf8'));
    for (const rule of alertRules()) {
      expect([rule.alert, rule.labels?.severity]).toEqual([
        rule.alert,
        expect.stringMatching(/^(critical|warning|info)$/),
      ]);
      const url = rule.annotations?.runbook_url ?? '';
      expect([rule.alert, url]).toEqual([rule.alert, expect.stringMatching(/^docs\/operations\.md#[a-z0-9-]+$/)]);
      expect([rule.alert, sections.has(url.split('#')[1]!)]).toEqual([rule.alert, true]);
    }
  });
});

describe('metric names in PromQL', () => {
  it('are found in expressions, leaving functions, labels, keywords and numbers out', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, queue) (rate(a_bucket{queue!~".+\\\\.parking", x="sum(y)"}[5m]))) > 60',
      ),
    ).toEqual(['a_bucket']);
    expect(
      metricNames('max by (s, p) (b{state="in_use"} / ignoring (state) c) and on() d offset 5m > bool 1e3'),
    ).toEqual(['b', 'c', 'd']);
  });

  it('every rule and panel expression names at least one metric', () => {
    const expressions = [...alertRules().map((rule) => rule.expr), ...dashboardExpressions()];
    expect(expressions.filter((expr) => metricNames(expr).length === 0)).toEqual([]);
  });
});
