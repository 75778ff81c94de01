import { graphUsagePause } from './graph-usage.ts';

const NOW = 1_700_000_000_000;

describe('Graph usage headers', () => {
  it('keeps calling under the ceiling', () => {
    expect(
      graphUsagePause({ 'x-app-usage': '{"call_count":28,"total_time":25,"total_cputime":25}' }, NOW),
    ).toBeUndefined();
    expect(graphUsagePause({}, NOW)).toBeUndefined();
    expect(graphUsagePause({ 'x-app-usage': 'not json' }, NOW)).toBeUndefined();
  });

  it('stops for the rolling hour at the platform ceiling', () => {
    expect(graphUsagePause({ 'x-app-usage': '{"call_count":96,"total_time":25,"total_cputime":25}' }, NOW)).toBe(
      NOW + 3_600_000,
    );
  });

  it('stops for the minutes the Business Use Case header gives', () => {
    const header = JSON.stringify({
      '17841400000000042': [
        { type: 'instagram', call_count: 100, total_cputime: 23, total_time: 31, estimated_time_to_regain_access: 7 },
      ],
    });
    expect(graphUsagePause({ 'x-business-use-case-usage': header }, NOW)).toBe(NOW + 7 * 60_000);
  });
});
