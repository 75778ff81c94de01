import { metricKeys, seriesOf } from './metric-series.ts';

type Row = Parameters<typeof seriesOf>[0][number];

describe('metric series', () => {
  const rows: Row[] = [
    { published_at: '2027-01-02T00:00:00Z', text: 'second', metrics: { likes: 0, impressions: 10 } },
    { published_at: '2027-01-01T00:00:00Z', text: 'first', metrics: { likes: 3 } },
    { text: 'not published', metrics: { likes: 9 } },
  ];

  it('orders posts by publication and leaves a gap, never a zero, where a metric was not given', () => {
    expect(seriesOf(rows, 'impressions')).toEqual([
      { at: '2027-01-01T00:00:00Z', label: 'first', value: null },
      { at: '2027-01-02T00:00:00Z', label: 'second', value: 10 },
    ]);
    expect(seriesOf(rows, 'likes').map((p) => p.value)).toEqual([3, 0]);
  });

  it('offers every metric any row has', () => {
    expect(metricKeys(rows)).toEqual(['impressions', 'likes']);
  });
});
